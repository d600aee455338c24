"""``onnx._mapping``: ``TENSOR_TYPE_MAP``, each element type's numpy dtype, storage type and name.

The table is built from wirecodec's element-type table (:mod:`wirecodec.tensors.dtypes`,
:func:`wirecodec.helper.tensor_dtype_to_storage_tensor_dtype`), whose facts come from
onnx's; ``tests/differential/test_onnx_compat_names.py`` requires it to equal onnx's.
Types numpy lacks (``BFLOAT16``, the float8, 4-, 2- and 6-bit types) have their
``ml_dtypes`` dtype, as in onnx, which requires that package; without it they have the
storage dtype (``uint16``/``uint8``) that holds their bits.

>>> from wirecodec.onnx_compat._mapping import TENSOR_TYPE_MAP
>>> TENSOR_TYPE_MAP[10]
TensorDtypeMap(np_dtype=dtype('float16'), storage_dtype=6, name='TensorProto.FLOAT16')
"""

from __future__ import annotations

from typing import Any, NamedTuple

from wirecodec._helper.element_types import tensor_dtype_to_storage_tensor_dtype, tensor_dtype_to_string
from wirecodec.tensors.dtypes import INFOS, result_dtype

__all__ = ["TENSOR_TYPE_MAP", "TensorDtypeMap"]


class TensorDtypeMap(NamedTuple):
    """One element type: its numpy dtype, the type whose typed field stores it, its name."""

    np_dtype: Any  # a numpy dtype
    storage_dtype: int
    name: str


TENSOR_TYPE_MAP: dict[int, TensorDtypeMap] = {
    code: TensorDtypeMap(
        result_dtype(info), int(tensor_dtype_to_storage_tensor_dtype(code)), tensor_dtype_to_string(code)
    )
    for code, info in INFOS.items()
}
"""Element type (``TensorProto.DataType`` value) -> :class:`TensorDtypeMap`."""
