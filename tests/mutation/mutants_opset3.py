"""Mutants of the opset converter's third round (issue 44: Softmax 12 -> 13 rewritten,
Pad 10 -> 11, refusals as onnx's) and of the evaluator's 0-d outputs (issue 43)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_ADAPTERS = "tests/differential/test_version_converter_adapters.py"
_AS_ONNX = _ADAPTERS + "::test_as_onnx_converts_or_refuses"
_SOFTMAX_RUN = _ADAPTERS + "::test_softmax_12_13_computes_what_opset_12_did"
_PAD_RUN = _ADAPTERS + "::test_pad_10_11_computes_what_opset_10_did"
_REFUSALS = "tests/unit/version_converter/test_refusals.py"
_ZERO_D = "tests/differential/test_reference_zero_d.py"
_CONVERTER = "wirecodec/version_converter/_adapters.py"
_GN_RUN = _ADAPTERS + "::test_group_normalization_20_21_computes_what_opset_18_did"
_SOFTMAX_DOWN = _ADAPTERS + "::test_softmax_13_12_computes_what_opset_13_did"
_UPSAMPLE_6_7 = _ADAPTERS + "::test_upsample_6_7_nodes_as_onnx_writes_them"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "opset3-softmax-unknown-rank-taken-as-last-axis",
        _CONVERTER,
        "        if axis == rank - 1:\n",
        "        if axis == rank - 1 or rank == 0:\n",
        (_AS_ONNX, _SOFTMAX_RUN),
        "a Softmax whose input rank is unknown keeps its axis: opset 13 then normalises one axis, "
        "not the flattened tail (PaddleOCR's models, silently wrong)",
    ),
    Mutant(
        "opset3-softmax-reshape-value-not-counted",
        _CONVERTER,
        "    scope.new_value_name()  # the Reshape's own value, renamed to the output (onnx counts it)\n",
        "",
        (_AS_ONNX,),
        "the Reshape's value is not counted: a later adapter's new value is named one off onnx's",
    ),
    Mutant(
        "opset3-hardmax-axis-kept-as-onnx-keeps-it",
        "wirecodec/version_converter/_table.py",
        '    ("Hardmax", 12, 13, "softmax", ("keep_last",)),',
        '    ("Hardmax", 12, 13, "same", ()),',
        (_SOFTMAX_RUN,),
        "Hardmax off the last axis keeps its axis at opset 13 (onnx's way): it then picks along one "
        "axis, not the flattened tail",
    ),
    Mutant(
        "opset3-pad-value-only-with-an-explicit-mode",
        _CONVERTER,
        '    if mode is None or mode.s == b"constant":',
        '    if mode is not None and mode.s == b"constant":',
        (_AS_ONNX,),
        "Pad without a mode attribute (constant by default) gets no constant value input",
    ),
    Mutant(
        "opset3-pad-value-always-float",
        _CONVERTER,
        "        return TensorProto(data_type=element, double_data=[value])",
        "        return float_constant(value)",
        (_PAD_RUN,),
        "Pad's constant value is a float for double data (as onnx writes it): opset 11 refuses the model",
    ),
    Mutant(
        "opset3-undefined-graph-output-accepted",
        "wirecodec/version_converter/_convert.py",
        "    for at, info in enumerate(graph.output):\n        if info.name not in defined:",
        "    for at, info in enumerate(graph.output):\n        if info.name not in defined and not at:",
        (_REFUSALS,),
        "a graph output nothing defines is let through (past the first), as a broken model",
    ),
    Mutant(
        "opset3-bodies-see-no-outer-names",
        "wirecodec/version_converter/_convert.py",
        "                seen = frozenset(defined) if seen is None else seen\n"
        "                _check_defined(attribute.g,",
        "                seen = frozenset(info.name for info in graph.input) if seen is None else seen\n"
        "                _check_defined(attribute.g,",
        (_REFUSALS,),
        "an If/Loop body reading a value made by an earlier node is refused as undefined",
    ),
    Mutant(
        "opset3-raw-data-shorter-than-dims-accepted",
        _CONVERTER,
        '    if len(values) != count or (tensor.HasField("raw_data") and len(raw) != 8 * count):',
        "    if len(values) > count:",
        (_REFUSALS,),
        "a constant whose raw_data holds fewer values than its dims say converts to a shorter split",
    ),
    Mutant(
        "opset3-optional-element-type-not-read",
        "wirecodec/version_converter/_graph.py",
        '        elif kind.HasField("optional_type") and kind.optional_type.HasField("elem_type"):',
        '        elif kind.HasField("optional_type") and not kind.optional_type.HasField("elem_type"):',
        (_REFUSALS,),
        "a type inside an optional is not checked going down: bfloat16 reaches OptionalHasElement-18",
    ),
    Mutant(
        "opset3-reshape-keeps-consumed-inputs",
        "wirecodec/version_converter/_table.py",
        '("shape", "ints", True, "consumed_inputs")',
        '("shape", "ints", True)',
        (_REFUSALS,),
        "Reshape 4 -> 5 keeps consumed_inputs, which Reshape-5 does not have (the checker refuses it)",
    ),
    Mutant(
        "opset3-resize-keeps-antialias-0",
        _CONVERTER,
        '    index = remove(scope, index, step, ("antialias", 0, "antialias=1 came in opset 18"))\n',
        "",
        (_AS_ONNX,),
        "Resize going down to 17 keeps antialias=0, an attribute Resize-17 does not have",
    ),
    Mutant(
        "opset3-quantize-output-dtype-without-zero-point",
        _CONVERTER,
        "        if output_dtype.i != TensorProto.UINT8 and (len(node.input) < 3 or not node.input[2]):",
        "        if output_dtype.i == TensorProto.UINT8 and (len(node.input) < 3 or not node.input[2]):",
        (_AS_ONNX,),
        "QuantizeLinear going down to 20 drops output_dtype=int8 without a zero point: it then gives uint8",
    ),
    Mutant(
        "opset3-group-norm-scale-not-repeated",
        _CONVERTER,
        "        repeated = add(\"Expand\", [repeated, expand_shape])",
        "        repeated = add(\"Identity\", [repeated])",
        (_GN_RUN,),
        "GroupNormalization 20 -> 21 keeps one scale per group: GN-21 reads it as one per channel",
    ),
    Mutant(
        "opset3-upsample-scales-height-width-swapped",
        _CONVERTER,
        '    _set_attribute(node, "scales", [1.0, 1.0, float(height.f), float(width.f)])',
        '    _set_attribute(node, "scales", [1.0, 1.0, float(width.f), float(height.f)])',
        (_UPSAMPLE_6_7,),
        "Upsample 6 -> 7 scales the height by the width's factor and the width by the height's",
    ),
    Mutant(
        "opset3-softmax-13-12-transpose-back-with-same-perm",
        _CONVERTER,
        '    _set_attribute(after, "perm", back)',
        '    _set_attribute(after, "perm", perm)',
        (_SOFTMAX_DOWN,),
        "Softmax 13 -> 12 transposes back with the forward permutation: axes end in the wrong order",
    ),
    Mutant(
        "opset3-floats-only-8-checks-nothing",
        _CONVERTER,
        "        if element not in _FLOATS_8:",
        "        if element not in _FLOATS_8 and element == 0:",
        ("tests/unit/version_converter/test_refusals.py",),
        "integer data going down to 8 is kept as it is, where opset 8's operator takes floats only",
    ),
    Mutant(
        "opset3-broadcast-flag-never-set",
        _CONVERTER,
        "    if axis > 0 or second != first[axis:]:",
        "    if axis > 0 and second != first[axis:]:",
        (_AS_ONNX,),
        "Mul going down to 6 with a [1, 5] second input gets no broadcast flag: opset 6 refuses the shapes",
    ),
    Mutant(
        "opset3-sum-7-broadcast-let-through",
        _CONVERTER,
        "    if any(shape != shapes[0] for shape in shapes[1:]):",
        "    if any(len(shape) != len(shapes[0]) for shape in shapes[1:]):",
        ("tests/unit/version_converter/test_convert.py",),
        "Sum going down to 7 keeps inputs of different shapes of one rank: Sum-6 does not broadcast",
    ),
    Mutant(
        "opset3-maxpool-indices-kept",
        _CONVERTER,
        "    if len(node.output) > 1 and node.output[1]:",
        "    if len(node.output) > 2 and node.output[1]:",
        (_AS_ONNX,),
        "MaxPool going down to 7 keeps its Indices output, which MaxPool-7 does not have",
    ),
    Mutant(
        "opset3-optional-input-any-type",
        _CONVERTER,
        '    if declared is None or not declared.HasField("optional_type"):',
        "    if declared is None:",
        (_AS_ONNX,),
        "OptionalHasElement going down to 17 keeps a tensor input, which version 15 does not take",
    ),
    Mutant(
        "opset3-gemm-flag-set-when-not-needed",
        _CONVERTER,
        "    elif needed:\n",
        "    elif not needed:\n",
        (_AS_ONNX,),
        "Gemm going down to 6 gets the broadcast flag where C has the full (M, N) shape, not where it "
        "broadcasts",
    ),
    Mutant(
        "opset3-unsqueeze-pads-to-the-first-rank",
        _CONVERTER,
        '            _set_attribute(unsqueeze, "axes", [len(second) + i for i in range(trailing)])',
        '            _set_attribute(unsqueeze, "axes", [len(second) + i for i in range(len(first) - len(second))])',  # noqa: E501
        (_ADAPTERS + "::test_broadcast_from_an_axis_6_7_unsqueezes_the_second_input",),
        "a broadcast from axis 1 is padded to the first input's rank (onnx's way): the second input "
        "misaligns",
    ),
    Mutant(
        "opset3-evaluator-0d-floats-only",
        "wirecodec/reference/_evaluator.py",
        "                    if isinstance(value, np.generic):",
        "                    if isinstance(value, np.floating):",
        (_ZERO_D,),
        "only a float scalar becomes a 0-d array: IsNaN or QuantizeLinear on 0-d data give numpy scalars",
    ),
)
