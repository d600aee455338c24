"""Replays of the external-data CVEs of onnx, and their variants, against load and save.

- CVE-2022-25882: a tensor's ``location`` of ``../x`` read files outside the model directory.
- CVE-2024-27318: the fix was bypassed with ``..`` after a subdirectory (``subdir/../../x``).
- CVE-2025-51480: saving external data wrote wherever ``location`` pointed.

Plus what the same attacker could try next: absolute paths, symlinks and hard links
leading outside, device files (``/dev/zero``), FIFOs (a read that never returns), offsets
and lengths past the end or not plain numbers. Every one must be refused with
``ExternalDataError``, and a secret file outside the model directory must never end up in
any tensor, nor be overwritten, whatever the mode of loading.
"""

from __future__ import annotations

import os
import pathlib
import stat
import threading
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, StringStringEntryProto, TensorProto
from wirecodec import ExternalDataError

api = wirecodec

SECRET = bytes(range(200, 256)) * 2 + b"SECRET!!"
GOOD = np.arange(4, dtype="<f4").tobytes()


def _tensor(location: str, name: str = "w", **numbers: str) -> TensorProto:
    entries = [StringStringEntryProto(key="location", value=location)]
    entries += [StringStringEntryProto(key=key, value=value) for key, value in numbers.items()]
    return TensorProto(name=name, dims=[4], data_type=1, data_location=1, external_data=entries)


def _model(*tensors: TensorProto) -> ModelProto:
    return ModelProto(ir_version=9, graph=GraphProto(name="g", initializer=list(tensors)))


@pytest.fixture
def box(tmp_path: pathlib.Path) -> pathlib.Path:
    """``model/`` (the model directory, with traps) next to ``outside/secret.bin``."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.bin").write_bytes(SECRET)
    model = tmp_path / "model"
    (model / "sub").mkdir(parents=True)
    (model / "good.bin").write_bytes(GOOD)
    (model / "sub" / "good.bin").write_bytes(GOOD)
    (model / "link_out.bin").symlink_to(outside / "secret.bin")
    (model / "link_out_relative.bin").symlink_to(pathlib.Path("..") / "outside" / "secret.bin")
    (model / "link_in.bin").symlink_to("good.bin")
    (model / "dir_link").symlink_to(outside)
    (model / "zero.bin").symlink_to("/dev/zero")
    (model / "loop.bin").symlink_to("loop.bin")
    os.link(outside / "secret.bin", model / "hard.bin")
    os.mkfifo(model / "fifo.bin")
    return model


def _load(path: pathlib.Path, how: str) -> ModelProto:
    if how == "lazy":
        return api.load(path)
    if how == "eager":
        return api.load(path, lazy=False)
    if how == "bytes":
        return api.load(path.read_bytes(), base_dir=path.parent)
    model = api.load(path, load_external_data=False)  # "later": resolved in a second step
    api.load_external_data_into(model, path.parent)
    return model


def _never_read_the_secret(model: ModelProto) -> None:
    from wirecodec.files.base.walk import iter_tensors

    for tensor in iter_tensors(model):
        assert SECRET[:16] not in bytes(tensor.raw_data), f"tensor {tensor.name!r} holds the secret"


def _refused(box: pathlib.Path, how: str, *tensors: TensorProto) -> ExternalDataError:
    path = box / "m.onnx"
    path.write_bytes(wirecodec.encode(_model(*tensors)))
    result: dict[str, Any] = {}

    def run() -> None:  # in a thread: a FIFO that got opened would block forever
        try:
            result["model"] = _load(path, how)
        except BaseException as exc:
            result["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(20)
    assert not worker.is_alive(), "loading blocked (opened a FIFO or device?)"
    if "model" in result:
        _never_read_the_secret(result["model"])
        pytest.fail("loaded a model whose external data should have been refused")
    error = result["error"]
    assert isinstance(error, ExternalDataError), repr(error)
    return error


HOW = ["lazy", "eager", "bytes", "later"]

ESCAPES = [
    ("CVE-2022-25882", "../outside/secret.bin"),
    ("CVE-2022-25882-dot-first", "./../outside/secret.bin"),
    ("CVE-2024-27318", "sub/../../outside/secret.bin"),
    ("CVE-2024-27318-deeper", "sub/./../sub/../../outside/secret.bin"),
    ("CVE-2024-27318-backslashes", "sub\\..\\..\\outside\\secret.bin"),
    ("dotdot-only", ".."),
    ("absolute", "ABSOLUTE"),
    ("absolute-double-slash", "//ABSOLUTE"),
    ("absolute-windows-drive", "C:\\outside\\secret.bin"),
    ("absolute-unc", "\\\\server\\share\\secret.bin"),
    ("dev-zero-absolute", "/dev/zero"),
    ("proc-self-mem", "/proc/self/mem"),
    ("symlink-out", "link_out.bin"),
    ("symlink-out-relative", "link_out_relative.bin"),
    ("symlinked-directory", "dir_link/secret.bin"),
    ("hard-link", "hard.bin"),
    ("dev-zero-via-symlink", "zero.bin"),
    ("fifo", "fifo.bin"),
    ("symlink-loop", "loop.bin"),
    ("directory", "sub"),
    ("missing", "nothing.bin"),
    ("nul-byte", "good.bin\x00../../outside/secret.bin"),
    ("empty", ""),
]


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("location", [e[1] for e in ESCAPES], ids=[e[0] for e in ESCAPES])
def test_locations_leaving_the_directory_are_refused(box: pathlib.Path, how: str, location: str) -> None:
    secret = str(box.parent / "outside" / "secret.bin")
    location = location.replace("//ABSOLUTE", "/" + secret).replace("ABSOLUTE", secret)
    _refused(box, how, _tensor(location))


def test_device_node_inside_the_directory_is_refused(box: pathlib.Path) -> None:
    try:
        os.mknod(box / "devzero.bin", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except (PermissionError, OSError) as exc:
        pytest.skip(f"cannot create a device node here: {exc}")
    _refused(box, "lazy", _tensor("devzero.bin"))


BAD_NUMBERS = [
    ("offset-past-eof", {"offset": "17"}),
    ("offset-plus-length-past-eof", {"offset": "4", "length": "16"}),
    ("length-past-eof", {"length": "17"}),
    ("length-2-to-the-64", {"length": str(2**64)}),
    ("offset-2-to-the-63", {"offset": str(2**63)}),
    ("negative-offset", {"offset": "-1"}),
    ("negative-length", {"length": "-4"}),
    ("plus-sign", {"offset": "+4"}),
    ("hex", {"offset": "0x4"}),
    ("exponent", {"length": "1e1"}),
    ("space", {"offset": " 4"}),
    ("underscore", {"length": "1_6"}),
    ("fullwidth-digits", {"offset": "\uff14"}),
    ("empty-number", {"length": ""}),
    ("unknown-key", {"offest": "4"}),
]


@pytest.mark.parametrize("how", ["lazy", "eager"])
@pytest.mark.parametrize("numbers", [b[1] for b in BAD_NUMBERS], ids=[b[0] for b in BAD_NUMBERS])
def test_offsets_and_lengths_outside_the_file_are_refused(
    box: pathlib.Path, how: str, numbers: dict[str, str]
) -> None:
    _refused(box, how, _tensor("good.bin", **numbers))


@pytest.mark.parametrize("how", HOW)
def test_one_bad_tensor_refuses_the_whole_model(box: pathlib.Path, how: str) -> None:
    _refused(box, how, _tensor("good.bin", name="fine"), _tensor("../outside/secret.bin", name="evil"))


@pytest.mark.parametrize("how", HOW)
@pytest.mark.parametrize("location", ["good.bin", "sub/good.bin", "./good.bin", "link_in.bin"])
def test_references_inside_the_directory_still_load(box: pathlib.Path, how: str, location: str) -> None:
    path = box / "m.onnx"
    path.write_bytes(wirecodec.encode(_model(_tensor(location, offset="0", length="16"))))
    model = _load(path, how)
    assert bytes(model.graph.initializer[0].raw_data) == GOOD
    _never_read_the_secret(model)


# -- saving: CVE-2025-51480 and friends -------------------------------------------------------------


def _snapshot(root: pathlib.Path) -> dict[str, bytes | str]:
    """Every path under ``root`` (symlinks not followed) with its content or link target."""
    out: dict[str, bytes | str] = {}
    for path in sorted(root.rglob("*")):
        key = str(path.relative_to(root))
        if path.is_symlink():
            out[key] = f"-> {os.readlink(path)}"
        elif path.is_file() and not stat.S_ISFIFO(path.lstat().st_mode):
            out[key] = path.read_bytes()
        else:
            out[key] = "dir" if path.is_dir() else "special"
    return out


def _weights() -> ModelProto:
    weights = wirecodec.from_array(np.arange(1024, dtype=np.float32), "w")
    return ModelProto(ir_version=9, graph=GraphProto(name="g", initializer=[weights]))


SAVE_ESCAPES = [
    ("CVE-2025-51480", "../outside/evil.bin"),
    ("after-subdirectory", "sub/../../outside/evil.bin"),
    ("backslashes", "sub\\..\\..\\outside\\evil.bin"),
    ("absolute", "ABSOLUTE"),
    ("windows-drive", "C:\\evil.bin"),
    ("unc", "\\\\server\\share\\evil.bin"),
    ("nul-byte", "evil.bin\x00/../../x"),
    ("dotdot", ".."),
]


@pytest.mark.parametrize("location", [e[1] for e in SAVE_ESCAPES], ids=[e[0] for e in SAVE_ESCAPES])
def test_save_never_writes_outside_the_directory(box: pathlib.Path, location: str) -> None:
    location = location.replace("ABSOLUTE", str(box.parent / "outside" / "evil.bin"))
    before = _snapshot(box.parent)
    with pytest.raises(ExternalDataError):
        api.save(_weights(), box / "m.onnx", external_data=True, location=location, size_threshold=0)
    assert _snapshot(box.parent) == before  # nothing written anywhere, no temporaries left


def test_save_replaces_a_symlink_named_like_the_data_file(box: pathlib.Path) -> None:
    """A symlink in the directory named like the data file is replaced, not written through."""
    before = _snapshot(box.parent / "outside")
    api.save(_weights(), box / "m.onnx", external_data=True, location="link_out.bin", size_threshold=0)
    assert _snapshot(box.parent / "outside") == before
    assert not (box / "link_out.bin").is_symlink()
    model = api.load(box / "m.onnx")
    assert wirecodec.to_array(model.graph.initializer[0]).tolist() == list(range(1024))


def test_save_replaces_a_hard_link_named_like_the_data_file(box: pathlib.Path) -> None:
    api.save(_weights(), box / "m.onnx", external_data=True, location="hard.bin", size_threshold=0)
    assert (box.parent / "outside" / "secret.bin").read_bytes() == SECRET
    assert api.load(box / "m.onnx").graph.initializer[0].raw_data.nbytes == 4096


def test_save_replaces_a_symlinked_model_path(box: pathlib.Path) -> None:
    (box / "m.onnx").symlink_to(box.parent / "outside" / "secret.bin")
    api.save(_weights(), box / "m.onnx")
    assert (box.parent / "outside" / "secret.bin").read_bytes() == SECRET
    assert not (box / "m.onnx").is_symlink()


@pytest.mark.parametrize("external", [False, True])
def test_resaving_a_hostile_model_copies_no_secret(box: pathlib.Path, external: bool) -> None:
    """A model loaded without its external data still points outside; saving it reads nothing."""
    (box / "evil.onnx").write_bytes(wirecodec.encode(_model(_tensor("../outside/secret.bin"))))
    model = api.load(box / "evil.onnx", load_external_data=False)
    before = _snapshot(box.parent / "outside")
    api.save(model, box / "m.onnx", external_data=external, size_threshold=0)
    assert _snapshot(box.parent / "outside") == before
    for path in box.rglob("*"):
        if path.is_file() and not path.is_symlink() and path.name != "hard.bin":
            assert SECRET[:16] not in path.read_bytes(), path.name
    with pytest.raises(ExternalDataError):
        api.load(box / "m.onnx")  # and loading the re-saved file refuses it as before


def test_save_refuses_a_location_through_a_symlinked_directory(box: pathlib.Path) -> None:
    """``dir_link`` inside the model directory points outside: writing through it escapes."""
    before = _snapshot(box.parent / "outside")
    with pytest.raises(ExternalDataError):
        api.save(_weights(), box / "m.onnx", external_data=True, location="dir_link/x.bin", size_threshold=0)
    assert _snapshot(box.parent / "outside") == before


@pytest.mark.parametrize("location", [".", "./", "sub", "sub/", "sub/.", "missing/x.bin"])
def test_save_refuses_a_location_that_is_a_directory_or_in_none(box: pathlib.Path, location: str) -> None:
    before = _snapshot(box.parent)
    with pytest.raises(ExternalDataError):
        api.save(_weights(), box / "m.onnx", external_data=True, location=location, size_threshold=0)
    assert _snapshot(box.parent) == before  # no temporary anywhere, in the parent neither


@pytest.mark.parametrize("location", ["m.onnx", "./m.onnx"])
@pytest.mark.parametrize("existing", [False, True], ids=["new", "over-a-saved-model"])
def test_save_with_the_model_name_as_location_is_refused(
    box: pathlib.Path, location: str, existing: bool
) -> None:
    """The data file would overwrite the model (docs/loading.md): refused before any byte is written."""
    if existing:
        api.save(_weights(), box / "m.onnx")
    before = _snapshot(box.parent)
    with pytest.raises(ExternalDataError, match="model file itself"):
        api.save(_weights(), box / "m.onnx", external_data=True, location=location, size_threshold=0)
    assert _snapshot(box.parent) == before  # no temporary, and a saved model is untouched
    if existing:
        assert wirecodec.to_array(api.load(box / "m.onnx").graph.initializer[0]).tolist() == list(range(1024))
