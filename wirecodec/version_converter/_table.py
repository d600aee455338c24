"""Which operator needs which adapter at which opset step of the default domain.

The facts are onnx's (its converter's list of adapters, onnx 1.23); the form is ours: a
step ``(from, to)`` maps operator names to an adapter name of :mod:`._adapters`, with
its arguments. An operator whose schema changes at a step and has no entry here cannot
be converted across it (onnx refuses the same).
"""

from __future__ import annotations

import functools
from typing import Final

__all__ = ["Entry", "TYPE_SETS", "adapters"]

# An adapter name and its arguments (a type set name, an attribute name and value, ...).
Entry = tuple[str, tuple[object, ...]]

# Element types an older (or newer) version of an operator does not take, by name.
TYPE_SETS: Final[dict[str, tuple[str, ...]]] = {
    "concat_4": ("INT32", "INT64", "UINT32", "UINT64", "UINT8", "UINT16", "INT8", "INT16", "STRING", "BOOL"),
    "broadcast_5": ("INT32", "INT64", "UINT32", "UINT64"),
    "ints": ("UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "INT32", "INT64"),
    "neg_5": ("INT32", "INT8", "UINT16", "INT64"),
    "equal_10": ("UINT8", "UINT16", "UINT32", "UINT64", "INT8", "INT16", "FLOAT16", "FLOAT", "DOUBLE"),
    "int8": ("UINT8", "INT8"),
    "bfloat16": ("BFLOAT16",),
    "float8": ("FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ"),
    "string": ("STRING",),
    "isinf_10": ("FLOAT16", "BFLOAT16", "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ"),
    "bool": ("BOOL",),
    "qdq_20": ("BFLOAT16", "FLOAT16", "UINT4", "INT4"),
    "int4": ("UINT4", "INT4"),
    "float8_int4": ("FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ", "UINT4", "INT4"),
    "float4": ("FLOAT4E2M1",),
    "float8e8m0": ("FLOAT8E8M0",),
    "int2": ("UINT2", "INT2"),
    "float16": ("FLOAT16", "BFLOAT16"),
    "wide_ints": ("UINT32", "UINT64", "INT32", "INT64"),
    "signed": ("INT8", "INT16", "INT32", "INT64"),
    "celu_27": ("FLOAT16", "BFLOAT16", "DOUBLE"),
    "mod_floats": (
        "FLOAT16",
        "FLOAT",
        "DOUBLE",
        "BFLOAT16",
        "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ",
        "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ",
        "FLOAT4E2M1",
        "FLOAT8E8M0",
    ),
    "optional_27": (
        "BFLOAT16",
        "FLOAT8E4M3FN",
        "FLOAT8E4M3FNUZ",
        "FLOAT8E5M2",
        "FLOAT8E5M2FNUZ",
        "UINT4",
        "INT4",
        "FLOAT4E2M1",
        "FLOAT8E8M0",
        "UINT2",
        "INT2",
        "FLOAT6E2M3",
        "FLOAT6E3M2",
    ),
    "float6": ("FLOAT6E2M3", "FLOAT6E3M2"),
    "q_dq_20": ("UINT16", "INT16", "UINT4", "INT4"),
}

# Operators whose new version changes nothing a model holds, by step.
_SAME: Final[dict[tuple[int, int], str]] = {
    (5, 6): "Gemm",
    (6, 5): "Gemm Relu Sum Dropout",
    (6, 7): "AveragePool PRelu",
    (7, 6): "PRelu",
    (7, 8): "Max Min Mean Sum MaxPool",
    (8, 9): "Flatten Constant MatMul Gemm PRelu Greater Less Cast",
    (9, 8): "BatchNormalization",
    (9, 10): "AveragePool MaxPool Dropout",
    (10, 9): "Dropout",
    (10, 11): "ArgMax ArgMin AveragePool Concat Constant Compress Conv ConvTranspose DepthToSpace Equal "
    "Flatten "
    "Gather Gemm Hardmax If LogSoftmax Loop LpPool MaxPool MaxUnpool NonMaxSuppression OneHot ReduceL1 "
    "ReduceL2 "
    "ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum ReduceSumSquare Scan "
    "Softmax Slice Split Squeeze TopK Unsqueeze",
    (11, 10): "ArgMax ArgMin AveragePool Concat Constant Conv ConvTranspose Flatten LogSoftmax MaxPool "
    "ReduceL1 "
    "ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSum "
    "ReduceSumSquare "
    "Softmax Unsqueeze",
    (11, 12): "ArgMax ArgMin BatchNormalization Constant Clip GatherND Min Max MaxPool Pow ReduceMax "
    "ReduceMin",
    (12, 11): "BatchNormalization",
    (12, 13): "Abs Add ArgMin ArgMax Cast Ceil Clip Concat Constant DepthToSpace DequantizeLinear Div "
    "Dropout "
    "Equal Erf Exp Expand Flatten Floor Gather GatherElements GatherND Gemm Greater Identity If "
    "IsNaN Less "
    "Log Loop LRN NegativeLogLikelihoodLoss MatMul Max Mean MeanVarianceNormalization Min Mod Mul Neg "
    "NonZero Pow "
    "Pad QuantizeLinear Reciprocal ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMean ReduceMax "
    "ReduceMin "
    "ReduceProd ReduceSumSquare Relu Reshape Resize ScatterElements ScatterND Shape Sigmoid Sign Size Slice "
    "SoftmaxCrossEntropyLoss SpaceToDepth Sqrt Sub Sum Tanh Tile Transpose",
    (13, 12): "Constant",
    (13, 14): "Add CumSum Div Identity Mul Relu Reshape Sub",
    (14, 15): "BatchNormalization Pow Shape",
    (15, 16): "ScatterElements ScatterND Identity Loop If Where Scan LessOrEqual GreaterOrEqual "
    "LeakyRelu PRelu",
    (17, 18): "Pad Resize OptionalGetElement OptionalHasElement ScatterND ScatterElements",
    (18, 19): "Equal AveragePool Cast CastLike Constant DequantizeLinear Identity If Loop Pad QuantizeLinear "
    "Reshape Resize Scan Shape Size",
    (19, 18): "AveragePool Pad Resize",
    (19, 20): "ConstantOfShape IsInf IsNaN ReduceMax ReduceMin",
    (20, 21): "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad "
    "QLinearMatMul "
    "QuantizeLinear Reshape Scan Shape Size Squeeze Transpose Unsqueeze",
    (21, 22): "EyeLike RandomUniform RandomNormal RandomUniformLike RandomNormalLike Multinomial Bernoulli "
    "ThresholdedRelu Selu Elu Mish HardSigmoid HardSwish Softsign Softplus Sin Cos Tan Asin Acos Atan "
    "Sinh Cosh "
    "Asinh Acosh Atanh Round Det NegativeLogLikelihoodLoss AveragePool MaxPool MaxUnpool LpPool "
    "MaxRoiPool Conv "
    "ConvTranspose DeformConv GlobalAveragePool GlobalMaxPool GlobalLpPool InstanceNormalization "
    "LpNormalization "
    "Dropout RoiAlign RNN GRU LSTM GridSample",
    (22, 23): "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If Loop Pad "
    "QuantizeLinear "
    "Reshape Scan Shape Size Squeeze Transpose Unsqueeze",
    (23, 24): "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If "
    "Loop Pad "
    "QuantizeLinear Reshape Scan Shape Size Squeeze Transpose Unsqueeze TopK SplitToSequence",
    (24, 25): "Attention Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity "
    "Reshape Shape "
    "Size If Loop Scan Pad Squeeze Transpose Unsqueeze QuantizeLinear",
    (26, 27): "Range",
    (27, 28): "BitShift Celu Optional OptionalHasElement OptionalGetElement Einsum Mod DepthToSpace "
    "SpaceToDepth "
    "Compress OneHot ReverseSequence Unique Cast QuantizeLinear DequantizeLinear",
    (28, 27): "DepthToSpace ReduceLogSum ReduceLogSumExp",
}

# Operators whose older version takes fewer element types: a step down checks them, by step and type set.
_RESTRICTED: Final[dict[tuple[int, int, str], str]] = {
    (4, 3, "concat_4"): "Concat",
    (6, 5, "broadcast_5"): "Add Mul Sub Div",
    (6, 5, "ints"): "Abs",
    (6, 5, "neg_5"): "Neg",
    (11, 10, "equal_10"): "Equal",
    (12, 11, "ints"): "Clip Min Max",
    (12, 11, "int8"): "MaxPool ReduceMax ReduceMin",
    (16, 15, "bfloat16"): "Where Scan LessOrEqual GreaterOrEqual LeakyRelu PRelu",
    (19, 18, "float8"): "Constant Cast CastLike DequantizeLinear QuantizeLinear Identity If Loop Reshape "
    "Scan Shape Size",
    (19, 18, "string"): "Equal",
    (20, 19, "float8"): "IsNaN",
    (20, 19, "isinf_10"): "IsInf",
    (20, 19, "bool"): "ReduceMax ReduceMin",
    (21, 20, "int4"): "Cast CastLike Constant ConstantOfShape Identity If Loop Reshape Scan Shape Size "
    "Transpose",
    (21, 20, "float8_int4"): "Flatten Pad Squeeze Unsqueeze",
    (21, 20, "qdq_20"): "QLinearMatMul",
    (22, 21, "bfloat16"): "EyeLike AveragePool MaxPool RandomUniform RandomNormal RandomNormalLike "
    "RandomUniformLike "
    "Multinomial Bernoulli ThresholdedRelu Selu Elu Mish HardSigmoid HardSwish Softsign Softplus Sin Cos "
    "Tan Asin "
    "Acos Atan Sinh Cosh Asinh Acosh Atanh Round Det NegativeLogLikelihoodLoss MaxUnpool LpPool "
    "MaxRoiPool Conv "
    "ConvTranspose DeformConv GlobalAveragePool GlobalLpPool InstanceNormalization LpNormalization "
    "Dropout RoiAlign "
    "RNN GRU LSTM GridSample",
    (23, 22, "float4"): "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If "
    "Loop Pad "
    "QuantizeLinear Reshape Scan Shape Size Squeeze Transpose Unsqueeze",
    (24, 23, "float8e8m0"): "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity If "
    "Loop Pad "
    "QuantizeLinear Reshape Scan Shape Size Squeeze Transpose Unsqueeze",
    (24, 23, "bfloat16"): "TopK SplitToSequence",
    (25, 24, "int2"): "Cast CastLike Constant ConstantOfShape DequantizeLinear Flatten Identity Reshape "
    "Shape Size If "
    "Loop Scan Pad Squeeze Transpose Unsqueeze QuantizeLinear",
    (28, 27, "signed"): "BitShift",
    (28, 27, "celu_27"): "Celu",
    (28, 27, "bfloat16"): "Einsum Compress OneHot ReverseSequence Unique",
    (28, 27, "float6"): "DequantizeLinear",
}

_CONSUMED_INPUTS_OPS: Final = (
    "Add Mul Relu BatchNormalization Sum Dropout Abs Ceil Clip Div Elu Exp Floor HardSigmoid "
    "InstanceNormalization "
    "LeakyRelu Log Max Mean Min Neg PRelu Reciprocal Selu Sigmoid Sqrt Sub Tanh"
)
_REDUCE_18: Final = (
    "ReduceL1 ReduceL2 ReduceLogSum ReduceLogSumExp ReduceMax ReduceMean ReduceMin ReduceProd ReduceSumSquare"
)

# Adapters that change a node: (op, from, to) -> (adapter name, arguments).
_SPECIAL: Final[tuple[tuple[str, int, int, str, tuple[object, ...]], ...]] = (
    ("Concat", 3, 4, "set_if_absent", ("axis", 1)),
    ("Reshape", 4, 5, "attribute_to_input", ("shape", "ints", True, "consumed_inputs")),
    ("Reshape", 5, 4, "input_to_attribute", ("shape",)),
    *((op, 5, 6, "remove", ("consumed_inputs", None)) for op in _CONSUMED_INPUTS_OPS.split()),
    ("BatchNormalization", 6, 5, "set", ("consumed_inputs", [0, 0])),
    *((op, 6, 7, "broadcast_forward", ()) for op in ["Add", "Div", "Mul", "Pow", "Sub"]),
    ("Gemm", 6, 7, "gemm_6_7", ()),
    ("BatchNormalization", 6, 7, "remove_unless", ("is_test", 0)),
    ("Dropout", 6, 7, "remove_unless", ("is_test", 0)),
    ("Upsample", 6, 7, "upsample_6_7", ()),
    *((op, 7, 6, "broadcast_backward", ()) for op in ["Add", "Div", "Mul", "Pow", "Sub"]),
    ("BatchNormalization", 7, 6, "set", ("is_test", 1)),
    ("Dropout", 7, 6, "set", ("is_test", 1)),
    ("Gemm", 7, 6, "gemm_6_7", ()),
    ("AveragePool", 7, 6, "remove", ("count_include_pad", 0)),
    *((op, 8, 7, "broadcast_backward", ("no_flag",)) for op in ["Max", "Min", "Mean"]),
    ("Sum", 8, 7, "sum_8_7", ()),
    ("MaxPool", 8, 7, "maxpool_8_7", ()),
    ("BatchNormalization", 8, 9, "remove", ("spatial", 1)),
    ("Scan", 8, 9, "scan_8_9", ()),
    ("Upsample", 8, 9, "upsample_8_9", ()),
    *(
        (op, 9, 8, "floats_only_8", ())
        for op in ["Flatten", "Constant", "MatMul", "Gemm", "PRelu", "Greater", "Less"]
    ),
    ("Cast", 9, 8, "restrict_and_attribute", ("string", "to")),
    ("Scan", 9, 8, "scan_9_8", ()),
    ("Upsample", 9, 8, "input_to_attribute", ("scales", "floats")),
    ("Slice", 9, 10, "attributes_to_inputs", (("starts", True), ("ends", True), ("axes", False))),
    ("TopK", 9, 10, "attribute_to_input", ("k", "i", True)),
    ("Upsample", 9, 10, "upsample_9_10", ()),
    ("Clip", 10, 11, "clip_10_11", ()),
    ("Pad", 10, 11, "pad_10_11", ()),
    ("Resize", 10, 11, "resize_10_11", ()),
    ("Scatter", 10, 11, "scatter_10_11", ()),
    ("Dropout", 11, 12, "dropout_11_12", ()),
    ("ArgMax", 12, 11, "remove", ("select_last_index", 0)),
    ("ArgMin", 12, 11, "remove", ("select_last_index", 0)),
    *(
        (op, 12, 13, "attribute_to_input", ("axes", "ints", False))
        for op in ["ReduceSum", "Squeeze", "Unsqueeze"]
    ),
    ("Split", 12, 13, "attribute_to_input", ("split", "ints", False)),
    ("Softmax", 12, 13, "softmax", ()),
    ("LogSoftmax", 12, 13, "softmax", ()),
    # onnx keeps any Hardmax axis (a non-last one then means another thing): rewritten as Softmax
    ("Hardmax", 12, 13, "softmax", ("keep_last",)),
    *((op, 13, 12, "input_to_attribute", ("axes",)) for op in ["ReduceSum", "Squeeze", "Unsqueeze"]),
    ("Split", 13, 12, "input_to_attribute", ("split",)),
    ("Softmax", 13, 12, "softmax", ()),
    ("LogSoftmax", 13, 12, "softmax", ()),
    # onnx has no Hardmax 13 -> 12 adapter: the last axis is the same thing, another one is
    # transposed to the end and back, an unknown rank off the last axis is refused
    ("Hardmax", 13, 12, "softmax", ()),
    *((op, 13, 14, "set", ("layout", 0)) for op in ["GRU", "LSTM", "RNN"]),
    ("BatchNormalization", 13, 14, "at_most_outputs", (3,)),
    *((op, 14, 13, "remove", ("layout", 0)) for op in ["GRU", "LSTM", "RNN"]),
    ("RoiAlign", 15, 16, "set", ("coordinate_transformation_mode", b"output_half_pixel")),
    ("ScatterElements", 16, 15, "restrict_then_remove", ("bfloat16", "reduction", b"none")),
    ("ScatterND", 16, 15, "restrict_then_remove", ("bfloat16", "reduction", b"none")),
    ("Split", 17, 18, "split_17_18", ()),
    ("LpPool", 17, 18, "set", ("ceil_mode", 0)),
    *((op, 17, 18, "attribute_to_input", ("axes", "ints", False)) for op in _REDUCE_18.split()),
    ("OptionalGetElement", 18, 17, "optional_input_18_17", ()),
    ("OptionalHasElement", 18, 17, "optional_input_18_17", ()),
    *((op, 18, 17, "input_to_attribute", ("axes",)) for op in _REDUCE_18.split()),
    ("Resize", 18, 17, "resize_18_17", ()),
    ("ScatterElements", 18, 17, "remove_values", ("reduction", b"max", b"min")),
    ("ScatterND", 18, 17, "remove_values", ("reduction", b"max", b"min")),
    ("DFT", 19, 20, "axis_to_input", (2, 1)),
    ("GridSample", 19, 20, "rename_value", ("mode", (b"bilinear", b"linear"), (b"bicubic", b"cubic"))),
    ("DFT", 20, 19, "axis_to_attribute", (2, -2)),
    ("GroupNormalization", 20, 21, "group_normalization_20_21", ()),
    ("DequantizeLinear", 21, 20, "quantize_21_20", ("q_dq_20",)),
    ("QuantizeLinear", 21, 20, "quantize_21_20", ("q_dq_20",)),
    ("Attention", 24, 23, "at_most_inputs", (6, "nonpad_kv_seqlen")),
    (
        "Attention",
        25,
        24,
        "remove_each",
        (
            ("left_window_size", -1, "Windowed attention came in opset 25"),
            ("right_window_size", -1, "Windowed attention came in opset 25"),
        ),
    ),
    ("Range", 27, 26, "range_27_26", ("float16",)),
    ("ReduceLogSum", 27, 28, "restrict_first_input", ("wide_ints",)),
    ("ReduceLogSumExp", 27, 28, "restrict_first_input", ("wide_ints",)),
    ("Mod", 28, 27, "mod_28_27", ("mod_floats",)),
    ("Optional", 28, 27, "restrict", ("optional_27",)),
    ("OptionalHasElement", 28, 27, "restrict", ("optional_27",)),
    ("OptionalGetElement", 28, 27, "restrict", ("optional_27",)),
    ("SpaceToDepth", 28, 27, "remove", ("mode", b"DCR")),
    ("Cast", 28, 27, "restrict_and_attribute", ("float6", "to")),
    ("QuantizeLinear", 28, 27, "restrict_and_attribute", ("float6", "output_dtype")),
)


@functools.cache
def adapters() -> dict[tuple[str, int, int], Entry]:
    """Every adapter, by (operator, from, to), built on first use."""
    table: dict[tuple[str, int, int], Entry] = {}
    for (start, end), ops in _SAME.items():
        for op in ops.split():
            table[(op, start, end)] = ("same", ())
    for (start, end, types), ops in _RESTRICTED.items():
        for op in ops.split():
            table[(op, start, end)] = ("restrict", (types,))
    for op, start, end, name, args in _SPECIAL:
        table[(op, start, end)] = (name, args)
    return table
