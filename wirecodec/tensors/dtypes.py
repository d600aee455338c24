"""The element types of ONNX IR 14: how each ``TensorProto.DataType`` maps to numpy.

One table (:data:`INFOS`) says, per data type, which typed field holds it, how many
bits an element takes in ``raw_data``, and which numpy (or ``ml_dtypes``) dtype holds
it; the rest of :mod:`wirecodec.tensors` reads it. The table names dtypes by their
numpy names and numpy is imported only when a dtype is asked for, so the checker,
``inspect`` and the printer read sizes and fields from it without numpy.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final

from schema_dsl.onnx import TensorProto
from wirecodec.errors import NumpyMissingError, TensorError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

__all__ = [
    "INFOS",
    "INT_KEY_TYPES",
    "TYPED_FIELDS",
    "Info",
    "data_type_of",
    "info_of",
    "label",
    "ml_dtype",
    "ml_dtypes_available",
    "numpy_dtype",
    "numpy_module",
    "raw_size",
    "result_dtype",
]

DataType = TensorProto.DataType


@dataclass(frozen=True, slots=True)
class Info:
    code: int
    field: str  # the typed field the spec assigns (used when raw_data is absent)
    bits: int  # bits per element in raw_data (0: not storable in raw_data)
    native_name: str | None  # the numpy dtype, when numpy has the type
    ml_name: str | None  # the ml_dtypes type otherwise
    storage_name: str  # what holds one element's bits without ml_dtypes

    @property
    def native(self) -> np.dtype[Any] | None:
        """The numpy dtype, when numpy has the type (imports numpy)."""
        return None if self.native_name is None else _dtype(self.native_name)

    @property
    def storage(self) -> np.dtype[Any]:
        """The numpy dtype holding one element's bits without ml_dtypes (imports numpy)."""
        return _dtype(self.storage_name)

    @property
    def name(self) -> str:
        return DataType(self.code).name

    @property
    def packed(self) -> bool:
        # Several elements share a byte in raw_data (sub-byte types).
        return 0 < self.bits < 8


@functools.cache
def _dtype(name: str) -> np.dtype[Any]:
    return _dtype_of(name)


def numpy_module() -> Any:
    """numpy, imported now; without it the one error that says so (:class:`NumpyMissingError`)."""
    try:
        return importlib.import_module("numpy")
    except ImportError as exc:
        raise NumpyMissingError() from exc


def _n(code: DataType, field: str, bits: int, dtype: str) -> Info:
    return Info(int(code), field, bits, dtype, None, dtype)


def _ml(code: DataType, bits: int, ml_name: str) -> Info:
    return Info(int(code), "int32_data", bits, None, ml_name, "uint16" if bits == 16 else "uint8")


INFOS: Final[dict[int, Info]] = {
    info.code: info
    for info in (
        _n(DataType.FLOAT, "float_data", 32, "float32"),
        _n(DataType.UINT8, "int32_data", 8, "uint8"),
        _n(DataType.INT8, "int32_data", 8, "int8"),
        _n(DataType.UINT16, "int32_data", 16, "uint16"),
        _n(DataType.INT16, "int32_data", 16, "int16"),
        _n(DataType.INT32, "int32_data", 32, "int32"),
        _n(DataType.INT64, "int64_data", 64, "int64"),
        _n(DataType.STRING, "string_data", 0, "object"),
        _n(DataType.BOOL, "int32_data", 8, "bool"),
        _n(DataType.FLOAT16, "int32_data", 16, "float16"),
        _n(DataType.DOUBLE, "double_data", 64, "float64"),
        _n(DataType.UINT32, "uint64_data", 32, "uint32"),
        _n(DataType.UINT64, "uint64_data", 64, "uint64"),
        _n(DataType.COMPLEX64, "float_data", 64, "complex64"),
        _n(DataType.COMPLEX128, "double_data", 128, "complex128"),
        _ml(DataType.BFLOAT16, 16, "bfloat16"),
        _ml(DataType.FLOAT8E4M3FN, 8, "float8_e4m3fn"),
        _ml(DataType.FLOAT8E4M3FNUZ, 8, "float8_e4m3fnuz"),
        _ml(DataType.FLOAT8E5M2, 8, "float8_e5m2"),
        _ml(DataType.FLOAT8E5M2FNUZ, 8, "float8_e5m2fnuz"),
        _ml(DataType.UINT4, 4, "uint4"),
        _ml(DataType.INT4, 4, "int4"),
        _ml(DataType.FLOAT4E2M1, 4, "float4_e2m1fn"),
        _ml(DataType.FLOAT8E8M0, 8, "float8_e8m0fnu"),
        _ml(DataType.UINT2, 2, "uint2"),
        _ml(DataType.INT2, 2, "int2"),
        _ml(DataType.FLOAT6E2M3, 6, "float6_e2m3fn"),
        _ml(DataType.FLOAT6E3M2, 6, "float6_e3m2fn"),
    )
}

# integer element types a map's keys may have (onnx.proto, MapProto)
INT_KEY_TYPES: Final = frozenset(
    int(t)
    for t in (
        TensorProto.DataType.INT8,
        TensorProto.DataType.INT16,
        TensorProto.DataType.INT32,
        TensorProto.DataType.INT64,
        TensorProto.DataType.UINT8,
        TensorProto.DataType.UINT16,
        TensorProto.DataType.UINT32,
        TensorProto.DataType.UINT64,
    )
)

TYPED_FIELDS: Final = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


@functools.cache
def _import_ml_dtypes() -> ModuleType | None:
    try:
        return importlib.import_module("ml_dtypes")
    except ImportError:
        return None


def _ml_dtypes() -> ModuleType | None:
    # The one place that decides whether ml_dtypes is used; tests replace it to
    # simulate an environment without the package.
    return _import_ml_dtypes()


def ml_dtypes_available() -> bool:
    """Whether element types numpy lacks come back as ``ml_dtypes`` types (else storage arrays)."""
    return _ml_dtypes() is not None


def ml_dtype(info: Info) -> np.dtype[Any] | None:
    """The ``ml_dtypes`` dtype of a type numpy lacks, or None (no such package or type)."""
    ml = _ml_dtypes()
    if ml is None or info.ml_name is None:
        return None
    return _dtype_of(getattr(ml, info.ml_name))


def info_of(data_type: int, where: str) -> Info:
    info = INFOS.get(data_type)
    if info is None:
        if data_type == DataType.UNDEFINED:
            raise TensorError(f"{where}: data_type is UNDEFINED (0); a tensor needs an element type")
        raise TensorError(f"{where}: unknown data_type {data_type} (IR 14 knows 1..{max(INFOS)})")
    return info


def result_dtype(info: Info) -> np.dtype[Any]:
    if info.native is not None:
        return info.native
    dtype = ml_dtype(info)
    return info.storage if dtype is None else dtype


def numpy_dtype(data_type: int) -> np.dtype[Any]:
    """The dtype :func:`to_array` returns for ``data_type``.

    >>> numpy_dtype(TensorProto.DataType.FLOAT16)
    dtype('float16')
    >>> numpy_dtype(TensorProto.DataType.STRING)
    dtype('O')

    For types numpy lacks it is the ``ml_dtypes`` type when that package is
    installed, and the storage dtype (``uint8``/``uint16``) otherwise.
    """
    return result_dtype(info_of(data_type, "data_type"))


def raw_size(data_type: int, count: int) -> int:
    """The exact ``raw_data`` length of ``count`` elements of ``data_type``.

    Sub-byte types pack: 4-bit types two per byte, 2-bit types four per byte,
    6-bit types four per three bytes, each rounded up to whole bytes.

    >>> raw_size(TensorProto.DataType.FLOAT, 3), raw_size(TensorProto.DataType.INT4, 3)
    (12, 2)
    >>> raw_size(TensorProto.DataType.FLOAT6E2M3, 5)
    4
    """
    info = info_of(data_type, "data_type")
    if info.bits == 0:
        raise TensorError(f"{info.name} tensors cannot be stored in raw_data")
    if count < 0:
        raise TensorError(f"element count {count} is negative")
    return (count * info.bits + 7) // 8


def label(name: str) -> str:
    return f"tensor {name!r}" if name else "tensor (unnamed)"


def _dtype_of(kind: Any) -> np.dtype[Any]:
    dtype: np.dtype[Any] = numpy_module().dtype(kind)
    return dtype


@functools.cache
def _native_codes() -> dict[tuple[str, int], int]:
    return {
        (native.kind, native.itemsize): code
        for code, info in INFOS.items()
        if (native := info.native) is not None and native.kind != "O"
    }


def data_type_of(dtype: npt.DTypeLike) -> int:
    """The ``TensorProto.DataType`` for a numpy dtype (ml_dtypes types included).

    >>> import numpy as np
    >>> data_type_of(np.float32), data_type_of(np.dtype(">i8")), data_type_of(np.str_)
    (1, 7, 8)
    """
    dt = _dtype_of(dtype)
    if dt.kind in "OUS":
        return int(DataType.STRING)
    if dt.type.__module__ == "numpy":
        code = _native_codes().get((dt.kind, dt.itemsize))
        if code is not None:
            return code
    else:
        ml = _ml_dtypes()
        if ml is not None:
            for code, info in INFOS.items():
                if info.ml_name is not None and dt == _dtype_of(getattr(ml, info.ml_name)):
                    return code
    raise TensorError(f"numpy dtype {dt} has no ONNX element type")
