"""``onnx.onnx_ml_pb2`` (and ``onnx.onnx_pb``, the same module): the messages and enums of ``onnx-ml.proto``.

The classes are :mod:`schema_dsl.onnx`'s; the module-level constants are the values of
the top-level enums, as protobuf's generated module has them. Its file ``DESCRIPTOR`` (a
``google.protobuf`` FileDescriptor) raises :class:`~wirecodec.onnx_compat.NotProvidedError`;
each class's ``DESCRIPTOR`` is data (:mod:`schema_dsl.descriptors`).

>>> from wirecodec.onnx_compat import onnx_pb  # the same module as onnx_ml_pb2
>>> onnx_pb.TensorProto.DataType.Name(onnx_pb.TensorProto.FLOAT), onnx_pb.IR_VERSION
('FLOAT', 14)
"""

from __future__ import annotations

from typing import Any, Final

from schema_dsl.onnx import (
    AttributeProto,
    DeviceConfigurationProto,
    FunctionProto,
    GraphProto,
    IntIntListEntryProto,
    ModelProto,
    NodeDeviceConfigurationProto,
    NodeProto,
    OperatorSetIdProto,
    OperatorStatus,
    ShardedDimProto,
    ShardingSpecProto,
    SimpleShardedDimProto,
    SparseTensorProto,
    StringStringEntryProto,
    TensorAnnotation,
    TensorProto,
    TensorShapeProto,
    TrainingInfoProto,
    TypeProto,
    ValueInfoProto,
    Version,
)
from wirecodec.onnx_compat._unsupported import missing_module_getattr

__all__ = [
    "EXPERIMENTAL",
    "IR_VERSION",
    "IR_VERSION_2017_10_10",
    "IR_VERSION_2017_10_30",
    "IR_VERSION_2017_11_3",
    "IR_VERSION_2019_1_22",
    "IR_VERSION_2019_3_18",
    "IR_VERSION_2019_9_19",
    "IR_VERSION_2020_5_8",
    "IR_VERSION_2021_7_30",
    "IR_VERSION_2023_5_5",
    "IR_VERSION_2024_3_25",
    "IR_VERSION_2025_05_12",
    "IR_VERSION_2025_08_26",
    "IR_VERSION_2025_11_06",
    "STABLE",
    "AttributeProto",
    "DeviceConfigurationProto",
    "FunctionProto",
    "GraphProto",
    "IntIntListEntryProto",
    "ModelProto",
    "NodeDeviceConfigurationProto",
    "NodeProto",
    "OperatorSetIdProto",
    "OperatorStatus",
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

_START_VERSION: Final = int(Version._START_VERSION)
IR_VERSION_2017_10_10: Final = int(Version.IR_VERSION_2017_10_10)
IR_VERSION_2017_10_30: Final = int(Version.IR_VERSION_2017_10_30)
IR_VERSION_2017_11_3: Final = int(Version.IR_VERSION_2017_11_3)
IR_VERSION_2019_1_22: Final = int(Version.IR_VERSION_2019_1_22)
IR_VERSION_2019_3_18: Final = int(Version.IR_VERSION_2019_3_18)
IR_VERSION_2019_9_19: Final = int(Version.IR_VERSION_2019_9_19)
IR_VERSION_2020_5_8: Final = int(Version.IR_VERSION_2020_5_8)
IR_VERSION_2021_7_30: Final = int(Version.IR_VERSION_2021_7_30)
IR_VERSION_2023_5_5: Final = int(Version.IR_VERSION_2023_5_5)
IR_VERSION_2024_3_25: Final = int(Version.IR_VERSION_2024_3_25)
IR_VERSION_2025_05_12: Final = int(Version.IR_VERSION_2025_05_12)
IR_VERSION_2025_08_26: Final = int(Version.IR_VERSION_2025_08_26)
IR_VERSION_2025_11_06: Final = int(Version.IR_VERSION_2025_11_06)
IR_VERSION: Final = int(Version.IR_VERSION)
EXPERIMENTAL: Final = int(OperatorStatus.EXPERIMENTAL)
STABLE: Final = int(OperatorStatus.STABLE)

__getattr__: Any = missing_module_getattr(
    "onnx.onnx_ml_pb2",
    "a google.protobuf FileDescriptor cannot be made without protobuf (each class's DESCRIPTOR is provided)",
    frozenset({"DESCRIPTOR"}),
)
