"""Mutants of the evaluator's fast paths (issue 43's bench work, branch evalbench): Conv in
one numpy call per node, RoiAlign without a loop over samples, Resize's gathers and skipped
axes, the input type check cached by dtype, and the typed error without numpy."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_KERNELS = "tests/differential/test_reference_kernels.py"
_BACKEND = "tests/differential/test_reference_backend.py::test_backend_node"
_CONV = "wirecodec/reference/ops/conv.py"
_SAMPLING = "wirecodec/reference/ops/sampling.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "evalbench-pointwise-conv-ignores-strides",
        _CONV,
        "steps = tuple(slice(0, o * s, s) for o, s in zip(out, strides, strict=True))",
        "steps = tuple(slice(0, o, 1) for o, s in zip(out, strides, strict=True))",
        (f"{_KERNELS}::test_conv_paths_match_onnxruntime",),
        "a strided 1x1 convolution reads the first output-many positions instead of every s-th",
    ),
    Mutant(
        "evalbench-depthwise-sums-in-float16",
        _CONV,
        'wide = w.astype(np.float32) if w.dtype.kind == "f" and w.dtype.itemsize < 4 else w',
        "wide = w",
        (
            f"{_KERNELS}::test_depthwise_float16_sums_in_float32",
            f"{_BACKEND}[test_causal_conv_with_state_silu_fp16_expanded]",
        ),
        "a float16 depthwise convolution accumulates its taps in float16 and drifts",
    ),
    Mutant(
        "evalbench-depthwise-multiplier-tiles",
        _CONV,
        "source = np.repeat(patches, mg, axis=1) if mg > 1 else patches",
        "source = np.tile(patches, (1, mg) + (1,) * (patches.ndim - 2)) if mg > 1 else patches",
        (f"{_KERNELS}::test_conv_paths_match_onnxruntime",),
        "a depthwise convolution with a channel multiplier pairs output channels with the wrong inputs",
    ),
    Mutant(
        "evalbench-grouped-conv-weights-interleaved",
        _CONV,
        "weights = w.reshape(group, mg, cg, *w.shape[2:])",
        "weights = w.reshape(mg, group, cg, *w.shape[2:]).swapaxes(0, 1)",
        (f"{_KERNELS}::test_conv_paths_match_onnxruntime",),
        "a grouped convolution takes its groups' filters interleaved instead of in blocks",
    ),
    Mutant(
        "evalbench-roi-align-counts-samples-outside",
        _SAMPLING,
        "np.add.at(wy_matrix, (bins_y, ylo), wylo * yin)",
        "np.add.at(wy_matrix, (bins_y, ylo), wylo)",
        (f"{_KERNELS}::test_roi_align_matches_onnx_reference",),
        "RoiAlign's average counts samples beyond the image's edge as edge pixels, not 0",
    ),
    Mutant(
        "evalbench-roi-align-max-outside-not-zero",
        _SAMPLING,
        "weighted = np.where(inside, weighted, 0.0)  # a sample outside counts 0",
        "weighted = weighted",
        (f"{_KERNELS}::test_roi_align_matches_onnx_reference",),
        "RoiAlign's maximum takes samples beyond the image's edge as edge pixels, not 0",
    ),
    Mutant(
        "evalbench-resize-skips-crop-axes",
        "wirecodec/reference/ops/resize.py",
        "if (f == 1.0 and n_in == n_out and not crop) or n_in == n_out == 1:",
        "if (f == 1.0 and n_in == n_out) or n_in == n_out == 1:",
        (f"{_KERNELS}::test_resize_crops_an_axis_it_does_not_scale",),
        "Resize skips an axis of scale 1 even when tf_crop_and_resize crops it by its roi",
    ),
    Mutant(
        "evalbench-type-check-caches-a-wrong-kind",
        "wirecodec/reference/_evaluator.py",
        "kind = _KINDS[value.dtype] = type_name(value)",
        'kind = _KINDS[value.dtype] = "tensor(float)"',
        ("tests/unit/reference/test_evaluator.py::test_a_type_the_operator_does_not_take",),
        "the type check's dtype cache holds one kind for every dtype: a wrong input type runs",
    ),
    Mutant(
        "evalbench-no-numpy-check",
        "wirecodec/reference/__init__.py",
        "    import numpy  # noqa: F401  (the evaluator's one dependency: checked once, here)",
        "    pass",
        ("tests/unit/reference/test_reference_without_numpy.py",),
        "without numpy, importing the evaluator fails with a bare ImportError from an operator module",
    ),
    Mutant(
        "evalbench-swish-ignores-alpha",
        "wirecodec/reference/ops/elementwise.py",
        "scaled = _same(x, np.asarray(np.float32(alpha)).astype(x.dtype) * x)",
        "scaled = _same(x, x)",
        (f"{_BACKEND}[test_swiglu_alpha]", f"{_BACKEND}[test_swish]"),
        "Swish and SwiGLU, computed directly instead of through their bodies, drop alpha",
    ),
    Mutant(
        "evalbench-grid-sample-zeros-padding-lost",
        _SAMPLING,
        "return values if valid is None else np.where(valid[:, None], values, 0.0)",
        "return values",
        (f"{_BACKEND}[test_gridsample_zeros_padding]", f"{_BACKEND}[test_gridsample_bicubic]"),
        "GridSample's batched gather reads the border pixel where padding_mode zeros reads 0",
    ),
)
