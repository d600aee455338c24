"""numpy ↔ ONNX values under ``onnx.numpy_helper``'s names and signatures.

Thin names over :mod:`wirecodec.tensors` and :mod:`wirecodec.tensors.values`, which
already read and write exactly what onnx does (``tests/unit/tensors/test_numpy_helper.py`` compares
them on generated values):

>>> import numpy as np
>>> from wirecodec.numpy_helper import from_array, to_array
>>> t = from_array(np.array([0.5, -0.6], dtype=np.float32), name="A")
>>> t.name, t.dims, to_array(t)
('A', [2], array([ 0.5, -0.6], dtype=float32))

Differences from onnx:

* :func:`to_array` may return a **read-only view** of the tensor's ``raw_data`` (no
  copy; for a loaded model, a view of the mapped file). Pass ``copy=True`` for a
  writable array of your own, or call ``.copy()``.
* :func:`to_array` with ``base_dir`` reads an external tensor's data without changing
  the tensor (onnx loads the data into it).
* :func:`to_optional` returns ``None`` for an optional whose ``elem_type`` is set but
  whose value is absent (onnx fails); sequences and optionals of optionals convert.
* :func:`from_array` also takes big-endian arrays (onnx refuses them).
* ``create_random_int`` draws from its own generator (the same numbers for a seed): numpy's
  global random state is left alone.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from wirecodec.errors import NumpyMissingError

try:
    import numpy as np
except ImportError as exc:  # the one error that says so (docs/platforms.md)
    raise NumpyMissingError() from exc
import numpy.typing as npt

from schema_dsl.onnx import MapProto, OptionalProto, SequenceProto, TensorProto
from wirecodec._helper import numpy_extras
from wirecodec._helper.args import as_message
from wirecodec._helper.numpy_extras import create_random_int, saturate_cast, to_float8e8m0
from wirecodec.files.base.references import uses_external_data
from wirecodec.files.external.read import ExternalDataStore
from wirecodec.tensors import array_from_raw
from wirecodec.tensors import from_array as _from_array
from wirecodec.tensors import to_array as _to_array
from wirecodec.tensors import values as _values

__all__ = [
    "create_random_int",
    "saturate_cast",
    "to_float8e8m0",
    "from_array",
    "from_dict",
    "from_list",
    "from_optional",
    "to_array",
    "to_dict",
    "to_list",
    "to_optional",
    "tobytes_little_endian",
]


# onnx's private packers, which code written against onnx (its own tests) imports.
_pack_4bitx2 = numpy_extras.pack_4bitx2
_pack_2bitx4 = numpy_extras.pack_2bitx4
_pack_6bit = numpy_extras.pack_6bit

def to_array(
    tensor: TensorProto, base_dir: str | os.PathLike[str] = "", *, copy: bool = False
) -> npt.NDArray[Any]:
    """The elements of ``tensor`` as a numpy array (a read-only view when it can be one).

    An external tensor's data is read from its file, relative to ``base_dir``.

    >>> to_array(TensorProto(dims=[2], data_type=TensorProto.INT64, int64_data=[1, 2]))
    array([1, 2])
    """
    tensor = as_message(tensor, TensorProto, "to_array: tensor")
    if not uses_external_data(tensor):
        return _to_array(tensor, copy=copy)
    data = ExternalDataStore(base_dir or ".", lazy=not copy).view(tensor)
    return array_from_raw(data, tensor.data_type, tensor.dims, copy=copy, name=tensor.name)


def from_array(array: npt.NDArray[Any], /, name: str | None = None) -> TensorProto:
    """A TensorProto holding ``array`` (in ``raw_data``; ``string_data`` for strings), as onnx writes it.

    >>> bytes(from_array(np.array([1, 2], dtype=np.int16)).raw_data)
    b'\\x01\\x00\\x02\\x00'
    """
    return _from_array(array, name)


def tobytes_little_endian(array: npt.NDArray[Any]) -> bytes:
    """The array's bytes in little-endian byte order (row-major).

    >>> tobytes_little_endian(np.array([1], dtype=">i2"))
    b'\\x01\\x00'
    """
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and not np.little_endian):
        array = array.astype(array.dtype.newbyteorder("<"))
    return array.tobytes()


def to_list(sequence: SequenceProto, *, copy: bool = False) -> list[Any]:
    """The elements of a SequenceProto as a list (arrays, lists, dicts or optionals)."""
    return _values.to_list(sequence, copy=copy)


def from_list(lst: Sequence[Any], name: str | None = None, dtype: int | None = None) -> SequenceProto:
    """A SequenceProto holding ``lst`` (element kind ``dtype`` or inferred from the first value).

    >>> from_list([np.array([1], dtype=np.int64)], "s").elem_type
    1
    """
    return _values.from_list(lst, name, dtype)


def to_dict(map_proto: MapProto, *, copy: bool = False) -> dict[Any, Any]:
    """The entries of a MapProto as a dict (string keys as ``bytes``, as onnx returns them)."""
    return _values.to_dict(map_proto, copy=copy)


def from_dict(dict_: Mapping[Any, Any], name: str | None = None) -> MapProto:
    """A MapProto holding ``dict_`` (keys all integers of one type, or all strings)."""
    return _values.from_dict(dict_, name)


def to_optional(optional: OptionalProto, *, copy: bool = False) -> Any:
    """The value of an OptionalProto, or ``None``."""
    return _values.to_optional(optional, copy=copy)


def from_optional(opt: Any, name: str | None = None, dtype: int | None = None) -> OptionalProto:
    """An OptionalProto holding ``opt`` (``None``: an empty optional)."""
    return _values.from_optional(opt, name, dtype)
