"""The operator table: (domain, op_type) -> implementations by the version they start at.

An implementation is a function ``impl(ctx, *inputs)`` returning one value or a tuple of
values; ``ctx`` (:class:`~wirecodec.reference._context.NodeContext`) holds the node's
attributes (schema defaults filled in), the opset version in effect, and runs subgraphs.
A family registers its operators when it is imported: :func:`lookup` imports the one
that holds an operator (:func:`load_all` imports all of them), never at ``import wirecodec``.
"""

from __future__ import annotations

import bisect
import functools
import importlib
from collections.abc import Callable
from typing import Any

Impl = Callable[..., Any]

_TABLE: dict[tuple[str, str], list[tuple[int, Impl]]] = {}
_FAMILIES = (
    "elementwise",
    "math",
    "reductions",
    "shape",
    "nn",
    "conv",
    "pool",
    "control",
    "sequences",
    "quantize",
    "ml.encoders",
    "ml.linear",
    "ml.svm",
    "ml.trees",
    "ml.preprocessing",
    "ml.maps",
    "random",
    "text",
    "misc",
    "resize",
    "rnn",
    "sampling",
    "signal",
    "training",
)
_loaded = False
_imported: set[str] = set()


def op(name: str, since: int = 1, domain: str = "") -> Callable[[Impl], Impl]:
    """Register the decorated function for ``name`` from opset ``since`` of ``domain``."""

    def register(impl: Impl) -> Impl:
        versions = _TABLE.setdefault((domain, name), [])
        versions.append((since, impl))
        versions.sort(key=lambda pair: pair[0])
        return impl

    return register


def load_all() -> None:
    """Import every operator family once (each registers its operators)."""
    global _loaded
    if _loaded:
        return
    for family in _FAMILIES:
        _import_family(family)
    _loaded = True


def _import_family(family: str) -> None:
    if family not in _imported:
        importlib.import_module(f"wirecodec.reference.ops.{family}")
        _imported.add(family)


@functools.cache
def lookup(domain: str, name: str, version: int) -> Impl | None:
    """The implementation in effect at opset ``version``, or None. Imports the one family
    that registers the operator (``_FAMILY_OPS``), or every family for an operator the
    index does not name, so a None is only ever final."""
    family = _FAMILY_OF.get((domain, name))
    if family is not None:
        _import_family(family)
    else:
        load_all()
    versions = _TABLE.get((domain, name))
    if not versions:
        return None
    at = bisect.bisect_right([v for v, _ in versions], version)
    return versions[at - 1][1] if at else versions[0][1]


# Which family registers each operator ("domain:Name" outside ai.onnx): a model imports
# only the families its operators need (importing all of them took about 0.1 s of a first
# evaluator's build). Every registration of an operator is in one family;
# tests/unit/reference/test_reference_registry.py checks this index against them.
_FAMILY_OPS: dict[str, tuple[str, ...]] = {
    "elementwise": (
        "Abs",
        "Acos",
        "Acosh",
        "Add",
        "And",
        "Asin",
        "Asinh",
        "Atan",
        "Atanh",
        "BitShift",
        "BitwiseAnd",
        "BitwiseNot",
        "BitwiseOr",
        "BitwiseXor",
        "Ceil",
        "Celu",
        "Clip",
        "Cos",
        "Cosh",
        "Div",
        "Elu",
        "Equal",
        "Erf",
        "Exp",
        "Floor",
        "Gelu",
        "Greater",
        "GreaterOrEqual",
        "HardSigmoid",
        "HardSwish",
        "IsInf",
        "IsNaN",
        "LeakyRelu",
        "Less",
        "LessOrEqual",
        "Log",
        "Max",
        "Mean",
        "Min",
        "Mish",
        "Mod",
        "Mul",
        "Neg",
        "Not",
        "Or",
        "PRelu",
        "Pow",
        "Reciprocal",
        "Relu",
        "Round",
        "Selu",
        "Shrink",
        "Sigmoid",
        "Sign",
        "Sin",
        "Sinh",
        "Softplus",
        "Softsign",
        "Sqrt",
        "Sub",
        "Sum",
        "SwiGLU",
        "Swish",
        "Tan",
        "Tanh",
        "ThresholdedRelu",
        "Where",
        "Xor",
    ),
    "math": ("Det", "Gemm", "Hardmax", "LogSoftmax", "MatMul", "MatMulInteger", "Softmax"),
    "reductions": (
        "ArgMax",
        "ArgMin",
        "CumProd",
        "CumSum",
        "ReduceL1",
        "ReduceL2",
        "ReduceLogSum",
        "ReduceLogSumExp",
        "ReduceMax",
        "ReduceMean",
        "ReduceMin",
        "ReduceProd",
        "ReduceSum",
        "ReduceSumSquare",
    ),
    "shape": (
        "CenterCropPad",
        "Compress",
        "Concat",
        "Constant",
        "ConstantOfShape",
        "DepthToSpace",
        "Einsum",
        "Expand",
        "EyeLike",
        "Flatten",
        "Gather",
        "GatherElements",
        "GatherND",
        "Identity",
        "NonZero",
        "OneHot",
        "Pad",
        "Range",
        "Reshape",
        "ReverseSequence",
        "Scatter",
        "ScatterElements",
        "ScatterND",
        "Shape",
        "Size",
        "Slice",
        "SpaceToDepth",
        "Split",
        "Squeeze",
        "TensorScatter",
        "Tile",
        "TopK",
        "Transpose",
        "Trilu",
        "Unique",
        "Unsqueeze",
    ),
    "nn": (
        "Attention",
        "BatchNormalization",
        "Dropout",
        "GlobalAveragePool",
        "GlobalLpPool",
        "GlobalMaxPool",
        "GroupNormalization",
        "InstanceNormalization",
        "LRN",
        "LayerNormalization",
        "LinearAttention",
        "LpNormalization",
        "MeanVarianceNormalization",
        "NegativeLogLikelihoodLoss",
        "RMSNormalization",
        "RotaryEmbedding",
        "SoftmaxCrossEntropyLoss",
        "ai.onnx.preview:FlexAttention",
    ),
    "conv": (
        "CausalConvWithState",
        "Conv",
        "ConvInteger",
        "ConvTranspose",
        "DeformConv",
        "experimental:Im2Col",
    ),
    "pool": ("AveragePool", "LpPool", "MaxPool", "MaxUnpool"),
    "control": ("If", "Loop", "Scan"),
    "sequences": (
        "ConcatFromSequence",
        "Optional",
        "OptionalGetElement",
        "OptionalHasElement",
        "SequenceAt",
        "SequenceConstruct",
        "SequenceEmpty",
        "SequenceErase",
        "SequenceInsert",
        "SequenceLength",
        "SequenceMap",
        "SplitToSequence",
    ),
    "quantize": (
        "DequantizeLinear",
        "DynamicQuantizeLinear",
        "QLinearConv",
        "QLinearMatMul",
        "QuantizeLinear",
    ),
    "ml.encoders": ("ai.onnx.ml:ArrayFeatureExtractor", "ai.onnx.ml:Binarizer", "ai.onnx.ml:LabelEncoder"),
    "ml.linear": ("ai.onnx.ml:LinearClassifier", "ai.onnx.ml:LinearRegressor"),
    "ml.svm": ("ai.onnx.ml:SVMClassifier", "ai.onnx.ml:SVMRegressor"),
    "ml.trees": (
        "ai.onnx.ml:TreeEnsemble",
        "ai.onnx.ml:TreeEnsembleClassifier",
        "ai.onnx.ml:TreeEnsembleRegressor",
    ),
    "ml.preprocessing": (
        "ai.onnx.ml:FeatureVectorizer",
        "ai.onnx.ml:Imputer",
        "ai.onnx.ml:Normalizer",
        "ai.onnx.ml:OneHotEncoder",
        "ai.onnx.ml:Scaler",
    ),
    "ml.maps": (
        "ai.onnx.ml:CastMap",
        "ai.onnx.ml:CategoryMapper",
        "ai.onnx.ml:DictVectorizer",
        "ai.onnx.ml:ZipMap",
    ),
    "random": (
        "Bernoulli",
        "Multinomial",
        "RandomNormal",
        "RandomNormalLike",
        "RandomUniform",
        "RandomUniformLike",
    ),
    "text": ("RegexFullMatch", "StringConcat", "StringNormalizer", "StringSplit", "TfIdfVectorizer"),
    "misc": ("BitCast", "Cast", "CastLike"),
    "resize": ("Resize", "Upsample"),
    "rnn": ("GRU", "LSTM", "RNN"),
    "sampling": ("AffineGrid", "Col2Im", "GridSample", "MelWeightMatrix", "RoiAlign"),
    "signal": ("BlackmanWindow", "DFT", "HammingWindow", "HannWindow", "NonMaxSuppression", "STFT"),
    "training": (
        "ai.onnx.preview.training:Adagrad",
        "ai.onnx.preview.training:Adam",
        "ai.onnx.preview.training:Momentum",
    ),
}
_FAMILY_OF: dict[tuple[str, str], str] = {
    (qualified.rpartition(":")[0], qualified.rpartition(":")[2]): family
    for family, names in _FAMILY_OPS.items()
    for qualified in names
}
