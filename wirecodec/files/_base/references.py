"""A tensor made to refer to its bytes elsewhere: the one way the writers point a tensor at a
file or a container entry (the zip container, safetensors files, a replaced model)."""

from __future__ import annotations

from typing import Final

from schema_dsl.message import shallow_copy
from schema_dsl.onnx import StringStringEntryProto, TensorProto

__all__ = ["DATA_FIELDS", "as_reference"]

DATA_FIELDS: Final = ("raw_data", "float_data", "int32_data", "int64_data", "double_data", "uint64_data")
"""The fields that hold a numeric tensor's elements (what a reference replaces)."""

_EXTERNAL: Final = int(TensorProto.DataLocation.EXTERNAL)


def as_reference(tensor: TensorProto, location: str, offset: int, length: int) -> TensorProto:
    """A copy of ``tensor`` whose data is ``length`` bytes at ``offset`` of ``location``.

    The copy shares everything else with ``tensor``, which is left as it was; an offset of
    0 is not written (it is the default).
    """
    moved = shallow_copy(tensor)
    for spec, _ in tensor.ListFields():
        if spec.name in DATA_FIELDS:
            moved.ClearField(spec.name)
    moved.data_type = tensor.data_type
    moved.data_location = _EXTERNAL
    refs = [StringStringEntryProto(key="location", value=location)]
    if offset:
        refs.append(StringStringEntryProto(key="offset", value=str(offset)))
    refs.append(StringStringEntryProto(key="length", value=str(length)))
    moved.external_data = refs
    return moved
