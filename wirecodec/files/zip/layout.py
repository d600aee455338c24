"""Which tensors of a model become zip entries, under which names, and the model that refers to them.

A tensor refers to its entry through the fields IR 14 already has (the proposal's
``TensorProto.external_data`` string field does not exist in IR 14): ``data_location =
EXTERNAL`` and ``external_data`` with ``location`` = the entry name (and ``length``,
plus ``offset`` when a tensor is a part of an entry). So a container unpacked into a
directory, with ``__MODEL_PROTO`` renamed ``model.onnx``, is an ordinary model with
external data that any ONNX reader opens.

Entry names are valid C identifiers (ASCII letters, digits, ``_``; no leading digit),
unique when down-cased, and derived deterministically from the tensor names in model
order: invalid characters become ``_`` and a clash gets ``_2``, ``_3``, ...
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.errors import ExternalDataError, NumpyMissingError, TensorError
from wirecodec.files.base.raw import raw_bytes
from wirecodec.files.base.references import as_reference, parse_ref, uses_external_data
from wirecodec.files.base.walk import ByIdentity, iter_tensors, substitute
from wirecodec.files.zip.records import MODEL_ENTRY
from wirecodec.protobuf.lazy import PendingBytes

__all__ = ["EntryNames", "ZipPlan", "plan_entries"]

_MAX_NAME: Final = 200  # long tensor names are cut; the suffix keeps them unique


class EntryNames:
    """Hands out entry names: C identifiers, unique under down-casing, never ``__MODEL_PROTO``.

    >>> names = EntryNames()
    >>> [names.take(n) for n in ["conv.weight", "Conv_weight", "0.bias", "", "__model_proto"]]
    ['conv_weight', 'Conv_weight_2', '_0_bias', 'tensor', '__model_proto_2']
    """

    def __init__(self) -> None:
        self._used: set[str] = {MODEL_ENTRY.lower()}

    def take(self, tensor_name: str) -> str:
        base = re.sub(r"[^A-Za-z0-9_]", "_", tensor_name)[:_MAX_NAME] or "tensor"
        if base[0].isdigit():
            base = "_" + base
        candidate, n = base, 1
        while candidate.lower() in self._used:
            n += 1
            candidate = f"{base}_{n}"
        self._used.add(candidate.lower())
        return candidate


@dataclass
class ZipPlan:
    """The model to store as ``__MODEL_PROTO`` and each entry's name and bytes, in order."""

    model: ModelProto
    payloads: list[tuple[str, memoryview | PendingBytes]]


def _label(tensor: TensorProto) -> str:
    return f"tensor {tensor.name!r}" if tensor.name else "an unnamed tensor"


def _payload(tensor: TensorProto) -> memoryview | PendingBytes | None:
    """The bytes an entry would hold (raw_data's layout), or None if the tensor stays inline;
    bytes still waiting to be fetched (a model by URL) stay waiting until their entry is written."""
    if uses_external_data(tensor):
        location = parse_ref(tensor).location
        raise ExternalDataError(
            f"{_label(tensor)} still refers to external data {location!r}: load the model with its "
            "external data before saving it as a zip"
        )
    if tensor.data_type == TensorProto.DataType.STRING:
        return None  # strings have no raw layout
    try:
        data = raw_bytes(tensor)
    except (TensorError, NumpyMissingError):
        # Typed data that is not a valid array stays inline, as it was; so does typed data
        # where numpy is missing (WebAssembly): converting it to raw bytes takes an array.
        return None
    if isinstance(data, PendingBytes):
        return data if data.nbytes else None
    view = memoryview(data)
    if view.format != "B" or view.ndim != 1:
        view = view.cast("B")
    return view if view.nbytes else None


def _distinct(tensors: Iterator[TensorProto]) -> Iterator[TensorProto]:
    # Each tensor is held with its id: one the caller drops must not leave its id to a later one.
    seen: dict[int, TensorProto] = {}
    for tensor in tensors:
        if id(tensor) not in seen:
            seen[id(tensor)] = tensor
            yield tensor


def plan_entries(model: ModelProto) -> ZipPlan:
    """Every tensor with numeric data becomes an entry; strings and empty tensors stay inline.

    Raises :class:`ExternalDataError` for a tensor that still refers to an external file.
    The caller's model is not modified.
    """
    names = EntryNames()
    replacements: ByIdentity[TensorProto] = ByIdentity()
    payloads: list[tuple[str, memoryview | PendingBytes]] = []
    for tensor in _distinct(iter_tensors(model)):
        payload = _payload(tensor)
        if payload is None:
            continue
        name = names.take(tensor.name)
        payloads.append((name, payload))
        replacements[tensor] = as_reference(tensor, name, 0, payload.nbytes)
    new_model = substitute(model, replacements)
    assert isinstance(new_model, ModelProto)
    return ZipPlan(new_model, payloads)
