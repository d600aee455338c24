"""``save(..., durable=False)``: the same bytes and the same all-or-nothing rename, without ``fsync``.

``durable=True`` (the default) ``fsync``s every file and the directory; ``durable=False``
must skip exactly that and nothing else: the output is byte-identical (to the durable
save and to ``onnx.save``), an error mid-write leaves the previous files and no
temporaries, and a killed process never leaves a half-written target. No timing here:
the benchmark (``bench/run.py --only save``) measures what skipping ``fsync`` buys.
"""

from __future__ import annotations

import contextlib
import errno
import os
import pathlib
import signal
import stat
from collections.abc import Iterator
from typing import IO, Any

import numpy as np
import pytest

import wirecodec
import wirecodec.files.writeback as writeback_module
from schema_dsl.onnx import GraphProto, ModelProto
from wirecodec.files.base.atomic import AtomicFiles

onnx = pytest.importorskip("onnx", reason="onnx.save is the reference for the bytes written (test extra)")
from onnx import helper, numpy_helper  # noqa: E402

OT = onnx.TensorProto
BACKEND_DATA = pathlib.Path(onnx.__file__).parent / "backend" / "test" / "data"
# Real models shipped with the installed onnx: PyTorch exports with their weights, and a
# stripped-down real network (its graph, with small weights).
BACKEND_MODELS = [
    "pytorch-converted/test_Conv3d_groups/model.onnx",
    "pytorch-converted/test_Linear/model.onnx",
    "light/light_inception_v1.onnx",
    "light/light_densenet121.onnx",
]
MODES = pytest.mark.parametrize("durable", [True, False], ids=["durable", "not-durable"])


def _helper_model() -> Any:
    """An onnx.helper model: big and small initializers (raw and typed), a subgraph, metadata."""
    rng = np.random.default_rng(10)
    big = numpy_helper.from_array(rng.standard_normal((256, 300)).astype(np.float32), "big")  # 300 kB
    small = numpy_helper.from_array(rng.standard_normal(8).astype(np.float32), "small")
    ints = helper.make_tensor("ints", OT.INT64, [4], [1, -2, 3, -4])  # int64_data, not raw
    then_graph = helper.make_graph(
        [helper.make_node("Identity", ["small"], ["t"])],
        "then",
        [],
        [helper.make_tensor_value_info("t", OT.FLOAT, [8])],
    )
    nodes = [
        helper.make_node("MatMul", ["x", "big"], ["h"], name="mm"),
        helper.make_node("If", ["cond"], ["y"], then_branch=then_graph, else_branch=then_graph),
    ]
    graph = helper.make_graph(
        nodes,
        "durable",
        [
            helper.make_tensor_value_info("x", OT.FLOAT, ["N", 256]),
            helper.make_tensor_value_info("cond", OT.BOOL, []),
        ],
        [helper.make_tensor_value_info("h", OT.FLOAT, ["N", 300])],
        initializer=[big, small, ints],
    )
    model = helper.make_model(
        graph, producer_name="test_save_durable", opset_imports=[helper.make_opsetid("", 21)]
    )
    helper.set_model_props(model, {"k": "v"})
    return model


def _onnx_files() -> list[Any]:
    params = [pytest.param(None, id="onnx.helper")]
    for name in BACKEND_MODELS:
        path = BACKEND_DATA / name
        marks = [] if path.exists() else [pytest.mark.skip(reason=f"{name} is not in this onnx install")]
        params.append(pytest.param(path, id=name.removesuffix("/model.onnx"), marks=marks))
    return params


@pytest.mark.parametrize("source", _onnx_files())
def test_not_durable_writes_the_bytes_of_durable_and_of_onnx_save(
    tmp_path: pathlib.Path, source: pathlib.Path | None
) -> None:
    reference = onnx.load(str(source)) if source is not None else _helper_model()
    onnx.save(reference, str(tmp_path / "onnx.onnx"))
    ours = wirecodec.load(tmp_path / "onnx.onnx")
    wirecodec.save(ours, tmp_path / "durable.onnx")
    wirecodec.save(ours, tmp_path / "fast.onnx", durable=False)
    expected = (tmp_path / "onnx.onnx").read_bytes()
    assert (tmp_path / "durable.onnx").read_bytes() == expected
    assert (tmp_path / "fast.onnx").read_bytes() == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["durable.onnx", "fast.onnx", "onnx.onnx"]


def test_not_durable_writes_the_same_external_data_files(tmp_path: pathlib.Path) -> None:
    onnx.save(_helper_model(), str(tmp_path / "source.onnx"))
    model = wirecodec.load(tmp_path / "source.onnx")
    written = {}
    for durable in (True, False):
        folder = tmp_path / str(durable)
        folder.mkdir()
        wirecodec.save(model, folder / "m.onnx", external_data=True, size_threshold=64, durable=durable)
        written[durable] = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert sorted(written[True]) == ["m.onnx", "m.onnx.data"]
    assert written[False] == written[True]
    # And onnx reads what the fast save wrote, data included.
    again = onnx.load(str(tmp_path / "False" / "m.onnx"))
    big = numpy_helper.to_array(next(t for t in again.graph.initializer if t.name == "big"))
    assert big.shape == (256, 300)


# --- fsync: called for durable saves, never for the others ---------------------------------


@pytest.fixture
def syncs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every ``os.fsync`` / ``os.fdatasync`` call from now on: 'file' or 'directory'."""
    calls: list[str] = []
    real_fsync, real_fdatasync = os.fsync, os.fdatasync

    def recorder(real: Any) -> Any:
        def record(fd: int) -> None:
            calls.append("directory" if stat.S_ISDIR(os.fstat(fd).st_mode) else "file")
            real(fd)

        return record

    monkeypatch.setattr(os, "fsync", recorder(real_fsync))
    monkeypatch.setattr(os, "fdatasync", recorder(real_fdatasync))
    return calls


def _model(generation: int = 1, n: int = 100_000) -> ModelProto:
    weights = np.full(n, generation, dtype=np.float32)
    return ModelProto(
        ir_version=10,
        producer_version=str(generation),
        graph=GraphProto(name="g", initializer=[wirecodec.from_array(weights, "w")]),
    )


def test_durable_save_fsyncs_the_file_and_the_directory(tmp_path: pathlib.Path, syncs: list[str]) -> None:
    wirecodec.save(_model(), tmp_path / "m.onnx")
    assert sorted(syncs) == ["directory", "file"]
    syncs.clear()
    wirecodec.save(_model(), tmp_path / "e.onnx", external_data=True)
    assert sorted(syncs) == ["directory", "file", "file"]  # the data file and the model


def test_not_durable_save_never_fsyncs(tmp_path: pathlib.Path, syncs: list[str]) -> None:
    wirecodec.save(_model(), tmp_path / "m.onnx", durable=False)
    wirecodec.save(_model(), tmp_path / "m.onnx", durable=False)  # over an existing file
    wirecodec.save(_model(), tmp_path / "e.onnx", external_data=True, durable=False)
    assert syncs == []
    assert wirecodec.to_array(wirecodec.load(tmp_path / "e.onnx").graph.initializer[0])[-1] == 1


@pytest.mark.parametrize(("durable", "expected"), [(True, ["directory", "file"]), (False, [])])
def test_atomic_files_fsync_only_when_durable(
    tmp_path: pathlib.Path, syncs: list[str], durable: bool, expected: list[str]
) -> None:
    target = tmp_path / "out.bin"
    with AtomicFiles(durable=durable) as files:
        with files.open(target) as out:
            out.write(b"data")
        files.commit()
    assert target.read_bytes() == b"data"
    assert sorted(syncs) == expected
    assert [p.name for p in tmp_path.iterdir()] == ["out.bin"]


def test_atomic_files_are_durable_by_default(tmp_path: pathlib.Path, syncs: list[str]) -> None:
    with AtomicFiles() as files:
        with files.open(tmp_path / "out.bin") as out:
            out.write(b"data")
        files.commit()
    assert sorted(syncs) == ["directory", "file"]


# --- errors mid-write: the previous files stay, no temporary is left ------------------------


def _snapshot(folder: pathlib.Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


@MODES
@pytest.mark.parametrize("external", [False, True], ids=["single-file", "external-data"])
def test_an_error_mid_write_keeps_the_previous_files(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, durable: bool, external: bool
) -> None:
    target = tmp_path / "m.onnx"
    wirecodec.save(_model(1), target, external_data=external)
    before = _snapshot(tmp_path)

    real_plan = writeback_module.plan_encoding

    class HalfWritten:
        """Writes the first half of the real encoding, then fails (as a full disk would)."""

        def __init__(self, message: Any) -> None:
            self.real = real_plan(message)

        def write(self, file: IO[bytes]) -> int:
            file.write(b"\x0a" * (self.real.size // 2))
            raise OSError(errno.ENOSPC, "No space left on device (injected)")

    monkeypatch.setattr(writeback_module, "plan_encoding", HalfWritten)
    with pytest.raises(OSError, match="injected"):
        wirecodec.save(_model(2), target, external_data=external, durable=durable)
    # With external data the data file's temporary was complete when the model's failed:
    # both are gone, and the previous model still reads its previous data.
    assert _snapshot(tmp_path) == before
    monkeypatch.undo()
    assert wirecodec.to_array(wirecodec.load(target).graph.initializer[0])[0] == 1


@contextlib.contextmanager
def _file_size_limit(limit: int) -> Iterator[None]:
    """Writes past ``limit`` bytes of any file fail with EFBIG (as on a full file system)."""
    resource = pytest.importorskip("resource", reason="RLIMIT_FSIZE needs a POSIX system")
    if not hasattr(signal, "SIGXFSZ"):
        pytest.skip("no SIGXFSZ on this platform")
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    if hard != resource.RLIM_INFINITY and hard < limit:
        pytest.skip("the hard file size limit is already lower")
    handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # else the kernel kills us
    resource.setrlimit(resource.RLIMIT_FSIZE, (limit, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, handler)


@MODES
def test_the_kernel_refusing_a_write_midway_keeps_the_previous_file(
    tmp_path: pathlib.Path, durable: bool
) -> None:
    target = tmp_path / "m.onnx"
    wirecodec.save(_model(1), target)
    before = _snapshot(tmp_path)
    with _file_size_limit(200_000), pytest.raises(OSError) as raised:  # the new model is 400 kB
        wirecodec.save(_model(2), target, durable=durable)
    assert raised.value.errno == errno.EFBIG
    assert _snapshot(tmp_path) == before


# A killed process never leaves a half-written target, durable or not: see
# tests/unit/files/test_kill_during_save.py (run in both modes).
