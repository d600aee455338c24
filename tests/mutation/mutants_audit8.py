"""Issue 46: a fresh mutation audit of the last two sessions' code (round 8), by someone who
did not write it. 30 plausible bugs, each in a different function, none repeating an old
text of another mutant module, written from the code before its tests were read; each
names the tests of its area that *should* notice it (never tests/onnx_suite). The kill
ratio before any test was added, the survivors and the tests that now kill them:
docs/testing.md ("a fresh audit of round 8").

    python -m tests.mutation $(grep -o '"audit8-[a-z0-9-]*"' tests/mutation/mutants_audit8.py \
        | sort -u | tr -d '"' | sed 's/^/--only /') --onnx-suite off
"""

from __future__ import annotations

import dataclasses

from tests.mutation.mutant import Mutant, tests_in

_SI = "wirecodec/shape_inference/"
_ML = "wirecodec/reference/ops/ml/"

# The selections: the tests of each area as they were before this audit (its "before").
_T_CHECKER = (
    *tests_in("tests/unit/checker"),
    "tests/differential/test_check_verdicts.py",
    "tests/differential/test_checker_schemas.py",
    "tests/differential/test_checker_opset_edges.py",
    "tests/differential/test_check_lists_and_graphs.py",
    "tests/differential/test_check_attribute_references_in_functions.py",
    "tests/differential/test_check_empty_list_attributes.py",
    "tests/cli/test_check_cli.py",
    "tests/cli/test_check_many_and_json.py",
    "tests/cli/test_check_schemas_cli.py",
)
_T_SHAPES = (
    *tests_in("tests/unit/shape_inference"),
    "tests/differential/test_shape_inference_refusals_vs_onnx.py",
    "tests/differential/test_shape_inference_ops_vs_onnx.py",
    "tests/differential/test_shape_inference_vs_onnx.py",
    "tests/differential/test_shape_inference_edges.py",
    "tests/differential/test_type_checks_and_attribute_types.py",
)
_T_NEWER_SHAPES = (
    "tests/differential/test_shape_inference_linear_attention.py",
    "tests/differential/test_shape_inference_causal_conv.py",
    "tests/differential/test_shape_inference_grouped_query_heads.py",
    *_T_SHAPES,
)
_T_REPLACE = ("tests/differential/test_onnx_compat_tools_replace_constants.py",)
_T_LOADER = ("tests/differential/test_onnx_compat_backend_loader.py",)
_T_INLINER = ("tests/differential/test_onnx_compat_inliner.py", "tests/differential/test_onnx_compat.py")
_T_EVALUATOR = (
    *tests_in("tests/unit/reference"),
    "tests/differential/test_reference_kernels.py",
    "tests/differential/test_reference_feeds_and_extremes.py",
    "tests/differential/test_reference_zero_d.py",
)
_T_ML_REFERENCE = (
    "tests/differential/test_reference_ml_nodes.py",
    "tests/differential/test_reference_ml_sklearn.py",
    "tests/differential/test_reference_ml_boundaries_and_defaults.py",
    "tests/cli/test_run_ml_models.py",
)
_T_HELPER = (
    "tests/differential/test_onnx_compat_helper_builders.py",
    "tests/differential/test_onnx_compat.py",
    "tests/differential/test_onnx_compat_names.py",
)
_T_CONVERTER = (
    *tests_in("tests/unit/version_converter"),
    "tests/differential/test_version_converter_adapters.py",
    "tests/differential/test_version_converter_defaults.py",
    "tests/differential/test_version_converter_onnx.py",
)
_T_MAKE_UP = (
    "tests/cli/test_make_up.py",
    "tests/cli/test_inspect_reads_nodes_once.py",
    "tests/cli/test_inspect_toposort_diff_reports.py",
    "tests/cli/test_inspect_counts_constants_of_either_default_domain_name.py",
)

_BEFORE: tuple[Mutant, ...] = (
    # -- the checker: the streaming walk, the values read once, the names, the counts (4) -------
    # (A first draft here, `audit8-checker-training-graphs-not-listed`: ``graph.role == "main"``
    # for ``graph.role != "subgraph"``, survived and is equivalent: with rules, the walk's list
    # of graphs has no reader (every family takes the graphs' values from the rules, which see
    # every graph). This replaces it.)
    Mutant(
        "audit8-checker-function-nodes-unowned",
        "wirecodec/checker/walk.py",
        "            nodes(NodeSite(path, item, _function(path, functions) if functions else None))\n",
        "            nodes(NodeSite(path, item, None))\n",
        _T_CHECKER,
        "the streaming walk hands a model-local function's nodes to the rules as the main graph's",
    ),
    Mutant(
        "audit8-checker-sparse-initializer-path-without-values",
        "wirecodec/checker/values.py",
        '        where = join(join(path, "sparse_initializer", i), "values")\n',
        '        where = join(path, "sparse_initializer", i)\n',
        _T_CHECKER,
        "a sparse initializer's findings name graph.sparse_initializer[i].name, a path that does not exist",
    ),
    Mutant(
        "audit8-checker-body-misses-outer-initializers",
        "wirecodec/checker/names.py",
        "            for where, name in read.initializers:\n"
        "                if name:\n"
        '                    given.setdefault(name, join(where, "name"))\n',
        "",
        _T_CHECKER,
        "a body reading an initializer of its holding graph: undefined-input (the streamed names rules)",
    ),
    Mutant(
        "audit8-checker-operator-counts-drop-domain",
        "wirecodec/checker/__init__.py",
        '        self.operators[f"{node.domain}::{node.op_type}" if node.domain else node.op_type] += 1\n',
        "        self.operators[node.op_type] += 1\n",
        _T_CHECKER,
        "check's operator counts merge com.microsoft::Gelu with Gelu (the domain is dropped)",
    ),
    # -- shape inference (10) ------------------------------------------------------------------
    Mutant(
        "audit8-scan8-sequence-lens-not-counted",
        _SI + "ops/control_flow.py",
        "    if n_scan + 1 > ctx.n_inputs:\n",
        "    if n_scan > ctx.n_inputs:\n",
        _T_SHAPES,
        "Scan-8 with num_scan_inputs equal to its input count (no room for sequence_lens) is accepted",
    ),
    Mutant(
        "audit8-concat-negative-axis-unknown-at-11",
        _SI + "ops/shape_ops.py",
        '    if ctx.opset < 11 and ctx.attr_int("axis", 0) < 0:',
        '    if ctx.opset <= 11 and ctx.attr_int("axis", 0) < 0:',
        _T_SHAPES,
        "Concat-11 with a negative axis leaves the shape unknown (negative axes came in 11)",
    ),
    Mutant(
        "audit8-slice-unknown-steps-kept",
        _SI + "ops/shape_ops.py",
        "        if (given_axes and axes is None) or (given_steps and steps is None):\n",
        "        if given_axes and axes is None:\n",
        _T_SHAPES,
        "Slice with a steps input of known shape but computed values is sliced with step 1",
    ),
    Mutant(
        "audit8-one-hot-only-all-negative-indices-refused",
        _SI + "ops/shape_ops.py",
        '    if stored is not None and stored.dtype.kind in "iu" and (stored < 0).any():\n',
        '    if stored is not None and stored.dtype.kind in "iu" and (stored < 0).all():\n',
        _T_SHAPES,
        "OneHot before 11 refuses stored indices only when every one is negative",
    ),
    Mutant(
        "audit8-quantize-output-dtype-ignored-without-zero-point",
        _SI + "ops/casts.py",
        "    elem = elem or wanted or UINT8\n",
        "    elem = elem or UINT8\n",
        _T_SHAPES,
        "QuantizeLinear without a zero point ignores output_dtype (uint8 whatever it says)",
    ),
    Mutant(
        "audit8-batch-norm-statistics-ranks-unchecked",
        _SI + "ops/normalization.py",
        "        for i in range(1, 5):\n            rank = ctx.rank(i)\n",
        "        for i in range(1, 3):\n            rank = ctx.rank(i)\n",
        _T_SHAPES,
        "BatchNormalization-14+ checks the ranks of scale and B only, not of mean and var",
    ),
    Mutant(
        "audit8-nll-batch-sizes-unchecked",
        _SI + "ops/misc.py",
        "        if differ(x[0], target[0]) or "
        "any(differ(a, b) for a, b in zip(x[2:], target[1:], strict=True)):\n",
        "        if any(differ(a, b) for a, b in zip(x[2:], target[1:], strict=True)):\n",
        _T_SHAPES,
        "NegativeLogLikelihoodLoss accepts a target whose batch size differs from the input's",
    ),
    Mutant(
        "audit8-attention-3d-head-size-whole",
        _SI + "ops/misc.py",
        "    size = hidden // heads if isinstance(hidden, int) and heads else None\n",
        "    size = hidden if isinstance(hidden, int) and heads else None\n",
        _T_NEWER_SHAPES,
        "Attention of 3-D inputs takes the whole hidden size as the head size (not hidden / heads)",
    ),
    Mutant(
        "audit8-arithmetic-unknown-element-type-passes",
        _SI + "ops/elementwise.py",
        "    ctx.set_tensor(0, ctx.known_elem(0), broadcast([ctx.shape(0), ctx.shape(1)]))\n",
        "    ctx.set_tensor(0, ctx.elem(0), broadcast([ctx.shape(0), ctx.shape(1)]))\n",
        _T_SHAPES,
        "Add/Sub/Mul/Div of an input whose element type is unknown are inferred (onnx refuses them)",
    ),
    Mutant(
        "audit8-infer-shapes-pathlike-accepted",
        _SI + "__init__.py",
        "    if isinstance(model, (str, os.PathLike)):\n",
        "    if isinstance(model, str):\n",
        _T_SHAPES,
        "infer_shapes(pathlib.Path(...)) is not told to use infer_shapes_path (a bare type error)",
    ),
    # -- onnx_compat: replace_constants, the backend-test loader, the inliner (5) ----------------
    Mutant(
        "audit8-replace-constants-threshold-inclusive",
        "wirecodec/onnx_compat/tools/replace_constants.py",
        "        if math.prod(dims) <= threshold:\n            initializers.append(tensor)\n",
        "        if math.prod(dims) < threshold:\n            initializers.append(tensor)\n",
        _T_REPLACE,
        "an initializer of exactly threshold elements is replaced (onnx keeps it)",
    ),
    Mutant(
        "audit8-replace-constants-range-always-float",
        "wirecodec/onnx_compat/tools/replace_constants.py",
        "        to = node.attribute[0].t.data_type if len(node.attribute) == 1 else TensorProto.FLOAT\n",
        "        to = TensorProto.FLOAT\n",
        _T_REPLACE,
        "use_range casts the Range to float whatever the replaced tensor's type",
    ),
    Mutant(
        "audit8-loader-tolerances-of-data-json-ignored",
        "wirecodec/onnx_compat/backend/test/loader.py",
        '                rtol=data.get("rtol", rtol),\n',
        "                rtol=rtol,\n",
        _T_LOADER,
        "a case's data.json rtol is not read (the default 1e-3 always)",
    ),
    Mutant(
        "audit8-inliner-nested-calls-left",
        "wirecodec/onnx_compat/inliner.py",
        "                out.extend(self.nodes(self.expand(node, function, self.calls)))\n",
        "                out.extend(self.expand(node, function, self.calls))\n",
        _T_INLINER,
        "a function calling another local function is inlined one level: the inner call stays",
    ),
    Mutant(
        "audit8-inline-selected-exclude-inverted",
        "wirecodec/onnx_compat/inliner.py",
        "    return _inline(model, local - ids if exclude else local & ids)\n",
        "    return _inline(model, local & ids if exclude else local - ids)\n",
        _T_INLINER,
        "inline_selected_functions inlines the functions it was told to leave, and leaves the others",
    ),
    # -- the reference evaluator (6) ------------------------------------------------------------
    Mutant(
        "audit8-run-alone-absent-input-named",
        "wirecodec/reference/_nodes.py",
        '    names = [name if value is not None else "" '
        "for name, value in zip(node.input, args, strict=False)]\n",
        "    names = list(node.input)\n",
        _T_EVALUATOR,
        "rt_nodes_[i].run(x, None, ...) keeps an absent optional input's name: neither fed nor computed",
    ),
    Mutant(
        "audit8-annotations-element-type-alone-unchecked",
        "wirecodec/reference/_annotations.py",
        "        if tensor.elem_type or dims is not None:\n",
        "        if dims is not None:\n",
        _T_EVALUATOR,
        "a value declared with an element type and no shape is never checked (float64 for float32)",
    ),
    Mutant(
        "audit8-annotations-empty-dim-param-a-symbol",
        "wirecodec/reference/_annotations.py",
        '    if kind == "dim_param" and dim.dim_param:\n',
        '    if kind == "dim_param":\n',
        _T_EVALUATOR,
        "an empty dim_param is a symbol '': every such dimension must then have one size",
    ),
    Mutant(
        "audit8-linear-classifier-threshold-half-for-none",
        _ML + "linear.py",
        '        threshold = 0.0 if transform == "NONE" else 0.5\n',
        "        threshold = 0.5\n",
        _T_ML_REFERENCE,
        "a one-score LinearClassifier without post_transform labels a score in [0, 0.5) negative",
    ),
    Mutant(
        "audit8-cast-map-sparse-negative-key-wraps",
        _ML + "maps.py",
        "        if items and items[0][0] < 0:  # (sorted: a negative key comes first)\n",
        "        if items and items[0][0] < -1:  # (sorted: a negative key comes first)\n",
        (*_T_ML_REFERENCE, "tests/differential/test_reference_ml_one_score_and_sparse_maps.py"),
        "CastMap SPARSE puts a negative key's value at the end (Python's negative index)",
    ),
    Mutant(
        "audit8-resize-weights-untransposed",
        "wirecodec/reference/ops/resize.py",
        "        y = np.moveaxis(np.moveaxis(y, ax, -1) @ w.T, -1, ax)\n",
        "        y = np.moveaxis(np.moveaxis(y, ax, -1) @ w, -1, ax)\n",
        _T_EVALUATOR,
        "Resize multiplies by the interpolation weights untransposed (right only for equal sizes)",
    ),
    # -- helper builders (2) ----------------------------------------------------------------
    Mutant(
        "audit8-tensor-type-scalar-shape-dropped",
        "wirecodec/_helper/type_protos.py",
        "    if shape is not None:\n"
        '        adopt(tensor, "shape", _shape(shape, shape_denotation, "make_tensor_type_proto"))\n',
        "    if shape:\n"
        '        adopt(tensor, "shape", _shape(shape, shape_denotation, "make_tensor_type_proto"))\n',
        _T_HELPER,
        "make_tensor_type_proto(FLOAT, []) leaves the shape out (any rank), not a scalar",
    ),
    Mutant(
        "audit8-attribute-list-of-ints-as-floats",
        "wirecodec/_helper/attributes.py",
        "    (numbers.Integral, _A.INTS),\n    (numbers.Real, _A.FLOATS),\n",
        "    (numbers.Real, _A.FLOATS),\n    (numbers.Integral, _A.INTS),\n",
        _T_HELPER,
        "make_attribute('pads', [1, 2]) infers FLOATS (an int is a Real too)",
    ),
    # -- the version converter's adapters (2) ------------------------------------------------
    Mutant(
        "audit8-mod-without-fmod-not-checked",
        "wirecodec/version_converter/_adapters.py",
        "    if fmod is None or fmod.i == 0:\n",
        "    if fmod is not None and fmod.i == 0:\n",
        _T_CONVERTER,
        "Mod-28 of floats without an fmod attribute (fmod 0 by default) goes down to 27 unrefused",
    ),
    # (A first draft here, `audit8-axis-to-attribute-index-always-shifted`: ``index -= 1`` for
    # ``index -= 1 if producer < index else 0``, survived and is equivalent: in a graph sorted
    # topologically, as the converter requires, the Constant making the axis comes before its
    # reader. This replaces it.)
    Mutant(
        "audit8-axis-to-attribute-drops-a-shared-constant",
        "wirecodec/version_converter/_adapters.py",
        "    del node.input[position]\n    if scope.uses(source) == 0:\n",
        "    del node.input[position]\n    if scope.uses(source) <= 1:\n",
        _T_CONVERTER,
        "DFT-20 to 19: the Constant giving the axis is deleted though another node still reads it",
    ),
    # -- inspect's make-up (1) ------------------------------------------------------------------
    Mutant(
        "audit8-make-up-any-tensor-taken-as-packed",
        "wirecodec/cli/make_up.py",
        '    if found is None or facts.dtype != "UINT8":\n',
        "    if found is None:\n",
        _T_MAKE_UP,
        "a float16 zero point of MatMulNBits is counted as packed UINT4 parameters",
    ),
)

# The tests written for the survivors, first in their selections.
_ANNOTATIONS = "tests/differential/test_reference_shape_annotations_types_and_empty_symbols.py"
_ML_EDGES = "tests/differential/test_reference_ml_one_score_and_sparse_maps.py"
_KILLERS: dict[str, str] = {
    "audit8-checker-sparse-initializer-path-without-values": (
        "tests/differential/test_check_sparse_initializer_paths.py"
    ),
    "audit8-checker-body-misses-outer-initializers": (
        "tests/differential/test_check_bodies_reading_outer_initializers.py"
    ),
    "audit8-scan8-sequence-lens-not-counted": "tests/differential/test_shape_inference_scan8_input_counts.py",
    "audit8-batch-norm-statistics-ranks-unchecked": (
        "tests/differential/test_shape_inference_batch_norm_statistics_ranks.py"
    ),
    "audit8-replace-constants-threshold-inclusive": (
        "tests/differential/test_onnx_compat_replace_constants_at_the_threshold.py"
    ),
    "audit8-run-alone-absent-input-named": (
        "tests/differential/test_reference_rt_nodes_run_with_absent_inputs.py"
    ),
    "audit8-annotations-element-type-alone-unchecked": _ANNOTATIONS,
    "audit8-annotations-empty-dim-param-a-symbol": _ANNOTATIONS,
    "audit8-linear-classifier-threshold-half-for-none": _ML_EDGES,
    "audit8-cast-map-sparse-negative-key-wraps": _ML_EDGES,
    "audit8-mod-without-fmod-not-checked": "tests/differential/test_version_converter_mod_28_to_27.py",
    "audit8-make-up-any-tensor-taken-as-packed": "tests/cli/test_make_up_nbits_zero_points_by_type.py",
    "audit8-axis-to-attribute-drops-a-shared-constant": (
        "tests/differential/test_version_converter_dft_axis_constant_shared.py"
    ),
    # killed before by the area's tests, after 2 min; this one says it in a second
    "audit8-checker-operator-counts-drop-domain": "tests/unit/checker/test_operator_counts_by_domain.py",
}

MUTANTS: tuple[Mutant, ...] = tuple(
    dataclasses.replace(m, tests=(_KILLERS[m.name], *m.tests)) if m.name in _KILLERS else m for m in _BEFORE
)
