"""Safetensors names over every short sequence of colliding tensor names, judged twice: by
the rule wirecodec's docs state (``wirecodec/files/safetensors/names.py``: a usable,
first-seen name is kept; every other tensor gets the smallest free ``<name>.<n>``), written
here from the words, and by the ``safetensors`` package reading the files we write (one
key per tensor, each holding that tensor's values, nothing under ``__metadata__``).

The alphabet holds the names that collide: a repeated name, the suffixes a repeat would
take (``w.1``, ``w.2``), the unnamed fallback's (``tensor.1``), the reserved
``__metadata__`` and the empty name. Every sequence of up to four of them is named
(1,554 models); a sample is saved and read back by safetensors and by us.
"""

from __future__ import annotations

import itertools
import json
import pathlib
import struct

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, OperatorSetIdProto, TensorProto
from wirecodec.files.safetensors.names import named_tensors

st_numpy = pytest.importorskip("safetensors.numpy", reason="the safetensors package reads what we write")

_ALPHABET = ("w", "w.1", "w.2", "", "__metadata__", "tensor.1")
_RESERVED = "__metadata__"


def _usable(name: str) -> bool:
    return bool(name) and name != _RESERVED


def _expected(names: list[str]) -> list[str]:
    """The documented rule, step by step (names.py's module docstring)."""
    taken: set[str] = set()
    kept: list[str | None] = []
    for name in names:  # step 1, over the whole model first
        if _usable(name) and name not in taken:
            taken.add(name)
            kept.append(name)
        else:
            kept.append(None)
    out = []
    for name, keep in zip(names, kept, strict=True):  # step 2
        if keep is None:
            # (``__metadata__`` is a usable base: ``__metadata__.1`` is an ordinary name)
            base = name if name else "tensor"
            n = 1
            while f"{base}.{n}" in taken:
                n += 1
            keep = f"{base}.{n}"
            taken.add(keep)
        out.append(keep)
    return out


def _model(names: list[str]) -> ModelProto:
    # Each tensor holds its own index (16 floats, past any inline threshold once forced out).
    tensors = [
        TensorProto(
            name=name, data_type=TensorProto.FLOAT, dims=[16], raw_data=np.full(16, i, "<f4").tobytes()
        )
        for i, name in enumerate(names)
    ]
    graph = GraphProto(name="g", initializer=tensors)
    return ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)


def _sequences() -> list[list[str]]:
    return [list(s) for k in range(1, 5) for s in itertools.product(_ALPHABET, repeat=k)]


def test_every_short_sequence_of_colliding_names_follows_the_documented_rule() -> None:
    checked = 0
    for names in _sequences():
        got = [name for _, name, _ in named_tensors(_model(names))]
        assert got == _expected(names), names
        assert len(set(got)) == len(got), names
        checked += 1
    assert checked == sum(len(_ALPHABET) ** k for k in range(1, 5))


def _header_keys(path: pathlib.Path) -> list[str]:
    """The header's keys as written, duplicates kept (a dict would hide a repeated key)."""
    raw = path.read_bytes()
    (size,) = struct.unpack("<Q", raw[:8])
    pairs: list[tuple[str, object]] = json.loads(raw[8 : 8 + size], object_pairs_hook=lambda p: p)
    return [key for key, _ in pairs]


@pytest.mark.parametrize(
    "names",
    [
        ["w", "w", "w.1", "w.2"],
        ["w.1", "w", "w", "w"],
        ["", "tensor.1", "", "tensor.2"],
        ["__metadata__", "__metadata__.1", "__metadata__", "w"],
        ["w", "w", "w", "w.3", "w.1", "w.2"],
    ],
)
def test_saved_files_hold_one_key_per_tensor_as_safetensors_reads_them(
    tmp_path: pathlib.Path, names: list[str]
) -> None:
    model = _model(names)
    wirecodec.save(model, tmp_path / "m.onnx", external_data="m.safetensors", size_threshold=0)
    keys = _header_keys(tmp_path / "m.safetensors")
    expected = _expected(names)
    assert sorted(k for k in keys if k != _RESERVED) == sorted(expected)
    assert len(keys) == len(set(keys))
    read = st_numpy.load_file(str(tmp_path / "m.safetensors"))
    for index, name in enumerate(expected):
        np.testing.assert_array_equal(read[name], np.full(16, index, np.float32))
    loaded = wirecodec.load(tmp_path / "m.onnx")
    values = [int(wirecodec.to_array(t)[0]) for t in loaded.graph.initializer]
    assert values == list(range(len(names)))
    attached = wirecodec.attach_weights(_model(names), tmp_path / "m.safetensors")
    assert [t.name for t in attached.graph.initializer] == names
