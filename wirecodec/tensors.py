"""TensorProto ↔ numpy for every element type of ONNX IR version 14.

:func:`to_array` reads a tensor's elements from ``raw_data`` or from the typed field the
spec assigns to its ``data_type`` (``float_data``, ``int32_data``, ``int64_data``,
``uint64_data``, ``double_data``, ``string_data``); :func:`from_array` writes an array
the way ``onnx.numpy_helper.from_array`` does, byte for byte.

>>> import numpy as np
>>> from wirecodec.tensors import from_array, to_array
>>> tensor = from_array(np.array([[1.5, -2.0]], dtype=np.float32), "w")
>>> tensor.dims, tensor.data_type, bytes(tensor.raw_data)
([1, 2], 1, b'\\x00\\x00\\xc0?\\x00\\x00\\x00\\xc0')
>>> to_array(tensor)
array([[ 1.5, -2. ]], dtype=float32)

**Zero copy.** For fixed-width types stored in ``raw_data`` the result is a read-only
view of the tensor's buffer (for a decoded tensor: of the bytes it was decoded from).
A copy is unavoidable for typed fields, strings, packed sub-byte types (int4, uint4,
int2, uint2, float4e2m1, float6e2m3, float6e3m2), bool ``raw_data`` holding bytes other
than 0 and 1, and every multi-byte type on a big-endian host. ``copy=True`` always gives
a fresh, writable, aligned array owned by the caller.

**Element types numpy lacks** (bfloat16, the float8/float6/float4 formats, int4, uint4,
int2, uint2) come back as the ``ml_dtypes`` types ``onnx`` uses when that package is
installed. Without it they come back as *storage arrays*: ``uint16`` (bfloat16) or
``uint8`` holding each element's bits, one element per item, sub-byte types unpacked
(an int4 -2 is ``0x0E``). :func:`to_float32` turns either form into float32 values and
:func:`from_array` accepts storage arrays with an explicit ``data_type=``.

Errors: every problem with a tensor's content is a :class:`TensorError` naming the
tensor; nothing is allocated from ``dims`` before the payload is known to hold that
many elements.
"""

from __future__ import annotations

import functools
import importlib
import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from schema_dsl.onnx import TensorProto
from wirecodec._runtime import NaN32
from wirecodec.errors import TensorError

__all__ = [
    "TensorError",
    "array_from_raw",
    "data_type_of",
    "from_array",
    "ml_dtypes_available",
    "numpy_dtype",
    "raw_size",
    "to_array",
    "to_float32",
]

DataType = TensorProto.DataType

_INT64_MAX: Final = (1 << 63) - 1
_MAX_NDIM: Final = 64  # numpy's limit on the number of dimensions
# Checked through the module so tests can exercise the big-endian paths on any host.
_LITTLE_ENDIAN_HOST: bool = sys.byteorder == "little"



# -- the element types ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Info:
    code: int
    field: str  # the typed field the spec assigns (used when raw_data is absent)
    bits: int  # bits per element in raw_data (0: not storable in raw_data)
    native: np.dtype[Any] | None  # the numpy dtype, when numpy has the type
    ml_name: str | None  # the ml_dtypes type otherwise
    storage: np.dtype[Any]  # what holds one element's bits without ml_dtypes

    @property
    def name(self) -> str:
        return DataType(self.code).name

    @property
    def packed(self) -> bool:
        # Several elements share a byte in raw_data (sub-byte types).
        return 0 < self.bits < 8


def _n(code: DataType, field: str, bits: int, dtype: type[Any]) -> _Info:
    dt = np.dtype(dtype)
    return _Info(int(code), field, bits, dt, None, dt)


def _ml(code: DataType, bits: int, ml_name: str) -> _Info:
    storage = np.dtype(np.uint16 if bits == 16 else np.uint8)
    return _Info(int(code), "int32_data", bits, None, ml_name, storage)


_INFOS: Final[dict[int, _Info]] = {
    info.code: info
    for info in (
        _n(DataType.FLOAT, "float_data", 32, np.float32),
        _n(DataType.UINT8, "int32_data", 8, np.uint8),
        _n(DataType.INT8, "int32_data", 8, np.int8),
        _n(DataType.UINT16, "int32_data", 16, np.uint16),
        _n(DataType.INT16, "int32_data", 16, np.int16),
        _n(DataType.INT32, "int32_data", 32, np.int32),
        _n(DataType.INT64, "int64_data", 64, np.int64),
        _n(DataType.STRING, "string_data", 0, np.object_),
        _n(DataType.BOOL, "int32_data", 8, np.bool_),
        _n(DataType.FLOAT16, "int32_data", 16, np.float16),
        _n(DataType.DOUBLE, "double_data", 64, np.float64),
        _n(DataType.UINT32, "uint64_data", 32, np.uint32),
        _n(DataType.UINT64, "uint64_data", 64, np.uint64),
        _n(DataType.COMPLEX64, "float_data", 64, np.complex64),
        _n(DataType.COMPLEX128, "double_data", 128, np.complex128),
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

_TYPED_FIELDS: Final = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


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


def _info(data_type: int, where: str) -> _Info:
    info = _INFOS.get(data_type)
    if info is None:
        if data_type == DataType.UNDEFINED:
            raise TensorError(f"{where}: data_type is UNDEFINED (0); a tensor needs an element type")
        raise TensorError(f"{where}: unknown data_type {data_type} (IR 14 knows 1..{max(_INFOS)})")
    return info


def _result_dtype(info: _Info) -> np.dtype[Any]:
    if info.native is not None:
        return info.native
    ml = _ml_dtypes()
    if ml is None:
        return info.storage
    dtype: np.dtype[Any] = np.dtype(getattr(ml, str(info.ml_name)))
    return dtype


def numpy_dtype(data_type: int) -> np.dtype[Any]:
    """The dtype :func:`to_array` returns for ``data_type``.

    >>> numpy_dtype(TensorProto.DataType.FLOAT16)
    dtype('float16')
    >>> numpy_dtype(TensorProto.DataType.STRING)
    dtype('O')

    For types numpy lacks it is the ``ml_dtypes`` type when that package is
    installed, and the storage dtype (``uint8``/``uint16``) otherwise.
    """
    return _result_dtype(_info(data_type, "data_type"))


def raw_size(data_type: int, count: int) -> int:
    """The exact ``raw_data`` length of ``count`` elements of ``data_type``.

    Sub-byte types pack: 4-bit types two per byte, 2-bit types four per byte,
    6-bit types four per three bytes, each rounded up to whole bytes.

    >>> raw_size(TensorProto.DataType.FLOAT, 3), raw_size(TensorProto.DataType.INT4, 3)
    (12, 2)
    >>> raw_size(TensorProto.DataType.FLOAT6E2M3, 5)
    4
    """
    info = _info(data_type, "data_type")
    if info.bits == 0:
        raise TensorError(f"{info.name} tensors cannot be stored in raw_data")
    if count < 0:
        raise TensorError(f"element count {count} is negative")
    return (count * info.bits + 7) // 8


def _where(name: str) -> str:
    return f"tensor {name!r}" if name else "tensor (unnamed)"


# -- shapes ------------------------------------------------------------------------------------


def _shape(dims: Sequence[int], where: str) -> tuple[tuple[int, ...], int]:
    shape = tuple(int(d) for d in dims)
    if any(d < 0 for d in shape):
        raise TensorError(f"{where}: dims {list(shape)} has a negative dimension")
    if len(shape) > _MAX_NDIM:
        raise TensorError(f"{where}: {len(shape)} dimensions; numpy supports at most {_MAX_NDIM}")
    count = math.prod(shape)
    if count > _INT64_MAX:
        raise TensorError(f"{where}: dims {list(shape)} hold {count} elements, more than int64 can count")
    return shape, count


def _reshape(flat: npt.NDArray[Any], shape: tuple[int, ...], where: str) -> npt.NDArray[Any]:
    try:
        return flat.reshape(shape)
    except ValueError as exc:
        # Only an empty array can get here (sizes were checked): numpy refuses shapes
        # such as (0, 2**62) whose non-zero dims overflow its byte count.
        raise TensorError(f"{where}: numpy cannot represent shape {list(shape)}: {exc}") from None


# -- packing of sub-byte types ------------------------------------------------------------------


def _group(bits: int) -> tuple[int, int]:
    # Elements per group and bytes per group: the smallest run that ends on a byte boundary.
    per = 8 // math.gcd(bits, 8)
    return per, per * bits // 8


def _unpack(data: npt.NDArray[np.uint8], bits: int, count: int) -> npt.NDArray[np.uint8]:
    """Little-endian bit stream of ``bits``-wide codes → one code per uint8 (``count`` of them)."""
    per, nbytes = _group(bits)
    groups = -(-count // per)
    mask = (1 << bits) - 1
    word: npt.NDArray[Any]
    if nbytes == 1:
        word = data[:groups]
    else:
        # Assemble each group's bytes into one integer; a short final group is zero padded.
        word = np.zeros(groups, dtype=np.uint32)
        full = min(data.size // nbytes, groups)
        for j in range(nbytes):
            word[:full] |= data[j : full * nbytes : nbytes].astype(np.uint32) << np.uint32(8 * j)
        for j, byte in enumerate(data[full * nbytes : groups * nbytes].tolist()):
            word[full] |= np.uint32(byte << (8 * j))
    out = np.empty((groups, per), dtype=np.uint8)
    for i in range(per):
        out[:, i] = (word >> (i * bits)) & mask
    return out.reshape(-1)[:count]


def _pack(codes: npt.NDArray[np.uint8], bits: int) -> npt.NDArray[np.uint8]:
    """One code per uint8 → the packed little-endian bit stream, zero padded to whole bytes."""
    per, nbytes = _group(bits)
    count = codes.size
    groups = -(-count // per)
    padded = np.zeros(groups * per, dtype=np.uint8)
    padded[:count] = codes.reshape(-1) & np.uint8((1 << bits) - 1)
    lanes = padded.reshape(groups, per)
    size = (count * bits + 7) // 8
    if nbytes == 1:
        packed = lanes[:, 0].copy()
        for i in range(1, per):
            packed |= lanes[:, i] << (i * bits)
        return packed[:size]
    word = np.zeros(groups, dtype=np.uint32)
    for i in range(per):
        word |= lanes[:, i].astype(np.uint32) << np.uint32(i * bits)
    grouped = word.astype("<u4").view(np.uint8).reshape(groups, 4)[:, :nbytes]
    return grouped.reshape(-1)[:size]


# -- reading ------------------------------------------------------------------------------------


def _byte_view(buffer: Any, where: str) -> memoryview:
    try:
        view = memoryview(buffer)
    except TypeError:
        raise TensorError(f"{where}: raw data must be bytes-like, got {type(buffer).__name__}") from None
    if not view.c_contiguous:
        raise TensorError(f"{where}: raw data must be a C-contiguous buffer")
    if view.ndim != 1 or view.itemsize != 1 or view.format not in ("B", "b", "c"):
        view = view.cast("B")
    return view


def _from_raw(
    buffer: Any, info: _Info, shape: tuple[int, ...], count: int, copy: bool, where: str
) -> npt.NDArray[Any]:
    if info.bits == 0:
        raise TensorError(f"{where}: {info.name} tensors cannot use raw_data (the spec requires string_data)")
    view = _byte_view(buffer, where)
    expected = (count * info.bits + 7) // 8
    if view.nbytes != expected:
        per = f"{info.bits} bits" if info.packed else f"{info.bits // 8} bytes"
        raise TensorError(
            f"{where}: raw_data has {view.nbytes} bytes but dims {list(shape)} of {info.name} "
            f"({per} per element) need {expected}"
        )
    result = _result_dtype(info)
    fresh = False
    if info.packed:
        flat: npt.NDArray[Any] = _unpack(np.frombuffer(view, dtype=np.uint8), info.bits, count).view(result)
        fresh = True
    elif info.code == DataType.BOOL:
        flat = np.frombuffer(view, dtype=np.uint8)
        if flat.size and flat.max() > 1:
            # The spec writes true as 1; any other non-zero byte still means true, but
            # numpy needs canonical bools, so this one case copies.
            flat = flat != 0
            fresh = True
        else:
            flat = flat.view(np.bool_)
    elif info.native is None:
        storage = np.frombuffer(view, dtype=info.storage.newbyteorder("<"))
        if not _LITTLE_ENDIAN_HOST and info.storage.itemsize > 1:
            storage = storage.astype(info.storage)
            fresh = True
        flat = storage.view(result)
    else:
        flat = np.frombuffer(view, dtype=info.native.newbyteorder("<"))
        if not _LITTLE_ENDIAN_HOST and info.native.itemsize > 1:
            flat = flat.astype(info.native)
            fresh = True
    if not fresh:
        # A view, even of a writable buffer, is handed out read-only: writing through it
        # would silently change the tensor (and the model file's bytes in memory).
        flat.flags.writeable = False
    out = _reshape(flat, shape, where)
    return out.copy() if copy and not fresh else out


def _float32_array(values: Sequence[float]) -> npt.NDArray[np.float32]:
    wide = np.array(values, dtype=np.float64)
    with np.errstate(over="ignore"):  # floats beyond float32 become ±inf, as in C
        out = wide.astype(np.float32)
    if np.isnan(wide).any():
        # A float32 NaN read from the wire keeps its exact bits (signalling NaNs included).
        bits = out.view(np.uint32)
        for i in np.flatnonzero(np.isnan(wide)):
            v = values[int(i)]
            if isinstance(v, NaN32):
                bits[i] = int.from_bytes(v.bits, "little")
    return out


def _typed_count(info: _Info, count: int) -> int:
    if info.code in (DataType.COMPLEX64, DataType.COMPLEX128):
        return 2 * count
    if info.bits in (2, 4):
        return (count * info.bits + 7) // 8  # each int32_data entry holds one packed byte
    return count


def _from_typed(tensor: TensorProto, info: _Info, count: int, where: str) -> npt.NDArray[Any]:
    values = getattr(tensor, info.field)
    expected = _typed_count(info, count)
    if len(values) != expected:
        raise TensorError(
            f"{where}: {info.field} has {len(values)} values but dims {list(tensor.dims)} of "
            f"{info.name} need {expected}"
        )
    result = _result_dtype(info)
    code = info.code
    try:
        if info.field == "string_data":
            return _strings(values, where)
        if info.field == "float_data":
            return _float32_array(values).view(result)
        if info.field == "double_data":
            return np.array(values, dtype=np.float64).view(result)
        if info.field == "int64_data":
            return np.array(values, dtype=np.int64)
        if info.field == "uint64_data":
            # UINT32 keeps the low 32 bits of each value, as onnx does.
            return np.array(values, dtype=np.uint64).astype(result, copy=False)
        if code == DataType.INT32:
            return np.array(values, dtype=np.int32)
        ints = np.array(values, dtype=np.int64)
    except OverflowError as exc:
        raise TensorError(f"{where}: {info.field} holds a value out of range: {exc}") from None
    except (TypeError, ValueError) as exc:
        # Only reachable for a message built in Python with non-numbers in the field.
        raise TensorError(f"{where}: {info.field} holds a value that is not a number: {exc}") from None
    if code == DataType.BOOL:
        # Any non-zero value is true; numpy needs the canonical byte 1.
        truth: npt.NDArray[np.bool_] = ints != 0
        return truth
    # Only the low bits of each int32 entry carry the element (or the packed byte);
    # sign-extended or not, the bits come out the same.
    if info.bits == 16:
        wide: npt.NDArray[Any] = (ints & 0xFFFF).astype(np.uint16).view(result)
        return wide
    codes = (ints & (0x3F if info.bits == 6 else 0xFF)).astype(np.uint8)
    if info.bits in (2, 4):
        codes = _unpack(codes, info.bits, count)
    narrow: npt.NDArray[Any] = codes.view(result)
    return narrow


def _strings(values: Sequence[Any], where: str) -> npt.NDArray[np.object_]:
    out = np.empty(len(values), dtype=np.object_)
    for i, value in enumerate(values):
        if isinstance(value, str):
            out[i] = value
            continue
        try:
            out[i] = str(value, "utf-8")
        except UnicodeDecodeError as exc:
            raise TensorError(
                f"{where}: string_data[{i}] is not valid UTF-8 ({exc.reason} at byte {exc.start}); "
                "read tensor.string_data for the raw bytes"
            ) from None
        except TypeError:
            raise TensorError(f"{where}: string_data[{i}] is a {type(value).__name__}, not bytes") from None
    return out


def array_from_raw(
    buffer: Any, data_type: int, dims: Sequence[int], *, copy: bool = False, name: str = ""
) -> npt.NDArray[Any]:
    """Interpret ``buffer`` as ``raw_data`` of a ``data_type`` tensor of shape ``dims``.

    This is :func:`to_array`'s ``raw_data`` path on any bytes-like buffer (an mmap of
    external data, a slice of a file); ``name`` only labels error messages. The
    buffer's length must be exactly :func:`raw_size` of the element count, which is
    checked before anything is allocated.

    >>> array_from_raw(b"\\x01\\x00\\x02\\x00", TensorProto.DataType.INT16, [2])
    array([1, 2], dtype=int16)
    >>> array_from_raw(b"\\x21\\x03", TensorProto.DataType.UINT4, [3]).tolist()
    [1, 2, 3]
    """
    where = _where(name)
    info = _info(data_type, where)
    shape, count = _shape(dims, where)
    return _from_raw(buffer, info, shape, count, copy, where)


def to_array(tensor: TensorProto, *, copy: bool = False) -> npt.NDArray[Any]:
    """The elements of ``tensor`` as a numpy array of shape ``tensor.dims``.

    Equal bit for bit (dtype, shape and bytes) to ``onnx.numpy_helper.to_array`` for
    valid tensors. With ``copy=False`` the result may be a read-only view of the
    tensor's ``raw_data`` (see the module docs for when it is); ``copy=True`` always
    returns a fresh writable array.

    ``raw_data``, when present, holds the elements (the spec's rule); otherwise the
    typed field for ``data_type`` does. Data in both, or in a typed field the spec does
    not assign to ``data_type``, is a :class:`TensorError`. String tensors give an
    object array of ``str``.

    Tensors whose data is external are not read here: load the model with
    ``wirecodec.load`` (or use the external-data module), which resolves the file.

    >>> t = TensorProto(dims=[2, 2], data_type=TensorProto.DataType.INT64, int64_data=[1, 2, 3, 4])
    >>> to_array(t)
    array([[1, 2],
           [3, 4]])
    """
    where = _where(tensor.name)
    if tensor.HasField("segment"):
        raise TensorError(f"{where}: segmented tensors (TensorProto.segment) are not supported")
    if tensor.data_location == TensorProto.DataLocation.EXTERNAL:
        raise TensorError(
            f"{where}: the data is stored externally (data_location=EXTERNAL); load the model "
            "with wirecodec.load(...) or use the external-data module to read it"
        )
    info = _info(tensor.data_type, where)
    shape, count = _shape(tensor.dims, where)
    present = [f for f in _TYPED_FIELDS if len(getattr(tensor, f))]
    if tensor.HasField("raw_data"):
        if present:
            raise TensorError(
                f"{where}: both raw_data and {', '.join(present)} hold data; "
                "the spec allows exactly one value field"
            )
        return _from_raw(tensor.raw_data, info, shape, count, copy, where)
    wrong = [f for f in present if f != info.field]
    if wrong:
        raise TensorError(
            f"{where}: {', '.join(wrong)} holds data, but {info.name} elements belong in {info.field} "
            "or raw_data"
        )
    return _reshape(_from_typed(tensor, info, count, where), shape, where)


# -- float32 conversion (the numpy-only path for types numpy lacks) ----------------------------


def _minifloat_table(exp_bits: int, man_bits: int, bias: int, specials: str) -> npt.NDArray[np.float32]:
    """float32 value of every code of a small float format (sign bit first).

    ``specials``: "ieee" (all-ones exponent is inf/NaN), "fn" (only all-ones
    exponent and mantissa is NaN), "fnuz" (only the negative-zero code is NaN),
    "none" (every code is finite).
    """
    width = 1 + exp_bits + man_bits
    codes = np.arange(1 << width, dtype=np.int64)
    negative = (codes >> (width - 1)) & 1 == 1
    exponent = (codes >> man_bits) & ((1 << exp_bits) - 1)
    mantissa = codes & ((1 << man_bits) - 1)
    normal = exponent > 0
    fraction = np.where(normal, 1.0, 0.0) + mantissa / float(1 << man_bits)
    magnitude = np.ldexp(fraction, np.where(normal, exponent - bias, 1 - bias))
    values = np.where(negative, -magnitude, magnitude)
    top = (1 << exp_bits) - 1
    if specials == "ieee":
        values = np.where(exponent == top, np.where(mantissa == 0, np.inf, np.nan), values)
        values = np.where((exponent == top) & negative, -np.abs(values), values)
    elif specials == "fn":
        nan = (exponent == top) & (mantissa == (1 << man_bits) - 1)
        values = np.where(nan, np.copysign(np.nan, values), values)
    elif specials == "fnuz":
        values = np.where(codes == 1 << (width - 1), np.nan, values)
    return values.astype(np.float32)


def _e8m0_table() -> npt.NDArray[np.float32]:
    codes = np.arange(256, dtype=np.int64)
    values = np.ldexp(1.0, codes - 127)
    return np.where(codes == 255, np.nan, values).astype(np.float32)


# Exponent bits, mantissa bits, bias and special values of each small float format
# (the OCP 8-bit and MX formats and the FNUZ variants of the ONNX spec).
_MINIFLOATS: Final[dict[int, tuple[int, int, int, str]]] = {
    DataType.FLOAT8E4M3FN: (4, 3, 7, "fn"),
    DataType.FLOAT8E4M3FNUZ: (4, 3, 8, "fnuz"),
    DataType.FLOAT8E5M2: (5, 2, 15, "ieee"),
    DataType.FLOAT8E5M2FNUZ: (5, 2, 16, "fnuz"),
    DataType.FLOAT4E2M1: (2, 1, 1, "none"),
    DataType.FLOAT6E2M3: (2, 3, 1, "none"),
    DataType.FLOAT6E3M2: (3, 2, 3, "none"),
}


@functools.cache
def _table(code: int) -> npt.NDArray[np.float32]:
    table = _e8m0_table() if code == DataType.FLOAT8E8M0 else _minifloat_table(*_MINIFLOATS[code])
    table.flags.writeable = False
    return table


def _storage_codes(array: npt.NDArray[Any], info: _Info) -> npt.NDArray[Any]:
    """The storage-array form of ``array`` (an ml_dtypes or storage array of ``info``'s type)."""
    if array.dtype == info.storage:
        return array
    ml = _ml_dtypes()
    if ml is not None and info.ml_name is not None and array.dtype == np.dtype(getattr(ml, info.ml_name)):
        return array.view(info.storage)
    raise TensorError(
        f"an array of dtype {array.dtype} does not hold {info.name} elements "
        f"(expected {info.storage}{'' if info.ml_name is None else ' or ml_dtypes.' + info.ml_name})"
    )


def to_float32(array: npt.NDArray[Any], data_type: int) -> npt.NDArray[np.float32]:
    """The values of ``array``, which holds ``data_type`` elements, as float32.

    Works on what :func:`to_array` returns with or without ``ml_dtypes``: for the
    types numpy lacks it decodes storage arrays (each element's bits) exactly, so no
    extra package is needed. Every value of those types is exact in float32.

    >>> import numpy as np
    >>> to_float32(np.array([0x38, 0xC0, 0x7F], dtype=np.uint8), TensorProto.DataType.FLOAT8E4M3FN)
    array([ 1., -2., nan], dtype=float32)
    >>> to_float32(np.array([0x0E, 0x07], dtype=np.uint8), TensorProto.DataType.INT4)
    array([-2.,  7.], dtype=float32)
    """
    info = _info(data_type, "data_type")
    code = info.code
    if info.native is not None:
        if code in (DataType.STRING, DataType.COMPLEX64, DataType.COMPLEX128):
            raise TensorError(f"{info.name} values have no float32 form")
        if array.dtype.kind in "OUS" or data_type_of(array.dtype) != code:
            raise TensorError(f"an array of dtype {array.dtype} does not hold {info.name} elements")
        with np.errstate(over="ignore"):  # doubles beyond float32 become ±inf
            return array.astype(np.float32)
    codes = _storage_codes(array, info)
    if code == DataType.BFLOAT16:
        return (codes.astype(np.uint32) << np.uint32(16)).view(np.float32)
    codes = codes & np.uint8((1 << info.bits) - 1)
    if code in (DataType.UINT4, DataType.UINT2):
        return codes.astype(np.float32)
    if code in (DataType.INT4, DataType.INT2):
        sign = 1 << (info.bits - 1)
        return ((codes.astype(np.int16) ^ sign) - sign).astype(np.float32)
    values: npt.NDArray[np.float32] = _table(code)[codes]
    return values


# -- writing ------------------------------------------------------------------------------------


_NATIVE_CODES: Final[dict[tuple[str, int], int]] = {
    (info.native.kind, info.native.itemsize): code
    for code, info in _INFOS.items()
    if info.native is not None and info.native.kind != "O"
}


def data_type_of(dtype: npt.DTypeLike) -> int:
    """The ``TensorProto.DataType`` for a numpy dtype (ml_dtypes types included).

    >>> data_type_of(np.float32), data_type_of(np.dtype(">i8")), data_type_of(np.str_)
    (1, 7, 8)
    """
    dt = np.dtype(dtype)
    if dt.kind in "OUS":
        return int(DataType.STRING)
    if dt.type.__module__ == "numpy":
        code = _NATIVE_CODES.get((dt.kind, dt.itemsize))
        if code is not None:
            return code
    else:
        ml = _ml_dtypes()
        if ml is not None:
            for code, info in _INFOS.items():
                if info.ml_name is not None and dt == np.dtype(getattr(ml, info.ml_name)):
                    return code
    raise TensorError(f"numpy dtype {dt} has no ONNX element type")


def _string_data(array: npt.NDArray[Any], where: str) -> list[bytes]:
    out: list[bytes] = []
    for i, item in enumerate(array.reshape(-1).tolist()):
        if isinstance(item, str):
            try:
                out.append(item.encode("utf-8"))
            except UnicodeEncodeError as exc:
                raise TensorError(f"{where}: element {i} is not encodable as UTF-8: {exc.reason}") from None
        elif isinstance(item, bytes):
            out.append(item)
        else:
            kind = type(item).__name__
            raise TensorError(f"{where}: element {i} is a {kind}; string tensors hold str or bytes")
    return out


def _codes_for(array: npt.NDArray[Any], info: _Info, where: str) -> npt.NDArray[Any]:
    """Element bits of an array given for a type numpy lacks (ml_dtypes, storage, or int values)."""
    if info.code in (DataType.INT4, DataType.INT2) and array.dtype == np.int8:
        # int8 *values* (a storage array would be uint8 holding the two's-complement bits).
        low, high = -(1 << (info.bits - 1)), (1 << (info.bits - 1)) - 1
        if array.size and (array.min() < low or array.max() > high):
            raise TensorError(f"{where}: values outside {info.name}'s range [{low}, {high}]")
        return array.view(np.uint8) & np.uint8((1 << info.bits) - 1)
    try:
        codes = _storage_codes(array, info)
    except TensorError as exc:
        raise TensorError(f"{where}: {exc}") from None
    if array.dtype == info.storage and info.packed and codes.size and codes.max() >> info.bits:
        raise TensorError(f"{where}: storage values must fit in {info.bits} bits for {info.name}")
    return codes


def from_array(
    array: Any, name: str | None = None, *, data_type: int | None = None, copy: bool = True
) -> TensorProto:
    """A TensorProto holding ``array``, as ``onnx.numpy_helper.from_array`` writes it.

    Numeric arrays go to ``raw_data`` (little-endian, row-major, sub-byte types
    packed); ``str``/``bytes`` arrays (object, ``U`` or ``S`` dtype) go to
    ``string_data`` as UTF-8. The encoding equals onnx's ``SerializeToString`` byte
    for byte. ``name`` is set only when non-empty, as onnx does.

    ``data_type`` states the element type instead of deriving it from the dtype;
    that is how storage arrays (without ``ml_dtypes``) are written: ``uint16`` for
    BFLOAT16, ``uint8`` holding each element's bits for the other types numpy
    lacks (int8/uint8 *values* are accepted for INT4/UINT4/INT2/UINT2 too).

    ``copy=False`` lets ``raw_data`` be a read-only view of the array's memory when
    its layout already is the wire layout (C-contiguous, little-endian, not packed):
    nothing is copied, and the tensor changes if the array does.

    >>> import numpy as np
    >>> t = from_array(np.array([1, 2, 3], dtype=np.uint8), data_type=TensorProto.DataType.UINT4)
    >>> t.data_type, bytes(t.raw_data)
    (21, b'!\\x03')
    """
    if isinstance(array, np.generic):
        array = np.asarray(array)
    if not isinstance(array, np.ndarray):
        raise TypeError(f"from_array needs a numpy array, got {type(array).__name__}")
    where = _where(name or "")
    code = data_type_of(array.dtype) if data_type is None else int(data_type)
    info = _info(code, where)
    tensor = TensorProto()
    tensor.dims = [int(d) for d in array.shape]
    if name:
        tensor.name = name
    if code == DataType.STRING:
        if array.dtype.kind not in "OUS":
            raise TensorError(f"{where}: STRING needs an object, str or bytes array, got {array.dtype}")
        tensor.data_type = code
        tensor.string_data.extend(_string_data(array, where))
        return tensor
    if info.native is not None:
        if data_type is not None and data_type_of(array.dtype) != code:
            raise TensorError(f"{where}: an array of dtype {array.dtype} does not hold {info.name} elements")
        flat = array.astype(info.native.newbyteorder("<"), copy=False)
    else:
        codes = _codes_for(array, info, where)
        if info.packed:
            flat = _pack(codes.reshape(-1), info.bits)
        else:
            flat = codes.astype(info.storage.newbyteorder("<"), copy=False)
    tensor.data_type = code
    if not copy and flat.flags.c_contiguous and flat.dtype.kind != "O":
        tensor.raw_data = flat.reshape(-1).view(np.uint8).data.toreadonly()
    else:
        tensor.raw_data = flat.tobytes()
    return tensor
