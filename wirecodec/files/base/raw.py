"""The bytes of a tensor kept in the model, in ``raw_data``'s layout: what every writer
that moves tensors out of the model (external data, safetensors, ``.onnxz`` entries)
writes for it."""

from __future__ import annotations

from typing import Any

from schema_dsl.onnx import TensorProto
from wirecodec.protobuf.lazy import waiting_bytes

__all__ = ["raw_bytes"]


def raw_bytes(tensor: TensorProto) -> Any:
    """``tensor``'s payload as raw bytes: its ``raw_data`` still waiting to be fetched (a
    model by URL: a ``PendingBytes``, fetched when written and not kept), its ``raw_data``,
    or its typed data converted (a :class:`~wirecodec.TensorError` when that is not a
    valid array). The caller has ruled out external data and strings."""
    waiting = waiting_bytes(tensor, "raw_data")
    if waiting is not None:
        return waiting
    if tensor.HasField("raw_data"):
        return tensor.raw_data
    # Typed data becomes raw_data through an array: only here is numpy needed (docs/platforms.md).
    from wirecodec.tensors.reading import to_array
    from wirecodec.tensors.writing import from_array

    return from_array(to_array(tensor), data_type=tensor.data_type).raw_data
