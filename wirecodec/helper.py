"""Builders under ``onnx.helper``'s names and signatures, for wirecodec's messages.

Each ``make_*`` function takes the arguments its onnx namesake takes and builds a
message whose encoding is byte-identical to what onnx builds from the same arguments
(``wirecodec.encode(ours) == theirs.SerializeToString()``; ``tests/unit/tensors/test_helper.py``
checks it on generated arguments):

>>> from schema_dsl.onnx import TensorProto
>>> from wirecodec import encode
>>> from wirecodec.helper import make_graph, make_model, make_node, make_tensor_value_info
>>> X = make_tensor_value_info("X", TensorProto.FLOAT, [None, 3])
>>> Y = make_tensor_value_info("Y", TensorProto.FLOAT, [None, 3])
>>> model = make_model(make_graph([make_node("Relu", ["X"], ["Y"])], "g", [X], [Y]))
>>> model.ir_version, model.opset_import[0].version, len(encode(model))
(14, 28, 63)

Differences from onnx, all deliberate:

* **Copies share payloads.** As with onnx, the messages you pass are copied into the
  result (a repeated field copies what it is given, as protobuf's does), so changing one
  afterwards does not change the result. The copies share ``bytes`` values and
  ``raw_data`` views with the originals instead of duplicating them, so building a
  graph of large initializers copies no tensor data.
* **Defaults are constants.** ``make_model`` sets ``ir_version`` to
  :data:`IR_VERSION` (14) and, without ``opset_imports``, imports the default domain
  at :data:`DEFAULT_OPSET_VERSION` (28): what onnx 1.23 (the release of IR version 14)
  uses. onnx asks its operator registry for the latest opset instead; wirecodec has no
  operator schemas.
* **Clearer errors.** A wrong argument is a ``TypeError`` (wrong type) or ``ValueError``
  (wrong value) naming the function and the argument, raised by the builder rather than
  later by a protobuf setter; a bare ``str`` where a list of names is expected is refused
  (onnx would split it into characters).
* **A little more is accepted**: numpy integers in shapes, ``bytearray``/``memoryview``
  as raw data, repeated fields as keyword arguments of ``make_model`` (a list; onnx
  refuses them).
* :func:`printable_graph` prints what onnx's prints, except that a ``TYPE_PROTO``
  attribute shows the type as ``str()`` of our message.
* :func:`tensor_dtype_to_np_dtype` gives storage dtypes (``uint8``/``uint16``) for the
  types numpy lacks when ``ml_dtypes`` is not installed (onnx requires it).
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from schema_dsl import Kind, Message
from schema_dsl.onnx import (
    IR_VERSION,
    AttributeProto,
    FunctionProto,
    GraphProto,
    MapProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    OptionalProto,
    SequenceProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorProto,
    TensorShapeProto,
    TrainingInfoProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec._helper.args import (
    INT32_RANGE,
    as_bytes,
    as_int,
    as_list,
    as_message,
    as_messages,
    as_text,
    as_texts,
    build,
    field_value,
)
from wirecodec._helper.attributes import (
    get_attribute_value,
    get_node_attr_value,
    make_attribute,
    make_attribute_ref,
)
from wirecodec._helper.element_types import (
    get_all_tensor_dtypes,
    np_dtype_to_tensor_dtype,
    tensor_dtype_to_field,
    tensor_dtype_to_np_dtype,
    tensor_dtype_to_storage_tensor_dtype,
    tensor_dtype_to_string,
)
from wirecodec._helper.printable import (
    printable_attribute,
    printable_dim,
    printable_graph,
    printable_node,
    printable_tensor_proto,
    printable_type,
    printable_value_info,
)
from wirecodec._helper.type_protos import (
    make_empty_tensor_value_info,
    make_map_type_proto,
    make_optional_type_proto,
    make_sequence_type_proto,
    make_sparse_tensor_type_proto,
    make_sparse_tensor_value_info,
    make_tensor_sequence_value_info,
    make_tensor_type_proto,
    make_tensor_value_info,
    make_value_info,
)
from wirecodec._helper.versions import (
    DEFAULT_OPSET_VERSION,
    OP_SET_ID_VERSION_MAP,
    VERSION_TABLE,
    find_min_ir_version_for,
)
from wirecodec.tensors.dtypes import INT_KEY_TYPES

if TYPE_CHECKING:
    from wirecodec._helper.tensor import make_tensor
else:

    def __getattr__(name: str) -> Any:
        """``make_tensor`` (which needs numpy) is imported when first asked for (docs/platforms.md)."""
        if name != "make_tensor":
            raise AttributeError(f"module 'wirecodec.helper' has no attribute {name!r}")
        value = importlib.import_module("wirecodec._helper.tensor").make_tensor
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        # dir() lists make_tensor before its first use, as onnx.helper's does (code that
        # looks for builders by name, like the concepts document's examples, finds it).
        return sorted({*globals(), "make_tensor"})


__all__ = [
    "DEFAULT_OPSET_VERSION",
    "IR_VERSION",
    "OP_SET_ID_VERSION_MAP",
    "VERSION_TABLE",
    "AttributeProto",
    "FunctionProto",
    "GraphProto",
    "MapProto",
    "ModelProto",
    "NodeProto",
    "OperatorSetIdProto",
    "OptionalProto",
    "SequenceProto",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    "find_min_ir_version_for",
    "get_all_tensor_dtypes",
    "get_attribute_value",
    "get_node_attr_value",
    "make_attribute",
    "make_attribute_ref",
    "make_empty_tensor_value_info",
    "make_function",
    "make_graph",
    "make_map",
    "make_map_type_proto",
    "make_model",
    "make_model_gen_version",
    "make_node",
    "make_operatorsetid",
    "make_opsetid",
    "make_optional",
    "make_optional_type_proto",
    "make_sequence",
    "make_sequence_type_proto",
    "make_sparse_tensor",
    "make_sparse_tensor_type_proto",
    "make_sparse_tensor_value_info",
    "make_tensor",
    "make_tensor_sequence_value_info",
    "make_tensor_type_proto",
    "make_tensor_value_info",
    "make_training_info",
    "make_value_info",
    "np_dtype_to_tensor_dtype",
    "printable_attribute",
    "printable_dim",
    "printable_graph",
    "printable_node",
    "printable_tensor_proto",
    "printable_type",
    "printable_value_info",
    "set_metadata_props",
    "set_model_props",
    "strip_doc_string",
    "tensor_dtype_to_field",
    "tensor_dtype_to_np_dtype",
    "tensor_dtype_to_storage_tensor_dtype",
    "tensor_dtype_to_string",
]

# -- nodes, graphs, functions, models ---------------------------------------------------------


def make_node(
    op_type: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    name: str | None = None,
    doc_string: str | None = None,
    domain: str | None = None,
    overload: str | None = None,
    **kwargs: Any,
) -> NodeProto:
    """A NodeProto calling ``op_type``; keyword arguments become its attributes.

    Attributes are sorted by name and built with :func:`make_attribute` (``None`` values
    are skipped). ``name`` and ``doc_string`` are set only when non-empty, ``domain`` and
    ``overload`` whenever given (even empty), as onnx does.

    >>> make_node("Transpose", ["A"], ["tA"], perm=[1, 0]).attribute[0].ints
    [1, 0]
    """
    # Built in place (build): every value is checked once here and each attribute is this
    # call's own, so nothing is copied or checked a second time.
    fields: dict[str, Any] = {
        "op_type": as_text(op_type, "make_node: op_type"),
        "input": as_texts(inputs, "make_node: inputs"),
        "output": as_texts(outputs, "make_node: outputs"),
    }
    if name:
        fields["name"] = as_text(name, "make_node: name")
    if doc_string:
        fields["doc_string"] = as_text(doc_string, "make_node: doc_string")
    if domain is not None:
        fields["domain"] = as_text(domain, "make_node: domain")
    if overload is not None:
        fields["overload"] = as_text(overload, "make_node: overload")
    attributes = [make_attribute(key, value) for key, value in sorted(kwargs.items()) if value is not None]
    if attributes:
        fields["attribute"] = attributes
    return build(NodeProto, **fields)


def make_operatorsetid(domain: str, version: int) -> OperatorSetIdProto:
    """An OperatorSetIdProto (``domain`` "" is the default domain ai.onnx).

    >>> make_operatorsetid("ai.onnx.ml", 5)
    domain: "ai.onnx.ml"
    version: 5
    <BLANKLINE>
    """
    return OperatorSetIdProto(
        domain=as_text(domain, "make_operatorsetid: domain"),
        version=as_int(version, "make_operatorsetid: version"),
    )


def make_opsetid(domain: str, version: int) -> OperatorSetIdProto:
    """An OperatorSetIdProto; the same as :func:`make_operatorsetid`."""
    return OperatorSetIdProto(
        domain=as_text(domain, "make_opsetid: domain"), version=as_int(version, "make_opsetid: version")
    )


def make_graph(
    nodes: Sequence[NodeProto],
    name: str,
    inputs: Sequence[ValueInfoProto],
    outputs: Sequence[ValueInfoProto],
    initializer: Sequence[TensorProto] | None = None,
    doc_string: str | None = None,
    value_info: Sequence[ValueInfoProto] | None = None,
    sparse_initializer: Sequence[SparseTensorProto] | None = None,
) -> GraphProto:
    """A GraphProto from its nodes, name, inputs, outputs and optional initializers.

    The messages are copied in; tensor payloads are shared (see the module docstring).
    """
    graph = GraphProto()
    graph.node = as_messages(nodes, NodeProto, "make_graph: nodes")
    graph.name = as_text(name, "make_graph: name")
    graph.input = as_messages(inputs, ValueInfoProto, "make_graph: inputs")
    graph.output = as_messages(outputs, ValueInfoProto, "make_graph: outputs")
    # (an empty list is not assigned: each assignment costs, on onnxslim's loop of
    # one-node graphs, more than the field it leaves as it was)
    if initializer:
        graph.initializer = as_messages(initializer, TensorProto, "make_graph: initializer")
    if sparse_initializer:
        graph.sparse_initializer = as_messages(
            sparse_initializer, SparseTensorProto, "make_graph: sparse_initializer"
        )
    if value_info:
        graph.value_info = as_messages(value_info, ValueInfoProto, "make_graph: value_info")
    if doc_string:
        graph.doc_string = as_text(doc_string, "make_graph: doc_string")
    return graph


def make_function(
    domain: str,
    fname: str,
    inputs: Sequence[str],
    outputs: Sequence[str],
    nodes: Sequence[NodeProto],
    opset_imports: Sequence[OperatorSetIdProto],
    attributes: Sequence[str] | None = None,
    attribute_protos: Sequence[AttributeProto] | None = None,
    doc_string: str | None = None,
    overload: str | None = None,
    value_info: Sequence[ValueInfoProto] | None = None,
) -> FunctionProto:
    """A FunctionProto: a named body of nodes callable like an operator of ``domain``.

    ``attributes`` names attributes without defaults; ``attribute_protos`` declares
    attributes with default values.
    """
    function = FunctionProto()
    function.domain = as_text(domain, "make_function: domain")
    function.name = as_text(fname, "make_function: fname")
    function.input = as_texts(inputs, "make_function: inputs")
    function.output = as_texts(outputs, "make_function: outputs")
    function.node = as_messages(nodes, NodeProto, "make_function: nodes")
    function.opset_import = as_messages(opset_imports, OperatorSetIdProto, "make_function: opset_imports")
    function.attribute = as_texts(attributes or [], "make_function: attributes")
    function.attribute_proto = as_messages(
        attribute_protos or [], AttributeProto, "make_function: attribute_protos"
    )
    if doc_string:
        function.doc_string = as_text(doc_string, "make_function: doc_string")
    if overload is not None:
        function.overload = as_text(overload, "make_function: overload")
    function.value_info = as_messages(value_info or [], ValueInfoProto, "make_function: value_info")
    return function


def make_model(graph: GraphProto, **kwargs: Any) -> ModelProto:
    """A ModelProto around ``graph``.

    ``ir_version`` defaults to :data:`IR_VERSION`; ``opset_imports`` (a list of
    OperatorSetIdProto) defaults to the default domain at :data:`DEFAULT_OPSET_VERSION`;
    ``functions`` adds model-local functions. Any other keyword sets the ModelProto field
    of that name (``producer_name="me"``, ``doc_string=...``, ``ir_version=8``, repeated
    fields as lists); an unknown name is a ``TypeError``.

    >>> m = make_model(GraphProto(name="g"), producer_name="me", opset_imports=[make_opsetid("", 21)])
    >>> m.ir_version, m.producer_name, m.opset_import[0].version
    (14, 'me', 21)
    """
    model = ModelProto()
    model.ir_version = IR_VERSION
    model.graph = as_message(graph, GraphProto, "make_model: graph")
    opset_imports = kwargs.pop("opset_imports", None)
    functions = kwargs.pop("functions", None)
    if opset_imports is not None:
        model.opset_import = as_messages(opset_imports, OperatorSetIdProto, "make_model: opset_imports")
    else:
        # Only the version is set: the default domain's empty name stays absent, as in onnx.
        model.opset_import = [OperatorSetIdProto(version=DEFAULT_OPSET_VERSION)]
    if functions is not None:
        model.functions = as_messages(functions, FunctionProto, "make_model: functions")
    for key, value in kwargs.items():
        setattr(model, key, field_value(ModelProto, key, value, "make_model"))
    return model


def make_model_gen_version(graph: GraphProto, **kwargs: Any) -> ModelProto:
    """:func:`make_model`, with ``ir_version`` (unless given) the lowest that ``opset_imports`` allow."""
    if "ir_version" not in kwargs:
        kwargs["ir_version"] = find_min_ir_version_for(kwargs.get("opset_imports", []))
    return make_model(graph, **kwargs)


_WITH_METADATA: Final = (ModelProto, GraphProto, FunctionProto, NodeProto, TensorProto, ValueInfoProto)


def set_metadata_props(proto: Message, dict_value: Mapping[str, str]) -> None:
    """Replace ``proto.metadata_props`` with the entries of ``dict_value``, in its order."""
    if not isinstance(proto, _WITH_METADATA):
        raise TypeError(
            f"set_metadata_props: proto must be a message with metadata_props, got {type(proto).__name__}"
        )
    if not isinstance(dict_value, Mapping):
        raise TypeError(f"set_metadata_props: dict_value must be a dict, got {type(dict_value).__name__}")
    proto.metadata_props = [
        StringStringEntryProto(
            key=as_text(key, "set_metadata_props: key"),
            value=as_text(value, f"set_metadata_props: value of {key!r}"),
        )
        for key, value in dict_value.items()
    ]


def set_model_props(model: ModelProto, dict_value: Mapping[str, str]) -> None:
    """Replace the model's ``metadata_props`` with the entries of ``dict_value``."""
    set_metadata_props(as_message(model, ModelProto, "set_model_props: model"), dict_value)


def make_training_info(
    algorithm: GraphProto,
    algorithm_bindings: Sequence[tuple[str, str]],
    initialization: GraphProto | None,
    initialization_bindings: Sequence[tuple[str, str]] | None,
) -> TrainingInfoProto:
    """A TrainingInfoProto: the training algorithm, its update bindings, and an optional initialization."""
    info = TrainingInfoProto()
    info.algorithm = as_message(algorithm, GraphProto, "make_training_info: algorithm")
    info.update_binding = _bindings(algorithm_bindings, "make_training_info: algorithm_bindings")
    if initialization is not None:
        info.initialization = as_message(initialization, GraphProto, "make_training_info: initialization")
    if initialization_bindings:
        info.initialization_binding = _bindings(
            initialization_bindings, "make_training_info: initialization_bindings"
        )
    return info


def _bindings(pairs: Iterable[tuple[str, str]], where: str) -> list[StringStringEntryProto]:
    out = []
    for i, pair in enumerate(as_list(pairs, where)):
        key, value = as_list(pair, f"{where}[{i}]")
        out.append(
            StringStringEntryProto(
                key=as_text(key, f"{where}[{i}][0]"), value=as_text(value, f"{where}[{i}][1]")
            )
        )
    return out


def strip_doc_string(proto: Message) -> None:
    """Clear every ``doc_string`` in ``proto`` and the messages inside it."""
    if not isinstance(proto, Message):
        raise TypeError(f"strip_doc_string: proto must be a message, got {type(proto).__name__}")
    for spec in proto.__schema__.fields:
        if spec.name == "doc_string":
            proto.ClearField("doc_string")
        elif spec.kind is Kind.MESSAGE:
            if spec.repeated:
                for item in getattr(proto, spec.name):
                    strip_doc_string(item)
            elif proto.HasField(spec.name):
                strip_doc_string(getattr(proto, spec.name))


# -- tensors and values ----------------------------------------------------------------------


def make_sparse_tensor(values: TensorProto, indices: TensorProto, dims: Sequence[int]) -> SparseTensorProto:
    """A SparseTensorProto: non-zero ``values``, their ``indices`` (INT64) and the dense ``dims``."""
    return SparseTensorProto(
        values=as_message(values, TensorProto, "make_sparse_tensor: values"),
        indices=as_message(indices, TensorProto, "make_sparse_tensor: indices"),
        dims=[
            as_int(d, f"make_sparse_tensor: dims[{i}]")
            for i, d in enumerate(as_list(dims, "make_sparse_tensor: dims"))
        ],
    )


_SEQUENCE_FIELDS: Final[dict[int, tuple[str, type[Message]]]] = {
    SequenceProto.DataType.TENSOR: ("tensor_values", TensorProto),
    SequenceProto.DataType.SPARSE_TENSOR: ("sparse_tensor_values", SparseTensorProto),
    SequenceProto.DataType.SEQUENCE: ("sequence_values", SequenceProto),
    SequenceProto.DataType.MAP: ("map_values", MapProto),
    SequenceProto.DataType.OPTIONAL: ("optional_values", OptionalProto),
}
_OPTIONAL_FIELDS: Final[dict[int, tuple[str, type[Message]]]] = {
    OptionalProto.DataType.TENSOR: ("tensor_value", TensorProto),
    OptionalProto.DataType.SPARSE_TENSOR: ("sparse_tensor_value", SparseTensorProto),
    OptionalProto.DataType.SEQUENCE: ("sequence_value", SequenceProto),
    OptionalProto.DataType.MAP: ("map_value", MapProto),
    OptionalProto.DataType.OPTIONAL: ("optional_value", OptionalProto),
}


def make_sequence(name: str, elem_type: int, values: Sequence[Any]) -> SequenceProto:
    """A SequenceProto of ``elem_type`` (a ``SequenceProto.DataType``) holding ``values`` (messages)."""
    sequence = SequenceProto()
    sequence.name = as_text(name, "make_sequence: name")
    sequence.elem_type = as_int(elem_type, "make_sequence: elem_type", INT32_RANGE)
    if sequence.elem_type == SequenceProto.DataType.UNDEFINED:
        return sequence
    if sequence.elem_type not in _SEQUENCE_FIELDS:
        raise TypeError(
            f"make_sequence: elem_type {sequence.elem_type} is not a SequenceProto.DataType with values"
        )
    field, cls = _SEQUENCE_FIELDS[sequence.elem_type]
    setattr(sequence, field, as_messages(values, cls, "make_sequence: values"))
    return sequence


def make_map(name: str, key_type: int, keys: list[Any], values: SequenceProto) -> MapProto:
    """A MapProto: ``keys`` (ints, or bytes for STRING ``key_type``) and their ``values`` as a sequence.

    Keys of a ``key_type`` that is neither an integer type nor STRING are not stored, as in onnx.
    """
    map_proto = MapProto()
    map_proto.name = as_text(name, "make_map: name")
    map_proto.key_type = as_int(key_type, "make_map: key_type", INT32_RANGE)
    if map_proto.key_type == TensorProto.DataType.STRING:
        map_proto.string_keys = [
            as_bytes(k, f"make_map: keys[{i}]") for i, k in enumerate(as_list(keys, "make_map: keys"))
        ]
    elif map_proto.key_type in INT_KEY_TYPES:
        map_proto.keys = [
            as_int(k, f"make_map: keys[{i}]") for i, k in enumerate(as_list(keys, "make_map: keys"))
        ]
    map_proto.values = as_message(values, SequenceProto, "make_map: values")
    return map_proto


def make_optional(name: str, elem_type: int, value: Message | None) -> OptionalProto:
    """An OptionalProto of ``elem_type`` (an ``OptionalProto.DataType``) holding ``value``."""
    optional = OptionalProto()
    optional.name = as_text(name, "make_optional: name")
    optional.elem_type = as_int(elem_type, "make_optional: elem_type", INT32_RANGE)
    if optional.elem_type == OptionalProto.DataType.UNDEFINED:
        return optional
    if optional.elem_type not in _OPTIONAL_FIELDS:
        raise TypeError(
            f"make_optional: elem_type {optional.elem_type} is not an OptionalProto.DataType with a value"
        )
    field, cls = _OPTIONAL_FIELDS[optional.elem_type]
    if value is None:
        raise ValueError(
            f"make_optional: value is None but elem_type {optional.elem_type} needs a {cls.__qualname__}"
        )
    setattr(optional, field, as_message(value, cls, "make_optional: value"))
    return optional


def _attr_type_to_str(attr_type: int) -> str:
    """The name of an AttributeProto type; "UNDEFINED" for a number that is none (onnx private)."""
    try:
        return AttributeProto.AttributeType.Name(attr_type)
    except ValueError:
        return "UNDEFINED"
