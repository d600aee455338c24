"""TensorProto → numpy: ``raw_data`` as a zero-copy view where the layout allows, typed fields copied."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from typing import Any, Final

from wirecodec.errors import NumpyMissingError

try:
    import numpy as np
except ImportError as exc:  # the one error that says so (docs/platforms.md)
    raise NumpyMissingError() from exc
import numpy.typing as npt

from schema_dsl.onnx import TensorProto
from wirecodec.errors import TensorDecodeError, TensorError
from wirecodec.protobuf.runtime import NaN32
from wirecodec.tensors.dtypes import TYPED_FIELDS, DataType, Info, info_of, label, result_dtype
from wirecodec.tensors.packing import unpack_bits

__all__ = ["array_from_raw", "to_array"]


_INT64_MAX: Final = (1 << 63) - 1
_MAX_NDIM: Final = 64  # numpy's limit on the number of dimensions
# Checked through the module so tests can exercise the big-endian paths on any host.
_LITTLE_ENDIAN_HOST: bool = sys.byteorder == "little"


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
    buffer: Any, info: Info, shape: tuple[int, ...], count: int, copy: bool, where: str
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
    result = result_dtype(info)
    fresh = False
    if info.packed:
        codes = unpack_bits(np.frombuffer(view, dtype=np.uint8), info.bits, count)
        flat: npt.NDArray[Any] = codes.view(result)
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


def _typed_count(info: Info, count: int) -> int:
    if info.code in (DataType.COMPLEX64, DataType.COMPLEX128):
        return 2 * count
    if info.bits in (2, 4):
        return (count * info.bits + 7) // 8  # each int32_data entry holds one packed byte
    return count


def _from_typed(tensor: TensorProto, info: Info, count: int, where: str) -> npt.NDArray[Any]:
    values = getattr(tensor, info.field)
    expected = _typed_count(info, count)
    if len(values) != expected:
        raise TensorError(
            f"{where}: {info.field} has {len(values)} values but dims {list(tensor.dims)} of "
            f"{info.name} need {expected}"
        )
    result = result_dtype(info)
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
    except TensorError:
        raise  # already names the element (a string that is not UTF-8)
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
        codes = unpack_bits(codes, info.bits, count)
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
            reason = f"{exc.reason} ({where}: string_data[{i}] is not valid UTF-8; "
            reason += "read tensor.string_data for the raw bytes)"
            raise TensorDecodeError(exc.encoding, exc.object, exc.start, exc.end, reason) from None
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
    where = label(name)
    info = info_of(data_type, where)
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
    where = label(tensor.name)
    if tensor.HasField("segment"):
        raise TensorError(f"{where}: segmented tensors (TensorProto.segment) are not supported")
    if tensor.data_location == TensorProto.DataLocation.EXTERNAL:
        raise TensorError(
            f"{where}: the data is stored externally (data_location=EXTERNAL); load the model "
            "with wirecodec.load(...) or use the external-data module to read it"
        )
    info = info_of(tensor.data_type, where)
    shape, count = _shape(tensor.dims, where)
    # the fields present, from the message's own list: reading each typed field to find it
    # empty makes (and stores) an empty list per field, most of a model's first compile
    listed = {spec.name for spec, _ in tensor.ListFields()}
    present = [f for f in TYPED_FIELDS if f in listed]
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
