"""Every kind of source the one switch names, holding a plain model and a zip container,
through the switch's own questions and through ``load``, judged by onnx's parse of the
same bytes (wirecodec/files/base/source.py).

Sources: a path as ``str`` and as ``pathlib.Path``; ``bytes``, ``bytearray``, a
``memoryview`` of each, a memoryview of a wider item type, an ``mmap`` of the file; an open
file, a ``BytesIO``, each also positioned past a prefix, and a non-seekable reader. For each:
``classify`` names its kind; ``head_of`` gives its first bytes and leaves a file object
where it was; ``is_zip`` tells a container; ``load`` gives onnx's model (compared by
``==`` of onnx's classes on the re-encoded bytes) and, from a buffer or a map, tensor
bytes that are views of that very object.
"""

from __future__ import annotations

import io
import mmap
import pathlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="onnx's parse of the same bytes is the reference")

import wirecodec  # noqa: E402
from tests.support.pipes import Unseekable  # noqa: E402
from wirecodec.files.base.source import classify, head_of, is_zip  # noqa: E402
from wirecodec.files.zip.container import save_zip  # noqa: E402


def _model_bytes() -> bytes:
    from onnx import helper, numpy_helper

    weight = numpy_helper.from_array(np.arange(64, dtype=np.float32).reshape(8, 8), "w")
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1, 8])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1, 8])],
        [weight],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]).SerializeToString()


_PREFIX = b"not a model: a header the caller skipped"

# name -> (kind classify must say, whether load's tensors are views of the very object)
_KINDS = {
    "str-path": "path",
    "pathlib-path": "path",
    "bytes": "buffer",
    "bytearray": "buffer",
    "memoryview-of-bytes": "buffer",
    "memoryview-of-bytearray": "buffer",
    "memoryview-of-int32": "buffer",
    "mmap": "buffer",
    "open-file": "file",
    "open-file-past-a-prefix": "file",
    "bytesio": "file",
    "bytesio-past-a-prefix": "file",
    "unseekable-reader": "file",
}


def _padded(data: bytes) -> bytes:
    return data + b"\0" * (-len(data) % 4)


def _sources(data: bytes, folder: pathlib.Path) -> Iterator[tuple[str, Any, Callable[[], None]]]:
    """(name, source, close) for every kind, each made afresh over ``data``."""
    path = folder / "m.bin"
    path.write_bytes(data)
    prefixed = folder / "prefixed.bin"
    prefixed.write_bytes(_PREFIX + data)
    nothing = lambda: None  # noqa: E731
    yield "str-path", str(path), nothing
    yield "pathlib-path", path, nothing
    yield "bytes", data, nothing
    yield "bytearray", bytearray(data), nothing
    yield "memoryview-of-bytes", memoryview(data), nothing
    yield "memoryview-of-bytearray", memoryview(bytearray(data)), nothing
    yield "memoryview-of-int32", memoryview(bytearray(_padded(data))).cast("i"), nothing
    file = path.open("rb")
    mapped = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    yield "mmap", mapped, lambda: file.close()
    opened = path.open("rb")
    yield "open-file", opened, opened.close
    skipped = prefixed.open("rb")
    skipped.seek(len(_PREFIX))
    yield "open-file-past-a-prefix", skipped, skipped.close
    yield "bytesio", io.BytesIO(data), nothing
    buffer = io.BytesIO(_PREFIX + data)
    buffer.seek(len(_PREFIX))
    yield "bytesio-past-a-prefix", buffer, nothing
    yield "unseekable-reader", Unseekable(data), nothing


def test_the_sweep_covers_every_kind_the_switch_names() -> None:
    assert set(_KINDS.values()) | {"url", "stdin"} == {"url", "stdin", "path", "buffer", "file"}


@pytest.mark.parametrize("layout", ["plain", "zip"])
def test_every_source_kind_is_classified_looked_at_and_loaded_as_onnx_reads_it(
    tmp_path: pathlib.Path, layout: str
) -> None:
    plain = _model_bytes()
    if layout == "zip":
        save_zip(wirecodec.load(plain), tmp_path / "c.onnxz")
        data = (tmp_path / "c.onnxz").read_bytes()
    else:
        data = plain
    reference = onnx.ModelProto.FromString(plain)
    seen = set()
    for name, source, close in _sources(data, tmp_path):
        seen.add(name)
        try:
            assert classify(source) == _KINDS[name], name
            position = source.tell() if hasattr(source, "tell") and name != "unseekable-reader" else None
            head = head_of(source, 4)
            if name != "unseekable-reader":  # (one that cannot seek is not looked at: b"")
                assert head == data[:4], name
            if position is not None:
                assert source.tell() == position, f"{name}: head_of moved the file"
            if name != "unseekable-reader":
                assert is_zip(source) == (layout == "zip"), name
            if layout == "zip" and name == "unseekable-reader":
                continue  # a container from a pipe: not a layout the opener streams
            if layout == "zip" and name == "open-file-past-a-prefix":
                continue  # refused today: the xfail below
            if name == "memoryview-of-int32" and len(data) % 4:
                continue  # padded: not the model's bytes alone
            model = wirecodec.load(source)
            again = onnx.ModelProto.FromString(wirecodec.encode(model))
            assert again == reference, name
            if layout == "plain" and _KINDS[name] == "buffer" and name != "memoryview-of-int32":
                raw = model.graph.initializer[0].raw_data
                owner = source.obj if isinstance(source, memoryview) else source
                assert isinstance(raw, memoryview) and raw.obj is owner, (
                    f"{name}: raw_data is not a view of it"
                )
        finally:
            close()
    assert seen == set(_KINDS)


def test_a_container_in_an_open_file_past_a_prefix_loads_from_its_position(tmp_path: pathlib.Path) -> None:
    save_zip(wirecodec.load(_model_bytes()), tmp_path / "c.onnxz")
    data = (tmp_path / "c.onnxz").read_bytes()
    (tmp_path / "prefixed.bin").write_bytes(_PREFIX + data)
    reference = onnx.ModelProto.FromString(_model_bytes())
    with (tmp_path / "prefixed.bin").open("rb") as file:
        file.seek(len(_PREFIX))
        model = wirecodec.load(file)
    assert onnx.ModelProto.FromString(wirecodec.encode(model)) == reference
