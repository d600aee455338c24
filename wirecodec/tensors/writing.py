"""numpy → TensorProto, written the way ``onnx.numpy_helper.from_array`` writes it."""

from __future__ import annotations

from typing import Any

from wirecodec.errors import NumpyMissingError

try:
    import numpy as np
except ImportError as exc:  # the one error that says so (docs/platforms.md)
    raise NumpyMissingError() from exc
import numpy.typing as npt

from schema_dsl.onnx import TensorProto
from wirecodec.errors import TensorEncodeError, TensorError
from wirecodec.tensors.dtypes import DataType, Info, data_type_of, info_of, label
from wirecodec.tensors.minifloat import storage_codes
from wirecodec.tensors.packing import pack_bits

__all__ = ["from_array"]


def _string_data(array: npt.NDArray[Any], where: str) -> list[bytes]:
    out: list[bytes] = []
    for i, item in enumerate(array.reshape(-1).tolist()):
        if isinstance(item, str):
            try:
                out.append(item.encode("utf-8"))
            except UnicodeEncodeError as exc:
                reason = f"{exc.reason} ({where}: element {i} has no UTF-8 form)"
                raise TensorEncodeError(exc.encoding, exc.object, exc.start, exc.end, reason) from None
        elif isinstance(item, bytes):
            out.append(item)
        else:
            kind = type(item).__name__
            raise TensorError(f"{where}: element {i} is a {kind}; string tensors hold str or bytes")
    return out


def _codes_for(array: npt.NDArray[Any], info: Info, where: str) -> npt.NDArray[Any]:
    """Element bits of an array given for a type numpy lacks (ml_dtypes, storage, or int values)."""
    if info.code in (DataType.INT4, DataType.INT2) and array.dtype == np.int8:
        # int8 *values* (a storage array would be uint8 holding the two's-complement bits).
        low, high = -(1 << (info.bits - 1)), (1 << (info.bits - 1)) - 1
        if array.size and (array.min() < low or array.max() > high):
            raise TensorError(f"{where}: values outside {info.name}'s range [{low}, {high}]")
        return array.view(np.uint8) & np.uint8((1 << info.bits) - 1)
    try:
        codes = storage_codes(array, info)
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
    where = label(name or "")
    code = data_type_of(array.dtype) if data_type is None else int(data_type)
    info = info_of(code, where)
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
            flat = pack_bits(codes.reshape(-1), info.bits)
        else:
            flat = codes.astype(info.storage.newbyteorder("<"), copy=False)
    tensor.data_type = code
    if not copy and flat.flags.c_contiguous and flat.dtype.kind != "O":
        tensor.raw_data = flat.reshape(-1).view(np.uint8).data.toreadonly()
    else:
        tensor.raw_data = flat.tobytes()
    return tensor
