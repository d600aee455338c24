"""The ai.onnx.ml operators: encoders, tree ensembles, classifiers, maps.

Besides the types of their outputs, the rules refuse what onnx's inference refuses about
their attributes (a missing category list, lists of different lengths, a tree whose node
attributes disagree in length or whose thresholds are of another type than the input), so a
model onnx's strict inference rejects is rejected here too.
"""

from __future__ import annotations

from schema_dsl.onnx import AttributeProto
from wirecodec.shape_inference._context import NodeContext
from wirecodec.shape_inference._registry import rule
from wirecodec.shape_inference._types import Dim, MapType, SequenceType, TensorType
from wirecodec.shape_inference.ops._util import FLOAT, INT64, STRING, UINT8, product

_ML = "ai.onnx.ml"


def _count(attr: AttributeProto) -> int:
    """The number of values a list attribute (or a tensor attribute) holds."""
    if attr.type == AttributeProto.AttributeType.TENSOR:
        return int(product([int(d) for d in attr.t.dims]) or 0)
    return len(attr.ints) + len(attr.floats) + len(attr.strings)


def _kind(attr: AttributeProto, suffix: str) -> int:
    """The element type a ``*_int64s``/``*_strings``/``*_floats``/``*_tensor`` attribute holds."""
    if suffix == "tensor":
        return int(attr.t.data_type)
    return {"int64s": INT64, "strings": STRING, "floats": FLOAT}[suffix]


def _one_of(ctx: NodeContext, stem: str, suffixes: tuple[str, ...]) -> list[tuple[str, AttributeProto]]:
    return [(s, ctx.attrs[f"{stem}_{s}"]) for s in suffixes if f"{stem}_{s}" in ctx.attrs]


_LE_SUFFIXES_2 = ("strings", "int64s", "floats")
_LE_SUFFIXES_4 = ("tensor", "strings", "int64s", "floats")


@rule("LabelEncoder", domain=_ML)
def label_encoder(ctx: NodeContext) -> None:
    """One value per key, the input's shape kept (from version 2). From version 2 exactly one keys and one
    values attribute, keys of the input's type; from 4, as many values as keys and a
    ``default_tensor`` of the values' type holding one value in one dimension."""
    if ctx.opset < 2:  # the type only (onnx's version 1 gives no shape)
        ctx.set_tensor(0, STRING if ctx.elem(0) == INT64 else INT64, None)
        return
    suffixes = _LE_SUFFIXES_4 if ctx.opset >= 4 else _LE_SUFFIXES_2
    found = {}
    for stem in ("keys", "values"):
        given = _one_of(ctx, stem, suffixes)
        if len(given) != 1:
            names = ", ".join(f"{stem}_{s}" for s in suffixes)
            if ctx.opset < 4:
                raise ctx.fail(f"only one of {stem}_*'s can be set in label encoder")
            if not given:
                raise ctx.fail(f"at least one of {names} must be set")
            raise ctx.fail(f"one and only one attribute must be set out of {names}")
        found[stem] = given[0]
    key_suffix, keys = found["keys"]
    value_suffix, values = found["values"]
    key_type, value_type = _kind(keys, key_suffix), _kind(values, value_suffix)
    input_type = ctx.elem(0)
    if input_type and key_type != input_type:
        raise ctx.fail(f"the input type {input_type} and the key type {key_type} differ")
    if ctx.opset >= 4:
        if _count(keys) != _count(values):
            raise ctx.fail(f"{_count(keys)} keys but {_count(values)} values")
        default = ctx.attrs.get("default_tensor")
        if default is not None:
            if default.t.data_type != value_type:
                raise ctx.fail(f"default_tensor's type {default.t.data_type} is not the values' {value_type}")
            if list(default.t.dims) != [1]:
                raise ctx.fail("the default tensor must be a singleton 1D tensor")
    ctx.set_tensor(0, value_type, ctx.shape(0))


@rule("Binarizer", domain=_ML)
def binarizer(ctx: NodeContext) -> None:
    ctx.set_tensor(0, ctx.elem(0), ctx.shape(0))


@rule("ArrayFeatureExtractor", domain=_ML)
def array_feature_extractor(ctx: NodeContext) -> None:
    """X's leading axes, then one axis for the selected features: the indices' one axis, their
    count when they have several known axes, unknown for a scalar. A 1-D X gives no shape
    (onnx's inference leaves it unknown)."""
    x, indices = ctx.shape(0), ctx.shape(1)
    if x is None or len(x) == 1:
        ctx.set_tensor(0, ctx.elem(0), None)
        return
    last: Dim = None
    if indices is not None and len(indices) == 1:
        last = indices[0]
    elif indices:
        last = product(indices)
    ctx.set_tensor(0, ctx.elem(0), (*x[:-1], last))


def _rank_two(ctx: NodeContext) -> Dim:
    """The batch axis of an input that must be a matrix (N, C)."""
    x = ctx.shape(0)
    if x is None:
        return None
    if len(x) != 2:
        raise ctx.fail(f"input 0 expected to have rank 2 but has rank {len(x)}")
    return x[0]


@rule("TreeEnsembleRegressor", domain=_ML)
def tree_ensemble_regressor(ctx: NodeContext) -> None:
    """(N, n_targets) floats. Version 1 has no inference, version 5 is deprecated (none)."""
    if ctx.opset < 3 or ctx.opset >= 5:
        return
    batch = _rank_two(ctx)
    targets = ctx.attrs.get("n_targets")
    ctx.set_tensor(0, FLOAT, (batch, int(targets.i) if targets is not None else None))


@rule("TreeEnsembleClassifier", domain=_ML)
def tree_ensemble_classifier(ctx: NodeContext) -> None:
    """The labels (N,) as the class labels' type, the scores (N, number of classes)."""
    if ctx.opset >= 5:
        return
    strings, ints = ctx.attr_strings("classlabels_strings"), ctx.attr_ints("classlabels_int64s")
    if ctx.opset < 3:  # the labels' type only
        ctx.set_tensor(0, STRING if strings else INT64, None)
        return
    batch = _rank_two(ctx)
    if strings is not None:
        labels, classes = STRING, len(strings)
    elif ints is not None:
        labels, classes = INT64, len(ints)
    else:
        raise ctx.fail("none of classlabels_int64s or classlabels_strings is set")
    if ctx.n_outputs < 2:
        raise ctx.fail("output 1 is out of bounds")
    ctx.set_tensor(0, labels, (batch,))
    ctx.set_tensor(1, FLOAT, (batch, classes))


def _input_typed(ctx: NodeContext, name: str, attr: AttributeProto, elem: int) -> None:
    if elem and attr.t.data_type != elem:
        raise ctx.fail(f"attribute {name!r} must have the input's type {elem}, not {attr.t.data_type}")


_NODE_LISTS = (
    "nodes_featureids",
    "nodes_modes",
    "nodes_truenodeids",
    "nodes_falsenodeids",
    "nodes_trueleafs",
    "nodes_falseleafs",
)


@rule("TreeEnsemble", domain=_ML)
def tree_ensemble(ctx: NodeContext) -> None:
    """(N, n_targets) of the input's type. The per-node attributes have one entry per split,
    the thresholds, leaf weights and membership values the input's type, the leaves one
    target each."""
    elem = ctx.elem(0)
    splits = ctx.attrs.get("nodes_splits")
    if splits is None:
        raise ctx.fail("attribute 'nodes_splits' is required")
    n = _count(splits)
    _input_typed(ctx, "nodes_splits", splits, elem)
    for name in _NODE_LISTS:
        given = ctx.attrs.get(name)
        if given is not None and _count(given) != n:
            raise ctx.fail(f"attribute {name!r} must have {n} elements")
    modes = ctx.attrs.get("nodes_modes")
    if modes is not None and modes.t.data_type != UINT8:
        raise ctx.fail("attribute 'nodes_modes' must have type UINT8")
    targets, weights = ctx.attrs.get("leaf_targetids"), ctx.attrs.get("leaf_weights")
    if targets is None or weights is None:
        raise ctx.fail("attributes 'leaf_targetids' and 'leaf_weights' must both be set")
    if len(weights.t.dims) != 1:
        raise ctx.fail("attribute 'leaf_weights' must be 1D")
    _input_typed(ctx, "leaf_weights", weights, elem)
    if _count(targets) != _count(weights):
        raise ctx.fail(f"{_count(targets)} 'leaf_targetids' but {_count(weights)} 'leaf_weights'")
    membership = ctx.attrs.get("membership_values")
    if membership is not None:
        _input_typed(ctx, "membership_values", membership, elem)
    x = ctx.shape(0)
    batch = x[0] if x else None
    ctx.set_tensor(0, elem, (batch, ctx.attr_int("n_targets", 0) or None))


@rule("CategoryMapper", domain=_ML)
def category_mapper(ctx: NodeContext) -> None:
    """Strings to int64 and back, shape kept; both category lists given, of one length."""
    ints, strings = ctx.attr_ints("cats_int64s"), ctx.attr_strings("cats_strings")
    if ints is None:
        raise ctx.fail("attribute 'cats_int64s' is required")
    if strings is None:
        raise ctx.fail("attribute 'cats_strings' is required")
    if len(ints) != len(strings):
        raise ctx.fail("attributes 'cats_int64s' and 'cats_strings' are required to be the same length")
    t = ctx.tensor(0)
    if t is not None:
        ctx.set_tensor(0, INT64 if t.elem == STRING else STRING, t.shape)


@rule("OneHotEncoder", domain=_ML)
def one_hot_encoder(ctx: NodeContext) -> None:
    """One float per category on a new last axis; exactly one category list."""
    ints, strings = ctx.attr_ints("cats_int64s"), ctx.attr_strings("cats_strings")
    if (ints is None) == (strings is None):
        raise ctx.fail("exactly one of 'cats_*' attributes must be provided")
    cats = ints if ints is not None else strings
    assert cats is not None
    s = ctx.shape(0)
    ctx.set_tensor(0, FLOAT, None if s is None else (*s, len(cats)))


@rule("LinearClassifier", domain=_ML)
def linear_classifier(ctx: NodeContext) -> None:
    """Labels (int64 or strings) per row; one score per intercept."""
    s = ctx.shape(0)
    labels = STRING if ctx.has_attr("classlabels_strings") else INT64
    rows: Dim = None if s is None or not s else (1 if len(s) == 1 else s[0])
    shaped = s is not None
    ctx.set_tensor(0, labels, (rows,) if shaped else None)
    if ctx.has_output(1):
        a = ctx.attrs.get("intercepts")
        width = len(a.floats) if a is not None else 0
        ctx.set_tensor(1, FLOAT, (rows, width) if shaped else None)


@rule("SVMClassifier", domain=_ML)
def svm_classifier(ctx: NodeContext) -> None:
    ctx.set_tensor(0, STRING if ctx.has_attr("classlabels_strings") else INT64, None)


@rule("ZipMap", domain=_ML)
def zip_map(ctx: NodeContext) -> None:
    key = STRING if ctx.has_attr("classlabels_strings") else INT64
    ctx.set(0, SequenceType(MapType(key, TensorType(FLOAT, ()))))


_CAST_MAP = {"TO_FLOAT": FLOAT, "TO_STRING": STRING, "TO_INT64": INT64}


@rule("CastMap", domain=_ML)
def cast_map(ctx: NodeContext) -> None:
    ctx.set_tensor(0, _CAST_MAP.get(ctx.attr_str("cast_to", "TO_FLOAT"), FLOAT), None)


@rule("DictVectorizer", domain=_ML)
def dict_vectorizer(ctx: NodeContext) -> None:
    """The map's value element type; the shape is not inferred (as onnx)."""
    m = ctx.input_type(0)
    if isinstance(m, MapType) and isinstance(m.value, TensorType):
        ctx.set_tensor(0, m.value.elem, None)
