"""The ONNX schema at IR version 14, declared in schema_dsl.

Every message and enum of ``onnx-ml.proto``, ``onnx-data.proto`` and
``onnx-operators-ml.proto``, with the names and field numbers of the ``.proto`` files.
``tests/unit/schema/test_schema.py`` checks each field against the descriptors of the onnx package.
"""

from __future__ import annotations

from typing import Final

from schema_dsl.enums import ProtoEnum
from schema_dsl.fields import (
    BYTES,
    DOUBLE,
    ENUM,
    FLOAT,
    INT32,
    INT64,
    MESSAGE,
    STRING,
    UINT64,
    optional,
    repeated,
)
from schema_dsl.message import Message
from schema_dsl.summaries import function_summary, graph_summary, model_summary

PROTO_PACKAGE = "onnx"

__all__ = [
    "EXPERIMENTAL",
    "IR_VERSION",
    "STABLE",
    "AttributeProto",
    "DeviceConfigurationProto",
    "FunctionProto",
    "GraphProto",
    "IntIntListEntryProto",
    "MapProto",
    "ModelProto",
    "NodeDeviceConfigurationProto",
    "NodeProto",
    "OperatorProto",
    "OperatorSetIdProto",
    "OperatorSetProto",
    "OperatorStatus",
    "OptionalProto",
    "SequenceProto",
    "ShardedDimProto",
    "ShardingSpecProto",
    "SimpleShardedDimProto",
    "SparseTensorProto",
    "StringStringEntryProto",
    "TensorAnnotation",
    "TensorProto",
    "TensorShapeProto",
    "TrainingInfoProto",
    "TypeProto",
    "ValueInfoProto",
    "Version",
]

Bytes = bytes | memoryview


class Version(ProtoEnum):
    """IR versions; each value names the date its release was frozen."""

    _START_VERSION = 0
    IR_VERSION_2017_10_10 = 1
    IR_VERSION_2017_10_30 = 2
    IR_VERSION_2017_11_3 = 3
    IR_VERSION_2019_1_22 = 4
    IR_VERSION_2019_3_18 = 5
    IR_VERSION_2019_9_19 = 6
    IR_VERSION_2020_5_8 = 7
    IR_VERSION_2021_7_30 = 8
    IR_VERSION_2023_5_5 = 9
    IR_VERSION_2024_3_25 = 10
    IR_VERSION_2025_05_12 = 11
    IR_VERSION_2025_08_26 = 12
    IR_VERSION_2025_11_06 = 13
    IR_VERSION = 14


class OperatorStatus(ProtoEnum):
    """Whether an operator's definition may still change."""

    EXPERIMENTAL = 0
    STABLE = 1


class AttributeProto(Message):
    """A named constant parameter of a node: one value of the kind ``type`` names."""

    class AttributeType(ProtoEnum):
        UNDEFINED = 0
        FLOAT = 1
        INT = 2
        STRING = 3
        TENSOR = 4
        GRAPH = 5
        SPARSE_TENSOR = 11
        TYPE_PROTO = 13
        FLOATS = 6
        INTS = 7
        STRINGS = 8
        TENSORS = 9
        GRAPHS = 10
        SPARSE_TENSORS = 12
        TYPE_PROTOS = 14

    name: str = optional(1, STRING)
    ref_attr_name: str = optional(21, STRING)
    doc_string: str = optional(13, STRING)
    type: int = optional(20, ENUM, enum=AttributeType)
    f: float = optional(2, FLOAT)
    i: int = optional(3, INT64)
    s: bytes = optional(4, BYTES)
    t: TensorProto = optional(5, MESSAGE)
    g: GraphProto = optional(6, MESSAGE)
    sparse_tensor: SparseTensorProto = optional(22, MESSAGE)
    tp: TypeProto = optional(14, MESSAGE)
    floats: list[float] = repeated(7, FLOAT)
    ints: list[int] = repeated(8, INT64)
    strings: list[bytes] = repeated(9, BYTES)
    tensors: list[TensorProto] = repeated(10, MESSAGE)
    graphs: list[GraphProto] = repeated(11, MESSAGE)
    sparse_tensors: list[SparseTensorProto] = repeated(23, MESSAGE)
    type_protos: list[TypeProto] = repeated(15, MESSAGE)


class ValueInfoProto(Message):
    """A named value (graph input, output or intermediate) with its type."""

    name: str = optional(1, STRING)
    type: TypeProto = optional(2, MESSAGE)
    doc_string: str = optional(3, STRING)
    metadata_props: list[StringStringEntryProto] = repeated(4, MESSAGE, rarely_read=True)


class NodeProto(Message):
    """One call of an operator: named inputs and outputs, attributes."""

    input: list[str] = repeated(1, STRING)
    output: list[str] = repeated(2, STRING)
    name: str = optional(3, STRING)
    op_type: str = optional(4, STRING)
    domain: str = optional(7, STRING)
    overload: str = optional(8, STRING)
    attribute: list[AttributeProto] = repeated(5, MESSAGE)
    doc_string: str = optional(6, STRING)
    metadata_props: list[StringStringEntryProto] = repeated(9, MESSAGE, rarely_read=True)
    device_configurations: list[NodeDeviceConfigurationProto] = repeated(10, MESSAGE)


class IntIntListEntryProto(Message):
    """A map entry from an int64 key to a list of int64 values."""

    key: int = optional(1, INT64)
    value: list[int] = repeated(2, INT64)


class NodeDeviceConfigurationProto(Message):
    """How one node runs across devices: sharding of its values and pipeline stage."""

    configuration_id: str = optional(1, STRING)
    sharding_spec: list[ShardingSpecProto] = repeated(2, MESSAGE)
    pipeline_stage: int = optional(3, INT32)


class ShardingSpecProto(Message):
    """How one tensor is split across devices."""

    tensor_name: str = optional(1, STRING)
    device: list[int] = repeated(2, INT64)
    index_to_device_group_map: list[IntIntListEntryProto] = repeated(3, MESSAGE)
    sharded_dim: list[ShardedDimProto] = repeated(4, MESSAGE)


class ShardedDimProto(Message):
    """The sharding of one axis of a tensor."""

    axis: int = optional(1, INT64)
    simple_sharding: list[SimpleShardedDimProto] = repeated(2, MESSAGE)


class SimpleShardedDimProto(Message):
    """An axis split into ``num_shards`` equal parts."""

    dim_value: int = optional(1, INT64, oneof="dim")
    dim_param: str = optional(2, STRING, oneof="dim")
    num_shards: int = optional(3, INT64)


class TrainingInfoProto(Message):
    """Training: an initialization graph, an algorithm graph, and their bindings."""

    initialization: GraphProto = optional(1, MESSAGE)
    algorithm: GraphProto = optional(2, MESSAGE)
    initialization_binding: list[StringStringEntryProto] = repeated(3, MESSAGE)
    update_binding: list[StringStringEntryProto] = repeated(4, MESSAGE)


class ModelProto(Message):
    """The top-level container: metadata, imported opsets, the main graph, functions."""

    ir_version: int = optional(1, INT64)
    opset_import: list[OperatorSetIdProto] = repeated(8, MESSAGE)
    producer_name: str = optional(2, STRING)
    producer_version: str = optional(3, STRING)
    domain: str = optional(4, STRING)
    model_version: int = optional(5, INT64)
    doc_string: str = optional(6, STRING)
    graph: GraphProto = optional(7, MESSAGE)
    metadata_props: list[StringStringEntryProto] = repeated(14, MESSAGE, rarely_read=True)
    training_info: list[TrainingInfoProto] = repeated(20, MESSAGE)
    functions: list[FunctionProto] = repeated(25, MESSAGE)
    configuration: list[DeviceConfigurationProto] = repeated(26, MESSAGE)

    __repr__ = model_summary  # a short summary, as onnx prints (str() is the text format)


class DeviceConfigurationProto(Message):
    """A named set of devices a model may be distributed over."""

    name: str = optional(1, STRING)
    num_devices: int = optional(2, INT32)
    device: list[str] = repeated(3, STRING)


class StringStringEntryProto(Message):
    """A string-to-string map entry (metadata, external-data keys)."""

    key: str = optional(1, STRING)
    value: str = optional(2, STRING)


class TensorAnnotation(Message):
    """Quantization parameters attached to a tensor by name."""

    tensor_name: str = optional(1, STRING)
    quant_parameter_tensor_names: list[StringStringEntryProto] = repeated(2, MESSAGE)


class GraphProto(Message):
    """A computation graph: nodes in topological order, initializers, inputs and outputs."""

    node: list[NodeProto] = repeated(1, MESSAGE, records=True)
    name: str = optional(2, STRING)
    initializer: list[TensorProto] = repeated(5, MESSAGE)
    sparse_initializer: list[SparseTensorProto] = repeated(15, MESSAGE)
    doc_string: str = optional(10, STRING)
    input: list[ValueInfoProto] = repeated(11, MESSAGE, records=True)
    output: list[ValueInfoProto] = repeated(12, MESSAGE, records=True)
    value_info: list[ValueInfoProto] = repeated(13, MESSAGE, records=True)
    quantization_annotation: list[TensorAnnotation] = repeated(14, MESSAGE)
    metadata_props: list[StringStringEntryProto] = repeated(16, MESSAGE, rarely_read=True)

    __repr__ = graph_summary  # a short summary, as onnx prints


class TensorProto(Message):
    """A tensor value: element type, shape, and data (raw bytes, typed fields or external)."""

    class DataType(ProtoEnum):
        UNDEFINED = 0
        FLOAT = 1
        UINT8 = 2
        INT8 = 3
        UINT16 = 4
        INT16 = 5
        INT32 = 6
        INT64 = 7
        STRING = 8
        BOOL = 9
        FLOAT16 = 10
        DOUBLE = 11
        UINT32 = 12
        UINT64 = 13
        COMPLEX64 = 14
        COMPLEX128 = 15
        BFLOAT16 = 16
        FLOAT8E4M3FN = 17
        FLOAT8E4M3FNUZ = 18
        FLOAT8E5M2 = 19
        FLOAT8E5M2FNUZ = 20
        UINT4 = 21
        INT4 = 22
        FLOAT4E2M1 = 23
        FLOAT8E8M0 = 24
        UINT2 = 25
        INT2 = 26
        FLOAT6E2M3 = 27
        FLOAT6E3M2 = 28

    class DataLocation(ProtoEnum):
        DEFAULT = 0
        EXTERNAL = 1

    class Segment(Message):
        """The slice of a large tensor that this TensorProto holds."""

        begin: int = optional(1, INT64)
        end: int = optional(2, INT64)

    dims: list[int] = repeated(1, INT64)
    data_type: int = optional(2, INT32)
    segment: TensorProto.Segment = optional(3, MESSAGE)
    float_data: list[float] = repeated(4, FLOAT, packed=True)
    int32_data: list[int] = repeated(5, INT32, packed=True)
    string_data: list[bytes] = repeated(6, BYTES)
    int64_data: list[int] = repeated(7, INT64, packed=True)
    name: str = optional(8, STRING)
    doc_string: str = optional(12, STRING)
    raw_data: Bytes = optional(9, BYTES, view=True)  # payload: a zero-copy view when decoded
    external_data: list[StringStringEntryProto] = repeated(13, MESSAGE)
    # noted: load learns while decoding whether any tensor may refer to external data
    data_location: int = optional(14, ENUM, enum=DataLocation, noted=True)
    double_data: list[float] = repeated(10, DOUBLE, packed=True)
    uint64_data: list[int] = repeated(11, UINT64, packed=True)
    metadata_props: list[StringStringEntryProto] = repeated(16, MESSAGE, rarely_read=True)


class SparseTensorProto(Message):
    """A sparse tensor in coordinate form: non-zero values and their indices."""

    values: TensorProto = optional(1, MESSAGE)
    indices: TensorProto = optional(2, MESSAGE)
    dims: list[int] = repeated(3, INT64)


class TensorShapeProto(Message):
    """A static shape: one entry per axis, each a number, a symbol, or unknown."""

    class Dimension(Message):
        """One axis: a size, a symbolic name, or neither."""

        dim_value: int = optional(1, INT64, oneof="value")
        dim_param: str = optional(2, STRING, oneof="value")
        denotation: str = optional(3, STRING)

    dim: list[TensorShapeProto.Dimension] = repeated(1, MESSAGE)


class TypeProto(Message):
    """The type of a value: tensor, sequence, map, optional, sparse tensor or opaque."""

    class Tensor(Message):
        """A dense tensor type: element type and optional static shape."""

        elem_type: int = optional(1, INT32)
        shape: TensorShapeProto = optional(2, MESSAGE)

    class Sequence(Message):
        """A sequence whose elements all have one type."""

        elem_type: TypeProto = optional(1, MESSAGE)

    class Map(Message):
        """A map from a scalar key type to a value type."""

        key_type: int = optional(1, INT32)
        value_type: TypeProto = optional(2, MESSAGE)

    class Optional(Message):
        """A value that may be absent."""

        elem_type: TypeProto = optional(1, MESSAGE)

    class SparseTensor(Message):
        """A sparse tensor type: element type and optional static shape."""

        elem_type: int = optional(1, INT32)
        shape: TensorShapeProto = optional(2, MESSAGE)

    class Opaque(Message):
        """A type the IR knows only by domain and name."""

        domain: str = optional(1, STRING)
        name: str = optional(2, STRING)

    tensor_type: TypeProto.Tensor = optional(1, MESSAGE, oneof="value")
    sequence_type: TypeProto.Sequence = optional(4, MESSAGE, oneof="value")
    map_type: TypeProto.Map = optional(5, MESSAGE, oneof="value")
    optional_type: TypeProto.Optional = optional(9, MESSAGE, oneof="value")
    sparse_tensor_type: TypeProto.SparseTensor = optional(8, MESSAGE, oneof="value")
    opaque_type: TypeProto.Opaque = optional(7, MESSAGE, oneof="value")
    denotation: str = optional(6, STRING)


class OperatorSetIdProto(Message):
    """An imported operator set: its domain and version."""

    domain: str = optional(1, STRING)
    version: int = optional(2, INT64)


class FunctionProto(Message):
    """A model-local function: a named subgraph callable like an operator."""

    name: str = optional(1, STRING)
    input: list[str] = repeated(4, STRING)
    output: list[str] = repeated(5, STRING)
    attribute: list[str] = repeated(6, STRING)
    attribute_proto: list[AttributeProto] = repeated(11, MESSAGE)
    node: list[NodeProto] = repeated(7, MESSAGE, records=True)
    doc_string: str = optional(8, STRING)
    opset_import: list[OperatorSetIdProto] = repeated(9, MESSAGE)
    domain: str = optional(10, STRING)
    overload: str = optional(13, STRING)
    value_info: list[ValueInfoProto] = repeated(12, MESSAGE)
    metadata_props: list[StringStringEntryProto] = repeated(14, MESSAGE, rarely_read=True)

    __repr__ = function_summary  # a short summary, as onnx prints


# -- onnx-data.proto -------------------------------------------------------------------------


class SequenceProto(Message):
    """A sequence value (test data): elements of one kind, named by ``elem_type``."""

    class DataType(ProtoEnum):
        UNDEFINED = 0
        TENSOR = 1
        SPARSE_TENSOR = 2
        SEQUENCE = 3
        MAP = 4
        OPTIONAL = 5

    name: str = optional(1, STRING)
    elem_type: int = optional(2, INT32)
    tensor_values: list[TensorProto] = repeated(3, MESSAGE)
    sparse_tensor_values: list[SparseTensorProto] = repeated(4, MESSAGE)
    sequence_values: list[SequenceProto] = repeated(5, MESSAGE)
    map_values: list[MapProto] = repeated(6, MESSAGE)
    optional_values: list[OptionalProto] = repeated(7, MESSAGE)


class MapProto(Message):
    """A map value (test data): integer or string keys, values as a sequence."""

    name: str = optional(1, STRING)
    key_type: int = optional(2, INT32)
    keys: list[int] = repeated(3, INT64)
    string_keys: list[bytes] = repeated(4, BYTES)
    values: SequenceProto = optional(5, MESSAGE)


class OptionalProto(Message):
    """An optional value (test data): at most one element of the kind ``elem_type`` names."""

    class DataType(ProtoEnum):
        UNDEFINED = 0
        TENSOR = 1
        SPARSE_TENSOR = 2
        SEQUENCE = 3
        MAP = 4
        OPTIONAL = 5

    name: str = optional(1, STRING)
    elem_type: int = optional(2, INT32)
    tensor_value: TensorProto = optional(3, MESSAGE)
    sparse_tensor_value: SparseTensorProto = optional(4, MESSAGE)
    sequence_value: SequenceProto = optional(5, MESSAGE)
    map_value: MapProto = optional(6, MESSAGE)
    optional_value: OptionalProto = optional(7, MESSAGE)


# -- onnx-operators-ml.proto -----------------------------------------------------------------


class OperatorProto(Message):
    """The declaration of one operator in an operator set."""

    op_type: str = optional(1, STRING)
    since_version: int = optional(2, INT64)
    status: int = optional(3, ENUM, enum=OperatorStatus)
    doc_string: str = optional(10, STRING)


class OperatorSetProto(Message):
    """An operator set document: its identity, operators and functions."""

    magic: str = optional(1, STRING)
    ir_version: int = optional(2, INT64)
    ir_version_prerelease: str = optional(3, STRING)
    ir_build_metadata: str = optional(7, STRING)
    domain: str = optional(4, STRING)
    opset_version: int = optional(5, INT64)
    doc_string: str = optional(6, STRING)
    operator: list[OperatorProto] = repeated(8, MESSAGE)
    functions: list[FunctionProto] = repeated(9, MESSAGE)


# Module-level enum values, as the onnx package exposes them (``onnx.IR_VERSION``).
IR_VERSION: Final = int(Version.IR_VERSION)
EXPERIMENTAL: Final = int(OperatorStatus.EXPERIMENTAL)
STABLE: Final = int(OperatorStatus.STABLE)
