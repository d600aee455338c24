"""Mutants of the second shape-inference round on onnx's own tests (issue 42, helper ``shapeinf2``):
the ai.onnx.ml rules and their refusals, the one type check_type gives an output, Einsum's
ellipsis, FlexAttention's refusals, Resize's scales/sizes, SplitToSequence's split, the
inference function of a registered schema, a declared empty type, onnx_compat's
get_function_ops and onnx_opset_version."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_ML = ("tests/differential/test_shape_inference_ml.py",)
_REGISTERED = ("tests/differential/test_onnx_compat_registered_schemas.py",)

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "shapeinf2-tree-lists-unchecked",
        "wirecodec/shape_inference/ops/ml.py",
        "        if given is not None and _count(given) != n:\n",
        "        if given is not None and _count(given) > n:\n",
        _ML,
        "a TreeEnsemble per-node list shorter than nodes_splits passes (onnx refuses it)",
    ),
    Mutant(
        "shapeinf2-label-encoder-default-any-shape",
        "wirecodec/shape_inference/ops/ml.py",
        "            if list(default.t.dims) != [1]:\n",
        "            if len(default.t.dims) > 1:\n",
        _ML,
        "LabelEncoder-4 takes a scalar default_tensor (onnx asks for one value in one dimension)",
    ),
    Mutant(
        "shapeinf2-no-single-type-fill",
        "wirecodec/shape_inference/_check_types.py",
        "        if elem is None or _elem(current):\n",
        "        if True:\n",
        _ML,
        "check_type leaves an output of an operator without inference untyped (onnx gives the "
        "schema's one type: TreeEnsembleRegressor-1's float)",
    ),
    Mutant(
        "shapeinf2-einsum-ellipsis-ranks-unchecked",
        "wirecodec/shape_inference/ops/matmul.py",
        "            elif len(axes) != len(ell):\n",
        "            elif len(axes) > len(ell):\n",
        ("tests/differential/test_shape_inference_einsum.py",),
        "an ellipsis standing for fewer axes than the first one passes (onnx refuses it)",
    ),
    Mutant(
        "shapeinf2-flex-heads-not-multiple",
        "wirecodec/shape_inference/ops/newer.py",
        "    if known and q_heads != kv_heads and "
        "(kv_heads == 0 or int(q_heads or 0) % int(kv_heads or 1)):\n",
        "    if known and q_heads != kv_heads and kv_heads == 0:\n",
        ("tests/differential/test_shape_inference_flex_attention.py",),
        "FlexAttention takes Hq that is not a multiple of Hkv",
    ),
    Mutant(
        "shapeinf2-resize-empty-sizes-given",
        "wirecodec/shape_inference/ops/shape_ops.py",
        '        sizes = sizes or None  # an empty sizes tensor stands for "not given", as an empty scales\n',
        "",
        ("tests/differential/test_shape_inference_resize.py",),
        "an empty sizes tensor counts as sizes (every resized axis becomes unknown)",
    ),
    Mutant(
        "shapeinf2-split-pieces-first-size",
        "wirecodec/shape_inference/ops/sequences.py",
        "        same: Dim = split[0] if all(n == split[0] for n in split) else None\n",
        "        same: Dim = split[0]\n",
        ("tests/differential/test_shape_inference_split_to_sequence.py",),
        "pieces of several sizes are given the first piece's size",
    ),
    Mutant(
        "shapeinf2-registered-function-ignored",
        "wirecodec/shape_inference/_engine.py",
        "            registered = _registered_rule(key, opset) if SCHEMA_RULES else None\n",
        "            registered = None\n",
        _REGISTERED,
        "a registered schema's inference function never runs",
    ),
    Mutant(
        "shapeinf2-empty-type-gets-value-info",
        "wirecodec/shape_inference/_engine.py",
        '        elif info.HasField("type"):\n',
        "        elif False:\n",
        ("tests/differential/test_shape_inference_empty_types.py",),
        "a declared empty type gets a value_info entry as well (silero-vad's float16 bytes differ)",
    ),
    Mutant(
        "shapeinf2-opset-version-fixed",
        "wirecodec/onnx_compat/defs.py",
        "    return max(DEFAULT_OPSET_VERSION, _registry().domain_versions.get(ONNX_DOMAIN, (0, 0))[1])\n",
        "    return DEFAULT_OPSET_VERSION\n",
        _REGISTERED,
        "onnx_opset_version() stays 28 after a schema of version 30 is registered",
    ),
    Mutant(
        "shapeinf2-function-ops-bodies-only",
        "wirecodec/onnx_compat/defs.py",
        "    return [s for s in get_all_schemas() if s.has_function or s.has_context_dependent_function]\n",
        "    return [s for s in get_all_schemas() if s.has_function]\n",
        _REGISTERED,
        "get_function_ops leaves out the operators whose function is built per node",
    ),
    Mutant(
        "shapeinf2-loader-tolerance-default",
        "wirecodec/onnx_compat/backend/test/loader.py",
        "        rtol, atol = 1e-3, 1e-7\n",
        "        rtol, atol = 1e-3, 1e-5\n",
        ("tests/differential/test_onnx_compat_backend_loader.py",),
        "a backend test case without its own tolerances gets another atol than onnx's 1e-7",
    ),
)
