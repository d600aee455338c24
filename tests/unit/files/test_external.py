"""External data is resolved safely: everything that could read outside the model directory is refused."""

from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Iterator

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, StringStringEntryProto, TensorProto
from wirecodec import ExternalDataError, to_array
from wirecodec.files.load import load

SECRET = b"top-secret-bytes" * 4


def _model(entries: dict[str, str], dims: tuple[int, ...] = (4,)) -> bytes:
    tensor = TensorProto(
        name="w",
        dims=list(dims),
        data_type=TensorProto.DataType.FLOAT,
        data_location=TensorProto.DataLocation.EXTERNAL,
        external_data=[StringStringEntryProto(key=k, value=v) for k, v in entries.items()],
    )
    return wirecodec.encode(ModelProto(ir_version=8, graph=GraphProto(name="g", initializer=[tensor])))


@pytest.fixture
def layout(tmp_path: pathlib.Path) -> pathlib.Path:
    """model_dir/ with a good data file, and a secret file next to (outside) it."""
    model_dir = tmp_path / "model_dir"
    (model_dir / "sub").mkdir(parents=True)
    (model_dir / "good.bin").write_bytes(np.arange(4, dtype="<f4").tobytes())
    (tmp_path / "secret.bin").write_bytes(SECRET)
    return model_dir


def _load(model_dir: pathlib.Path, entries: dict[str, str]) -> ModelProto:
    path = model_dir / "m.onnx"
    path.write_bytes(_model(entries))
    return load(path)


def test_a_good_reference_loads(layout: pathlib.Path) -> None:
    model = _load(layout, {"location": "good.bin", "offset": "4", "length": "8"})
    tensor = model.graph.initializer[0]
    assert tensor.data_location == TensorProto.DataLocation.DEFAULT
    assert tensor.external_data == []
    assert bytes(tensor.raw_data) == np.arange(4, dtype="<f4").tobytes()[4:12]


@pytest.mark.parametrize(
    ("location", "why"),
    [
        ("../secret.bin", "'..'"),  # CVE-2022-25882
        ("sub/../../secret.bin", "'..'"),  # CVE-2024-27318: '..' after a subdirectory
        ("sub/..\\..\\secret.bin", "'..'"),
        ("SECRET_ABS", "absolute"),
        ("C:\\secret.bin", "absolute"),
        ("missing.bin", "does not exist"),
        ("sub", "not a regular file"),
        ("bad\x00name", "NUL"),
    ],
)
def test_locations_that_escape_or_are_not_files(layout: pathlib.Path, location: str, why: str) -> None:
    if location == "SECRET_ABS":
        location = str(layout.parent / "secret.bin")
    with pytest.raises(ExternalDataError, match=why) as info:
        _load(layout, {"location": location, "length": "16"})
    assert "tensor 'w'" in str(info.value)


def test_symlink_pointing_outside(layout: pathlib.Path) -> None:
    (layout / "link.bin").symlink_to(layout.parent / "secret.bin")
    with pytest.raises(ExternalDataError, match="outside the model directory"):
        _load(layout, {"location": "link.bin", "length": "16"})


def test_symlinked_subdirectory_pointing_outside(layout: pathlib.Path) -> None:
    (layout / "escape").symlink_to(layout.parent)
    with pytest.raises(ExternalDataError, match="outside the model directory"):
        _load(layout, {"location": "escape/secret.bin", "length": "16"})


def test_symlink_inside_the_directory_is_fine(layout: pathlib.Path) -> None:
    (layout / "alias.bin").symlink_to(layout / "good.bin")
    model = _load(layout, {"location": "alias.bin", "length": "16"})
    np.testing.assert_array_equal(to_array(model.graph.initializer[0]), np.arange(4, dtype=np.float32))


def test_hard_link_is_refused(layout: pathlib.Path) -> None:
    os.link(layout.parent / "secret.bin", layout / "hard.bin")
    with pytest.raises(ExternalDataError, match="hard links"):
        _load(layout, {"location": "hard.bin", "length": "16"})


def test_device_file_via_symlink(layout: pathlib.Path) -> None:
    (layout / "zero.bin").symlink_to("/dev/zero")
    with pytest.raises(ExternalDataError):
        _load(layout, {"location": "zero.bin", "length": "16"})


def test_fifo_is_refused_without_blocking(layout: pathlib.Path) -> None:
    os.mkfifo(layout / "pipe.bin")
    with pytest.raises(ExternalDataError, match="not a regular file"):
        _load(layout, {"location": "pipe.bin", "length": "16"})


@pytest.mark.parametrize(
    ("entries", "why"),
    [
        ({"location": "good.bin", "offset": "17"}, "past the end"),
        ({"location": "good.bin", "offset": "8", "length": "16"}, "runs past the end"),
        ({"location": "good.bin", "offset": str(2**63)}, "past the end"),
        ({"location": "good.bin", "offset": "-4"}, "not a byte count"),
        ({"location": "good.bin", "offset": "4x"}, "not a byte count"),
        ({"location": "good.bin", "length": " 16"}, "not a byte count"),
        ({"location": "good.bin", "colour": "red"}, "unknown external_data key"),
        ({"offset": "0"}, "no location"),
    ],
)
def test_bad_references(layout: pathlib.Path, entries: dict[str, str], why: str) -> None:
    with pytest.raises(ExternalDataError, match=why):
        _load(layout, entries)


def test_duplicate_key(layout: pathlib.Path) -> None:
    tensor = TensorProto(
        name="w",
        data_location=TensorProto.DataLocation.EXTERNAL,
        external_data=[
            StringStringEntryProto(key="location", value="good.bin"),
            StringStringEntryProto(key="location", value="../secret.bin"),
        ],
    )
    (layout / "m.onnx").write_bytes(wirecodec.encode(ModelProto(graph=GraphProto(initializer=[tensor]))))
    with pytest.raises(ExternalDataError, match="given twice"):
        load(layout / "m.onnx")


_OPENED: list[str] | None = None  # while a test records: every path opened in this process


def _record_opens(event: str, args: tuple[object, ...]) -> None:
    if event == "open" and _OPENED is not None:
        _OPENED.append(os.fsdecode(args[0]) if isinstance(args[0], (str, bytes, os.PathLike)) else "")


@pytest.fixture
def opened() -> Iterator[list[str]]:
    """The paths this process opens (``open`` audit events: io.open, os.open) during the test."""
    global _OPENED
    if not getattr(sys, "_wirecodec_open_hook", False):  # an audit hook cannot be removed: add one once
        sys.addaudithook(_record_opens)
        sys._wirecodec_open_hook = True  # type: ignore[attr-defined]
    _OPENED = []
    try:
        yield _OPENED
    finally:
        _OPENED = None


def test_the_secret_is_never_read(layout: pathlib.Path, opened: list[str]) -> None:
    # Every way out of the directory is refused, and the secret file is never even opened.
    attempts = ["../secret.bin", "sub/../../secret.bin", str(layout.parent / "secret.bin")]
    for location in attempts:
        path = layout / "m.onnx"
        path.write_bytes(_model({"location": location}))
        with pytest.raises(ExternalDataError, match=r"tensor 'w'.*(\.\.|absolute)"):
            load(path)
    assert any(name.endswith("m.onnx") for name in opened), opened  # the hook does see our opens
    assert not [name for name in opened if name.endswith("secret.bin")], opened


def test_one_map_per_file(layout: pathlib.Path) -> None:
    tensors = [
        TensorProto(
            name=f"w{i}",
            dims=[1],
            data_type=TensorProto.DataType.FLOAT,
            data_location=TensorProto.DataLocation.EXTERNAL,
            external_data=[
                StringStringEntryProto(key="location", value="good.bin"),
                StringStringEntryProto(key="offset", value=str(4 * i)),
                StringStringEntryProto(key="length", value="4"),
            ],
        )
        for i in range(4)
    ]
    (layout / "m.onnx").write_bytes(wirecodec.encode(ModelProto(graph=GraphProto(initializer=tensors))))
    model = load(layout / "m.onnx")
    maps = {id(t.raw_data.obj) for t in model.graph.initializer}
    assert len(maps) == 1
    assert [float(to_array(t)[0]) for t in model.graph.initializer] == [0.0, 1.0, 2.0, 3.0]


def test_empty_data_file(layout: pathlib.Path) -> None:
    (layout / "empty.bin").write_bytes(b"")
    model = _load(layout, {"location": "empty.bin"})
    assert bytes(model.graph.initializer[0].raw_data) == b""
