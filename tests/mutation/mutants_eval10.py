"""Mutants of branch eval10 (issue 43): the edges onnx's evaluator tests found, each with the
test of tests/differential/test_reference_onnx_suite_edges.py that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_EDGES = "tests/differential/test_reference_onnx_suite_edges.py"
_FIRST_BUILD = "tests/unit/reference/test_first_build.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "eval10-conv-transpose-bias-whole",
        "wirecodec/reference/ops/conv.py",
        "y = y + b.reshape(-1)[: y.shape[1]].reshape((1, -1) + (1,) * nd)",
        "y = y + b.reshape((1, -1) + (1,) * nd)",
        (f"{_EDGES}::test_conv_transpose_bias_longer_than_the_channels_gives_its_first_m",),
        "a ConvTranspose bias longer than the output channels fails to broadcast (onnx keeps the first M)",
    ),
    Mutant(
        "eval10-conv-transpose-bias-last-m",
        "wirecodec/reference/ops/conv.py",
        "y = y + b.reshape(-1)[: y.shape[1]].reshape((1, -1) + (1,) * nd)",
        "y = y + b.reshape(-1)[-y.shape[1] :].reshape((1, -1) + (1,) * nd)",
        (f"{_EDGES}::test_conv_transpose_bias_longer_than_the_channels_gives_its_first_m",),
        "a longer ConvTranspose bias gives its last M values, not its first",
    ),
    Mutant(
        "eval10-zero-iteration-scan-guesses",
        "wirecodec/reference/ops/control.py",
        "    if steps == 0 and n_out:\n",
        "    if False:\n",
        (f"{_EDGES}::test_scan_of_zero_iterations_with_scan_outputs_is_refused_as_by_onnx_and_onnxruntime",),
        "a Scan of zero iterations gives scan outputs of a guessed shape instead of refusing",
    ),
    Mutant(
        "eval10-zero-iteration-scan-value-error",
        "wirecodec/reference/_errors.py",
        "class UndefinedOutputError(EvaluationError, RuntimeError):",
        "class UndefinedOutputError(EvaluationError):",
        (f"{_EDGES}::test_scan_of_zero_iterations_with_scan_outputs_is_refused_as_by_onnx_and_onnxruntime",),
        "the refusal of a zero-iteration Scan is not a RuntimeError, as onnx's evaluator raises",
    ),
    Mutant(
        "eval10-cast-nan-as-onnxruntime",
        "wirecodec/reference/ops/misc.py",
        "    return str(v)\n\n\ndef cast(",
        '    return "NaN" if np.isnan(v) else str(v)\n\n\ndef cast(',
        (f"{_EDGES}::test_cast_float_to_string_writes_numpys_text_as_onnx",),
        "Cast of a float NaN to string writes 'NaN' (onnxruntime's) where onnx's evaluator writes 'nan'",
    ),
    Mutant(
        "eval10-tree-probit-in-float32",
        "wirecodec/reference/ops/ml/trees.py",
        'wide = scores.astype(np.float64) if transform == "PROBIT" else scores',
        "wide = scores",
        (f"{_EDGES}::test_tree_classifier_probit_is_onnxs_to_the_bit",),
        "a tree classifier's PROBIT computed in float32, where v * v - log / 0.147 cancels",
    ),
    Mutant(
        "eval10-dict-vectorizer-one-map-2d",
        "wirecodec/reference/ops/ml/maps.py",
        "    return out[0] if isinstance(x, dict) else out",
        "    return out",
        (f"{_EDGES}::test_dict_vectorizer_of_one_map_is_one_row_as_onnx",),
        "DictVectorizer of one map gives [1, V] (onnxruntime's) where the schema says 1-D",
    ),
    Mutant(
        "eval10-dict-vectorizer-0d-values-as-float",
        "wirecodec/reference/ops/ml/maps.py",
        "        if isinstance(value, (np.generic, np.ndarray)):",
        "        if isinstance(value, np.generic):",
        (f"{_EDGES}::test_dict_vectorizer_of_one_map_is_one_row_as_onnx",),
        "a map of 0-d int64 arrays is vectorized as float32",
    ),
    Mutant(
        "eval10-causal-conv-not-rounded-before-silu",
        "wirecodec/reference/ops/conv.py",
        "    y = y.astype(x.dtype).astype(np.float32)\n",
        "",
        (f"{_EDGES}::test_causal_conv_with_state_body_is_its_implementation_and_onnxs",),
        "CausalConvWithState applies SiLU to the float32 convolution, not to it rounded to float16",
    ),
    Mutant(
        "eval10-causal-conv-body-group-1",
        "wirecodec/reference/_bodies.py",
        'nodes.append(helper.make_node("Conv", conv_inputs, ["ConvOut"], group=channels))',
        'nodes.append(helper.make_node("Conv", conv_inputs, ["ConvOut"]))',
        (f"{_EDGES}::test_causal_conv_with_state_body_is_its_implementation_and_onnxs",),
        "CausalConvWithState's body convolves every channel with every kernel (not depthwise)",
    ),
    Mutant(
        "eval10-causal-conv-body-one-channel-count",
        "wirecodec/reference/_evaluator.py",
        "impl = compiled.get((types, sizes))",
        "impl = next(iter(compiled.values()), None)",
        (f"{_EDGES}::test_causal_conv_with_state_body_is_built_per_channel_count",),
        "the body built for the first channel count runs inputs of another",
    ),
    Mutant(
        "eval10-attributes-told-by-inputs-bit",
        "wirecodec/reference/_evaluator.py",
        'return bool(node._has & schema.bit["attribute"])',
        'return bool(node._has & schema.bit["input"])',
        (_FIRST_BUILD,),
        "a decoded node's attributes are looked for only when it has inputs: a Constant loses its value",
    ),
    Mutant(
        "eval10-value-mask-drops-first-field",
        "wirecodec/reference/_values.py",
        "    for name in fields:\n        mask |= schema.bit[name]",
        "    for name in fields[1:]:\n        mask |= schema.bit[name]",
        ("tests/unit/reference/test_two_value_fields.py",),
        "a tensor holding raw_data and float_data (or a float tensor with raw_data) takes a quick path",
    ),
)
