"""Mutants of the shape-inference work on onnx's own tests (issue 42): the attribute checks of
convolutions and pooling, sizes past int64, the signal operators, the arity check under
check_type, and onnx_compat's readings of onnx's call forms (a str of names, a domain in
second place)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_CONV = ("tests/differential/test_shape_inference_conv_pool.py",)
_NAMES = ("tests/differential/test_shape_inference_compat_names.py",)

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "shapeinf-zero-stride-passes",
        "wirecodec/shape_inference/ops/conv_pool.py",
        "    if positive and any(v <= 0 for v in values):\n",
        "    if positive and any(v < 0 for v in values):\n",
        _CONV,
        "a zero stride, dilation or kernel size passes the check (a ZeroDivisionError or a wrong size)",
    ),
    Mutant(
        "shapeinf-auto-pad-beats-explicit-pads",
        "wirecodec/shape_inference/ops/conv_pool.py",
        '    auto_pad = "NOTSET" if given_pads is not None else ctx.attr_str("auto_pad", "NOTSET")\n'
        "    pads = given_pads or [0] * (2 * n)\n    ceil_mode",
        '    auto_pad = ctx.attr_str("auto_pad", "NOTSET")\n'
        "    pads = given_pads or [0] * (2 * n)\n    ceil_mode",
        _CONV,
        "auto_pad decides the padding even where pads are given (onnx uses the pads)",
    ),
    Mutant(
        "shapeinf-average-pool-dilations-from-19",
        "wirecodec/shape_inference/ops/conv_pool.py",
        '_DILATED_SINCE = {"MaxPool": 10, "AveragePool": 11, "LpPool": 18}',
        '_DILATED_SINCE = {"MaxPool": 10, "AveragePool": 19, "LpPool": 18}',
        _CONV,
        "AveragePool 11-18 ignores dilations (onnx's inference reads them from opset 11)",
    ),
    Mutant(
        "shapeinf-no-int64-guard",
        "wirecodec/shape_inference/_context.py",
        "            if isinstance(d, int) and not _INT64_MIN <= d <= _INT64_MAX:\n",
        "            if False:\n",
        ("tests/differential/test_shape_inference_overflow.py",),
        "a size past int64 reaches the message (a ValueError, not an InferenceError)",
    ),
    Mutant(
        "shapeinf-str-of-names-is-one-name",
        "wirecodec/onnx_compat/helper.py",
        "    return list(values) if isinstance(values, str) else values\n",
        "    return [values] if isinstance(values, str) else values\n",
        _NAMES,
        "onnx_compat's make_node reads 'xy' as one name (onnx: one per character)",
    ),
    Mutant(
        "shapeinf-stft-onesided-by-default",
        "wirecodec/shape_inference/ops/newer.py",
        '    bins = length // 2 + 1 if ctx.attr_int("onesided", 0) else length\n',
        '    bins = length // 2 + 1 if ctx.attr_int("onesided", 1) else length\n',
        ("tests/differential/test_shape_inference_signal.py",),
        "STFT without the attribute gives one-sided bins (onnx's inference reads it as 0)",
    ),
    Mutant(
        "shapeinf-arity-only-too-many",
        "wirecodec/shape_inference/_check_types.py",
        "        if not low <= count <= high:\n",
        "        if count > high:\n",
        _NAMES,
        "check_type lets a node with too few inputs through (onnx refuses it before inferring)",
    ),
    Mutant(
        "shapeinf-dft-last-axis-allowed",
        "wirecodec/shape_inference/ops/newer.py",
        "    if not -rank <= axis < rank - 1 or axis == -1:\n",
        "    if not -rank <= axis < rank:\n",
        ("tests/differential/test_shape_inference_dft.py",),
        "DFT along the last axis (the real/imaginary one) is inferred instead of refused",
    ),
    Mutant(
        "shapeinf-has-domain-form-lost",
        "wirecodec/onnx_compat/defs.py",
        "    if isinstance(max_inclusive_version, str):\n",
        "    if False:\n",
        _NAMES,
        "defs.has(op_type, domain) compares the domain with versions (a TypeError)",
    ),
)
