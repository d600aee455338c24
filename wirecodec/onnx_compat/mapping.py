"""``onnx.mapping``: the element-type tables onnx had before 1.17 (it now keeps ``onnx._mapping``).

Each is what onnx 1.16 derived from ``TENSOR_TYPE_MAP``, over today's table
(:mod:`~wirecodec.onnx_compat._mapping`): ``TENSOR_TYPE_TO_NP_TYPE``,
``TENSOR_TYPE_TO_STORAGE_TENSOR_TYPE``, ``NP_TYPE_TO_TENSOR_TYPE`` (the types numpy has
itself), ``STORAGE_TENSOR_TYPE_TO_FIELD``, ``STORAGE_ELEMENT_TYPE_TO_FIELD`` and
``OPTIONAL_ELEMENT_TYPE_TO_FIELD``.

>>> from wirecodec.onnx_compat import mapping
>>> mapping.STORAGE_TENSOR_TYPE_TO_FIELD[1], mapping.TENSOR_TYPE_TO_STORAGE_TENSOR_TYPE[10]
('float_data', 6)
"""

from __future__ import annotations

from typing import Any

from schema_dsl.onnx import OptionalProto, SequenceProto
from schema_dsl.onnx import TensorProto as _T  # noqa: N814  (short: the table reads as onnx's)
from wirecodec.onnx_compat._mapping import TENSOR_TYPE_MAP, TensorDtypeMap
from wirecodec.tensors.dtypes import INFOS

__all__ = [
    "NP_TYPE_TO_TENSOR_TYPE",
    "OPTIONAL_ELEMENT_TYPE_TO_FIELD",
    "STORAGE_ELEMENT_TYPE_TO_FIELD",
    "STORAGE_TENSOR_TYPE_TO_FIELD",
    "TENSOR_TYPE_MAP",
    "TENSOR_TYPE_TO_NP_TYPE",
    "TENSOR_TYPE_TO_STORAGE_TENSOR_TYPE",
    "TensorDtypeMap",
]

TENSOR_TYPE_TO_NP_TYPE: dict[int, Any] = {code: entry.np_dtype for code, entry in TENSOR_TYPE_MAP.items()}
TENSOR_TYPE_TO_STORAGE_TENSOR_TYPE: dict[int, int] = {
    code: entry.storage_dtype for code, entry in TENSOR_TYPE_MAP.items()
}
# numpy's own types only: a dtype of ml_dtypes, or a storage dtype standing in for one, names
# no single element type.
NP_TYPE_TO_TENSOR_TYPE: dict[Any, int] = {
    entry.np_dtype: code for code, entry in TENSOR_TYPE_MAP.items() if INFOS[code].native_name is not None
}
STORAGE_TENSOR_TYPE_TO_FIELD: dict[int, str] = {
    int(_T.FLOAT): "float_data",
    int(_T.INT32): "int32_data",
    int(_T.INT64): "int64_data",
    int(_T.UINT16): "int32_data",
    int(_T.DOUBLE): "double_data",
    int(_T.COMPLEX64): "float_data",
    int(_T.COMPLEX128): "double_data",
    int(_T.UINT32): "uint64_data",
    int(_T.UINT64): "uint64_data",
    int(_T.STRING): "string_data",
    int(_T.BOOL): "int32_data",
}
STORAGE_ELEMENT_TYPE_TO_FIELD: dict[int, str] = {
    int(SequenceProto.TENSOR): "tensor_values",
    int(SequenceProto.SPARSE_TENSOR): "sparse_tensor_values",
    int(SequenceProto.SEQUENCE): "sequence_values",
    int(SequenceProto.MAP): "map_values",
}
OPTIONAL_ELEMENT_TYPE_TO_FIELD: dict[int, str] = {
    int(OptionalProto.TENSOR): "tensor_value",
    int(OptionalProto.SPARSE_TENSOR): "sparse_tensor_value",
    int(OptionalProto.SEQUENCE): "sequence_value",
    int(OptionalProto.MAP): "map_value",
    int(OptionalProto.OPTIONAL): "optional_value",
}
