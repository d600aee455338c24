"""Issue 46: a fresh mutation audit of the last session's code (round 7), by someone who did
not write it. 30 plausible bugs, each in a different function, none repeating an old text of
another mutant module, written from the code before its tests were read; each names the tests
of its area that *should* notice it (never tests/onnx_suite). The kill ratio before any test
was added, the survivors and the tests that now kill them: docs/testing.md ("a fresh audit
of round 7").

    python -m tests.mutation $(grep -o '"audit7-[a-z0-9-]*"' tests/mutation/mutants_audit7.py \
        | sort -u | tr -d '"' | sed 's/^/--only /') --onnx-suite off
"""

from __future__ import annotations

import dataclasses

from tests.mutation.mutant import Mutant, tests_in

_ML = "wirecodec/reference/ops/ml/"
_ML_SHAPES = "wirecodec/shape_inference/ops/ml.py"
_DEFS = "wirecodec/onnx_compat/defs.py"

# The selections: the tests of each area as they were before this audit (its "before").
_T_ML_REFERENCE = (
    "tests/differential/test_reference_ml_nodes.py",
    "tests/differential/test_reference_ml_sklearn.py",
    "tests/cli/test_run_ml_models.py",
)
_T_SHAPES = (
    *tests_in("tests/unit/shape_inference"),
    "tests/differential/test_shape_inference_ops_vs_onnx.py",
    "tests/differential/test_shape_inference_vs_onnx.py",
    "tests/differential/test_shape_inference_edges.py",
)
_T_ML_SHAPES = ("tests/differential/test_shape_inference_ml.py", *_T_SHAPES)
_T_REGISTERED = (
    "tests/differential/test_onnx_compat_registered_schemas.py",
    "tests/differential/test_onnx_compat_namespace.py",
    "tests/differential/test_onnx_compat_names.py",
    "tests/differential/test_shape_inference_compat_names.py",
)
_T_CHECKER = (
    *tests_in("tests/unit/checker"),
    "tests/differential/test_check_verdicts.py",
    "tests/differential/test_type_checks_and_attribute_types.py",
)
_T_MAKE_UP = (
    "tests/cli/test_make_up.py",
    "tests/cli/test_inspect_reads_nodes_once.py",
    "tests/cli/test_inspect_toposort_diff_reports.py",
)
_T_WALK = (*tests_in("tests/unit/protobuf"), *tests_in("tests/unit/files"))
_T_MESSAGES = (
    "tests/differential/test_equality_and_copies_vs_onnx.py",
    "tests/differential/test_unknown_enum_values_vs_onnx.py",
    "tests/differential/test_message_api_vs_onnx.py",
    "tests/differential/test_records.py",
    *tests_in("tests/unit/schema"),
    *tests_in("tests/unit/protobuf"),
)

_BEFORE: tuple[Mutant, ...] = (
    # -- the ai.onnx.ml operators of the evaluator (11) ---------------------------------------
    Mutant(
        "audit7-label-encoder-nan-key-unmatched",
        _ML + "encoders.py",
        '        return "nan" if np.isnan(k) else float(k)\n',
        "        return float(k)\n",
        _T_ML_REFERENCE,
        "LabelEncoder with a NaN key never maps a NaN input (nan != nan): it gets the default",
    ),
    Mutant(
        "audit7-binarizer-at-threshold-is-one",
        _ML + "encoders.py",
        '    return (x > ctx.attrs.get("threshold", 0.0)).astype(x.dtype)\n',
        '    return (x >= ctx.attrs.get("threshold", 0.0)).astype(x.dtype)\n',
        _T_ML_REFERENCE,
        "Binarizer makes a value equal to the threshold 1 (onnx: only values above it)",
    ),
    Mutant(
        "audit7-array-feature-extractor-vector-not-a-row",
        _ML + "encoders.py",
        "    if x.ndim == 1:\n        return y.reshape(1, -1)\n    return y\n",
        "    return y\n",
        _T_ML_REFERENCE,
        "ArrayFeatureExtractor of a 1-D input returns a 1-D result, not one row [1, k] as onnx",
    ),
    Mutant(
        "audit7-svm-regressor-rho-subtracted",
        _ML + "svm.py",
        "        score = kernel @ coefficients[:n_supports] + rho[0]\n",
        "        score = kernel @ coefficients[:n_supports] - rho[0]\n",
        _T_ML_REFERENCE,
        "SVMRegressor with support vectors subtracts rho (libsvm's sign) where onnx adds it",
    ),
    Mutant(
        "audit7-scaler-scales-before-offset",
        _ML + "preprocessing.py",
        "    return ((data - offset.astype(dtype)) * scale.astype(dtype)).astype(np.float32)\n",
        "    return (data * scale.astype(dtype) - offset.astype(dtype)).astype(np.float32)\n",
        _T_ML_REFERENCE,
        "Scaler computes x * scale - offset, not (x - offset) * scale",
    ),
    Mutant(
        "audit7-normalizer-max-without-abs",
        _ML + "preprocessing.py",
        "        divisor = np.abs(rows).max(axis=1, keepdims=True, initial=0)\n",
        "        divisor = rows.max(axis=1, keepdims=True, initial=0)\n",
        _T_ML_REFERENCE,
        "Normalizer MAX divides by the largest value, not the largest magnitude (negative rows blow up)",
    ),
    Mutant(
        "audit7-imputer-nan-by-identity",
        _ML + "preprocessing.py",
        "    if isinstance(replaced, float) and np.isnan(replaced):\n",
        "    if replaced is np.nan:\n",
        _T_ML_REFERENCE,
        "Imputer told to replace NaN (replaced_value_float=nan from an attribute) replaces nothing",
    ),
    # (A first draft here, `audit7-one-hot-zeros-default-off`: ``a.get("zeros", 0)`` for
    # ``a.get("zeros", 1)``, survived and is equivalent: the evaluator fills a missing
    # attribute with its schema default before the operator reads it. This replaces it.)
    Mutant(
        "audit7-one-hot-encoder-flattens-its-input",
        _ML + "preprocessing.py",
        "    return out.reshape((*x.shape, len(categories)))\n",
        "    return out\n",
        _T_ML_REFERENCE,
        "OneHotEncoder of an [N, C] input gives [N * C, categories], not [N, C, categories]",
    ),
    Mutant(
        "audit7-cast-map-dense-in-insertion-order",
        _ML + "maps.py",
        "    items = sorted((int(k), v) for k, v in x.items())\n",
        "    items = [(int(k), v) for k, v in x.items()]\n",
        _T_ML_REFERENCE,
        "CastMap DENSE lists a map's values in insertion order, not by key",
    ),
    Mutant(
        "audit7-tree-root-is-last-node",
        _ML + "trees.py",
        "            self.roots.setdefault(tree, int(p))\n",
        "            self.roots[tree] = int(p)\n",
        _T_ML_REFERENCE,
        "a tree ensemble (opsets 1, 3) starts each tree at its last node, not its first",
    ),
    Mutant(
        "audit7-tree5-average-code-is-sum",
        _ML + "trees.py",
        "        if aggregate == 0:\n            out /= len(roots)\n",
        "        if aggregate == 1:\n            out /= len(roots)\n",
        _T_ML_REFERENCE,
        "TreeEnsemble (opset 5) averages under aggregate_function 1 (SUM) and sums under 0 (AVERAGE)",
    ),
    # -- shape inference: ai.onnx.ml rules, Einsum, Range, Resize, SplitToSequence, registered (8)
    Mutant(
        "audit7-afe-vector-input-shaped",
        _ML_SHAPES,
        "    if x is None or len(x) == 1:\n",
        "    if x is None:\n",
        _T_ML_SHAPES,
        "ArrayFeatureExtractor of a 1-D X infers a shape (onnx leaves it unknown)",
    ),
    Mutant(
        "audit7-linear-classifier-vector-rows",
        _ML_SHAPES,
        "    rows: Dim = None if s is None or not s else (1 if len(s) == 1 else s[0])\n",
        "    rows: Dim = None if s is None or not s else s[0]\n",
        _T_ML_SHAPES,
        "LinearClassifier of a 1-D input [C] infers C rows, not one",
    ),
    Mutant(
        "audit7-label-encoder-fewer-values-accepted",
        _ML_SHAPES,
        "        if _count(keys) != _count(values):\n",
        "        if _count(keys) < _count(values):\n",
        _T_ML_SHAPES,
        "LabelEncoder-4 with more keys than values passes (onnx refuses any difference)",
    ),
    Mutant(
        "audit7-einsum-symbol-replaces-one",
        "wirecodec/shape_inference/ops/matmul.py",
        "                    new if old == 1 and isinstance(new, int) else old\n",
        "                    new if old == 1 else old\n",
        ("tests/differential/test_shape_inference_einsum.py", *_T_SHAPES),
        "an ellipsis axis of size 1 in the first term gives way to a later symbol or unknown (onnx keeps 1 "
        "unless a size replaces it)",
    ),
    Mutant(
        "audit7-range-int32-length-unknown",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "_RANGE_COMPUTED = frozenset({FLOAT, DOUBLE, INT32, INT64})\n",
        "_RANGE_COMPUTED = frozenset({FLOAT, DOUBLE, INT64})\n",
        ("tests/differential/test_shape_inference_range.py", *_T_SHAPES),
        "Range of stored int32 start/limit/delta leaves its length unknown (onnx computes it)",
    ),
    Mutant(
        "audit7-resize-input-of-unknown-size-given",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "    return ctx.shape(i) != (0,)\n",
        "    return True\n",
        ("tests/differential/test_shape_inference_resize.py", *_T_SHAPES),
        "a Resize input of shape [0] (computed, empty) counts as given: scales [0] with sizes is refused",
    ),
    Mutant(
        "audit7-split-scalar-uneven-size",
        "wirecodec/shape_inference/ops/sequences.py",
        "        size = split[0] if isinstance(d, int) and d % split[0] == 0 else None\n",
        "        size = split[0] if isinstance(d, int) else None\n",
        ("tests/differential/test_shape_inference_split_to_sequence.py", *_T_SHAPES),
        "SplitToSequence of 7 by a scalar 3 gives pieces of size 3 (the last one is 1: onnx says unknown)",
    ),
    Mutant(
        "audit7-registered-rule-at-its-version-only",
        "wirecodec/shape_inference/_engine.py",
        "    return SCHEMA_RULES.get((key[0], key[1], schema.since_version))"
        " if schema is not None else None\n",
        "    return SCHEMA_RULES.get((key[0], key[1], opset)) if schema is not None else None\n",
        _T_REGISTERED,
        "a registered schema's inference function runs only at an opset equal to its since_version",
    ),
    # -- onnx_compat's names (4) -----------------------------------------------------------------
    Mutant(
        "audit7-deregister-keeps-inference-function",
        _DEFS,
        "    SCHEMA_RULES.pop((domain, op_type, int(max_inclusive_version)), None)\n",
        "",
        _T_REGISTERED,
        "after deregister_schema the schema's inference function still runs",
    ),
    Mutant(
        "audit7-ml-opset-version-oldest",
        _DEFS,
        "    return _registry().domain_versions.get(ONNX_ML_DOMAIN, (0, 0))[1]\n",
        "    return _registry().domain_versions.get(ONNX_ML_DOMAIN, (0, 0))[0]\n",
        _T_REGISTERED,
        "onnx_ml_opset_version() gives the oldest ai.onnx.ml version (1), not the newest (5)",
    ),
    Mutant(
        "audit7-loader-model-name-whole",
        "wirecodec/onnx_compat/backend/test/loader.py",
        '            model_name = test_name[len("test_")]\n',
        '            model_name = test_name[len("test_") :]\n',
        ("tests/differential/test_onnx_compat_backend_loader.py", *_T_REGISTERED),
        "load_model_tests' model_name is the name after test_ (onnx 1.23 gives its first character)",
    ),
    Mutant(
        "audit7-symbolic-input-of-a-stored-value",
        "wirecodec/onnx_compat/_inference_context.py",
        "        if self._ctx.ints(i) is not None:\n"
        "            return None  # a stored value: get_input_data has it\n",
        "",
        _T_REGISTERED,
        "InferenceContext.get_symbolic_input of an initializer gives its values as a shape (onnx: None)",
    ),
    # -- the checker's walk, inspect's make-up (3) ------------------------------------------------
    Mutant(
        "audit7-checker-function-attributes-unowned",
        "wirecodec/checker/walk.py",
        "            attributes(AttributeSite(path, item, _function(path, functions)"
        " if functions else None))\n",
        "            attributes(AttributeSite(path, item, None))\n",
        _T_CHECKER,
        "the checker takes the attributes of a function's nodes for a graph's: a ref_attr_name there "
        "is reported",
    ),
    # (A first draft here, `audit7-make-up-body-weight-overrides-outer`: ``found[name] =
    # facts`` for ``found.setdefault(name, facts)``, survived and is equivalent on valid
    # models: a body cannot define a name its outer graphs define (onnx's checker: SSA over
    # the lexical scope), and of two sibling bodies defining one name neither is the right
    # one to count. This replaces it.)
    Mutant(
        "audit7-make-up-constant-of-ai-onnx-not-a-weight",
        "wirecodec/cli/make_up.py",
        '        if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and node.output:\n',
        '        if node.op_type == "Constant" and node.domain == "" and node.output:\n',
        _T_MAKE_UP,
        "inspect does not count the value of a Constant whose domain is written 'ai.onnx'",
    ),
    Mutant(
        "audit7-make-up-passes-on-through-any-input",
        "wirecodec/cli/make_up.py",
        "    if first.op_type in _PASS_ON and hops and first.output and first.input[0] == name:\n",
        "    if first.op_type in _PASS_ON and hops and first.output:\n",
        _T_MAKE_UP,
        "a weight read as a Reshape's shape counts for whoever reads the Reshape's output",
    ),
    # -- the message machinery: the walk's mask, source bytes, the validator (4) ------------------
    Mutant(
        "audit7-walk-mask-without-lists",
        "wirecodec/protobuf/walk.py",
        "functools.reduce(operator.or_, (bit for _, _, bit in kept), 0)",
        "functools.reduce(operator.or_, (bit for _, repeated, bit in kept if not repeated), 0)",
        _T_WALK,
        "the walk enters a message only when a singular field toward the targets is present: "
        "a built message's lists (a graph's initializers) are not walked",
    ),
    Mutant(
        "audit7-source-of-mark-at-the-end-outside",
        "wirecodec/protobuf/origin.py",
        "        if at < len(marks) and marks[at] <= end:\n",
        "        if at < len(marks) and marks[at] < end:\n",
        _T_MESSAGES,
        "a change to an empty last child (it starts where its parent ends) leaves the parent's "
        "source bytes reusable: the change is lost on save, and == by source bytes is wrong",
    ),
    Mutant(
        "audit7-equal-sources-one-input-any-offset",
        "wirecodec/protobuf/codec.py",
        "    if start_a == start_b and (\n",
        "    if (\n",
        _T_MESSAGES,
        "two messages of one input with payloads of one length are equal: graph.node[0] == graph.node[1]",
    ),
    Mutant(
        "audit7-validator-packed-enum-any-known",
        "wirecodec/protobuf/gen/validate.py",
        'f"elif not all(_to_i32(x) in {valid} for x in _rpv(buf, pos, p2, None)):\\n    nc = 1"',
        'f"elif not any(_to_i32(x) in {valid} for x in _rpv(buf, pos, p2, None)):\\n    nc = 1"',
        _T_MESSAGES,
        "a waiting packed enum run with one value its enum lacks is called canonical when another is known",
    ),
)

# The tests written for this audit's survivors (after the before-run): each runs first in its
# mutant's selection (with -x a kill stops there), the area's older tests after it.
_ML_EDGES = "tests/differential/test_reference_ml_boundaries_and_defaults.py"
_KILLERS: dict[str, str] = {
    "audit7-label-encoder-nan-key-unmatched": _ML_EDGES,
    "audit7-binarizer-at-threshold-is-one": _ML_EDGES,
    "audit7-array-feature-extractor-vector-not-a-row": _ML_EDGES,
    "audit7-cast-map-dense-in-insertion-order": _ML_EDGES,
    "audit7-resize-input-of-unknown-size-given": (
        "tests/differential/test_shape_inference_resize_computed_inputs.py"
    ),
    # killed before, but slowly (1 to 8 minutes, after up to 1,500 tests): a fast named killer each
    "audit7-validator-packed-enum-any-known": "tests/differential/test_packed_enum_unknown_values_vs_upb.py",
    "audit7-source-of-mark-at-the-end-outside": (
        "tests/differential/test_edit_of_an_empty_last_child_is_kept.py"
    ),
    "audit7-walk-mask-without-lists": "tests/unit/protobuf/test_walk_of_built_and_decoded_messages.py",
    "audit7-checker-function-attributes-unowned": (
        "tests/differential/test_check_attribute_references_in_functions.py"
    ),
    "audit7-make-up-constant-of-ai-onnx-not-a-weight": (
        "tests/cli/test_inspect_counts_constants_of_either_default_domain_name.py"
    ),
}

# The two fixes this audit's tests led to (not part of the audit's figure): plausible bugs of
# the lines written, each killed by the test written with the fix.
_RESIZE_INPUTS = "tests/differential/test_shape_inference_resize_computed_inputs.py"
_FIXES: tuple[Mutant, ...] = (
    Mutant(
        "audit7-fix-resize-computed-scales-read-by-its-shape",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "    if i == 2:\n        return True\n",
        "",
        (_RESIZE_INPUTS,),
        "a computed scales of shape [0] counts as not given (onnx: only an empty stored scales does)",
    ),
    Mutant(
        "audit7-fix-resize-computed-sizes-always-given",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "    if i == 2:\n        return True\n",
        "    if i >= 2:\n        return True\n",
        (_RESIZE_INPUTS,),
        "a computed sizes of shape [0] counts as given (onnx reads sizes by its shape)",
    ),
    Mutant(
        "audit7-fix-label-encoder-nan-dropped-at-4",
        _ML + "encoders.py",
        '    if ctx.version < 4 and key_type.kind == "f":\n',
        '    if ctx.version <= 4 and key_type.kind == "f":\n',
        (_ML_EDGES,),
        "LabelEncoder-4 never matches a NaN key (its spec: any NaN input matches it)",
    ),
    Mutant(
        "audit7-fix-label-encoder-nan-kept-before-4",
        _ML + "encoders.py",
        '        table.pop("nan", None)\n',
        "        pass\n",
        (_ML_EDGES,),
        "LabelEncoder-2 and -3 match a NaN key (onnx and onnxruntime: never)",
    ),
    Mutant(
        "audit7-fix-label-encoder-string-nan-dropped",
        _ML + "encoders.py",
        '    if ctx.version < 4 and key_type.kind == "f":\n',
        "    if ctx.version < 4:\n",
        (_ML_EDGES,),
        "LabelEncoder-2's string key 'nan' is dropped with the float NaN keys",
    ),
)

MUTANTS: tuple[Mutant, ...] = (
    *(
        dataclasses.replace(m, tests=(_KILLERS[m.name], *m.tests)) if m.name in _KILLERS else m
        for m in _BEFORE
    ),
    *_FIXES,
)
