"""Models by URL (issue 25): structure by byte ranges, each tensor's bytes when read.

Against a real nginx on the loopback (tests/support/http_server.py; skipped with the reason
where nginx is absent), counting the bytes nginx says it sent, and against a bad server
for every way a server can fail.
"""

from __future__ import annotations

import pathlib
import sys
import threading
import time

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from tests.support.big_sparse import BigModel, mark, write_big_model
from tests.support.http_server import BadServer, Nginx
from wirecodec import helper
from wirecodec.cli import main
from wirecodec.errors import ExternalDataError, NotAModelError, RemoteError, WireCodecError
from wirecodec.files.opener import open_model
from wirecodec.files.remote.source import RemoteOptions, is_url
from wirecodec.protobuf.lazy import pending_size

WEIGHTS = 4
SHAPE = (256, 256)  # 256 KiB of float32 each: large enough to wait (64 KiB and more)


def weights_model(count: int = WEIGHTS, shape: tuple[int, ...] = SHAPE) -> ModelProto:
    """A small graph with ``count`` random float32 initializers of ``shape``, and a tiny one."""
    rng = np.random.default_rng(25)
    inits = [
        wirecodec.from_array(rng.standard_normal(shape).astype(np.float32), f"w{i}") for i in range(count)
    ]
    inits.append(wirecodec.from_array(np.arange(4, dtype=np.float32), "small"))
    info = [helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape)) for name in ("x", "y")]
    node = helper.make_node("Add", ["x", "w0"], ["y"])
    return helper.make_model(helper.make_graph([node], "g", info[:1], info[1:], initializer=inits))


@pytest.fixture(scope="module")
def served(nginx_server: Nginx) -> Nginx:
    """nginx serving ``m.onnx`` (single file) and ``ext/m.onnx`` with ``ext/m.onnx.data``."""
    model = weights_model()
    wirecodec.save(model, nginx_server.root / "m.onnx")
    (nginx_server.root / "ext").mkdir()
    wirecodec.save(model, nginx_server.root / "ext" / "m.onnx", external_data=True)
    return nginx_server


def body_bytes(server: Nginx, requests: int) -> int:
    return sum(r.body_bytes_sent for r in server.requests(requests))


def test_load_by_url_equals_local_load(served: Nginx) -> None:
    remote = wirecodec.load(served.url("m.onnx"))
    local = wirecodec.load(served.root / "m.onnx")
    assert wirecodec.encode(remote) == wirecodec.encode(local)
    for mine, theirs in zip(remote.graph.initializer, local.graph.initializer, strict=True):
        assert np.array_equal(wirecodec.to_array(mine), wirecodec.to_array(theirs))


def test_is_url() -> None:
    assert is_url("https://h/m.onnx") and is_url("s3://bucket/m.onnx")
    assert not is_url("m.onnx") and not is_url("C://m.onnx") and not is_url(pathlib.Path("x"))


# -- laziness: what crosses the socket -----------------------------------------------------------


@pytest.fixture(scope="module")
def big(served: Nginx) -> BigModel:
    """The 2 GB-class model (sparse on disk: written in well under a second), served by nginx."""
    return write_big_model(served.root / "big.onnx")


def test_opening_and_inspecting_a_2gb_model_transfers_under_one_percent(
    served: Nginx, big: BigModel, capsys: pytest.CaptureFixture[str]
) -> None:
    served.forget()
    assert main(["inspect", served.url("big.onnx")]) == 0
    out = capsys.readouterr().out
    assert "2,147,483,648 bytes" in out and "64 initializers" in out
    sent = sum(r.bytes_sent for r in served.requests())  # headers included
    assert 0 < sent < big.size // 100, f"{sent:,} bytes of {big.size:,}"


@pytest.mark.parametrize(
    "argv", [["check", "--full"], ["tensors", "--json"], ["dump", "graph.node[0]"], ["draw", "-o", "g.dot"]]
)
def test_verbs_that_only_look_transfer_under_one_percent_too(
    served: Nginx, big: BigModel, argv: list[str], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    served.forget()
    args = [
        argv[0],
        served.url("big.onnx"),
        *(str(tmp_path / a) if a.endswith(".dot") else a for a in argv[1:]),
    ]
    assert main(args) == 0
    sent = sum(r.bytes_sent for r in served.requests())
    assert 0 < sent < big.size // 100, f"{argv[0]}: {sent:,} bytes of {big.size:,}"


def test_a_copy_of_a_remote_model_fetches_nothing_and_reads_right(served: Nginx, big: BigModel) -> None:
    """CopyFrom (what infer_shapes and every append do) carries a waiting raw_data into the
    copy: nothing is fetched to copy it, and the copy fetches its own bytes when read."""
    opened = open_model(served.url("big.onnx"))
    served.forget()
    copy = ModelProto()
    copy.CopyFrom(opened.model)
    assert sum(r.bytes_sent for r in served.requests()) < big.size // 100
    assert pending_size(copy.graph.initializer[7], "raw_data") == big.each
    assert bytes(copy.graph.initializer[7].raw_data[:16]) == mark(7)
    assert pending_size(opened.model.graph.initializer[7], "raw_data") == big.each  # still waiting


def test_shape_inference_of_a_remote_model_reads_no_weight(served: Nginx, big: BigModel) -> None:
    from wirecodec.shape_inference import infer_shapes

    opened = open_model(served.url("big.onnx"))
    served.forget()
    inferred = infer_shapes(opened.model, check_type=True, strict_mode=True)
    assert inferred.graph.output[0].type.tensor_type.elem_type == TensorProto.FLOAT
    assert sum(r.bytes_sent for r in served.requests()) < big.size // 100


def test_extract_by_url_fetches_only_the_tensors_it_keeps(served: Nginx, tmp_path: pathlib.Path) -> None:
    served.forget()
    assert main(["extract", served.url("m.onnx"), str(tmp_path / "cut.onnx"), "--outputs", "y"]) == 0
    weights = [r for r in served.requests() if r.body_bytes_sent >= 4 * SHAPE[0] * SHAPE[1]]
    assert len(weights) == 1  # w0, the one the cut keeps; w1..w3 never fetched
    cut = wirecodec.load(tmp_path / "cut.onnx")
    assert [t.name for t in cut.graph.initializer] == ["w0"]


def test_reading_one_tensor_transfers_it_and_at_most_one_block(served: Nginx, big: BigModel) -> None:
    opened = open_model(served.url("big.onnx"))
    tensor = opened.model.graph.initializer[5]
    served.forget()
    assert tensor.HasField("raw_data") and pending_size(tensor, "raw_data") == big.each
    assert served.requests() == []  # presence and length cost nothing
    raw = tensor.raw_data
    assert bytes(raw[:16]) == bytes(raw[-16:]) == mark(5) and len(raw) == big.each
    body = body_bytes(served, 1)
    assert big.each <= body <= big.each + RemoteOptions().block
    start, end = big.payloads[5]
    assert [r.range for r in served.requests()] == [f"bytes={start}-{end - 1}"]
    assert opened.model.graph.initializer[5].raw_data is raw  # fetched once, then stored


def test_a_tensor_read_by_many_threads_at_once_is_fetched_once(served: Nginx, big: BigModel) -> None:
    opened = open_model(served.url("big.onnx"))
    tensor = opened.model.graph.initializer[9]
    served.forget()
    barrier = threading.Barrier(8)
    seen: list[bytes] = []

    def read() -> None:
        barrier.wait()
        seen.append(bytes(tensor.raw_data[:16]))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [mark(9)] * 8
    assert len(served.requests(1)) == 1


def test_a_pending_raw_data_behaves_as_onnx_reads_it(served: Nginx) -> None:
    onnx = pytest.importorskip("onnx", reason="the onnx package is the oracle")
    from onnx import numpy_helper

    remote = open_model(served.url("m.onnx")).model
    theirs = onnx.load(str(served.root / "m.onnx"))
    for mine, oracle in zip(remote.graph.initializer, theirs.graph.initializer, strict=True):
        assert mine.HasField("raw_data") == oracle.HasField("raw_data")
        assert mine.ByteSize() == oracle.ByteSize()
        assert [f.name for f, _ in mine.ListFields()] == [f.name for f, _ in oracle.ListFields()]
        assert bytes(mine.raw_data) == oracle.raw_data
        assert np.array_equal(numpy_helper.to_array(mine), numpy_helper.to_array(oracle))  # type: ignore[arg-type]
    assert wirecodec.encode(remote) == theirs.SerializeToString()


def test_saving_a_remote_model_fetches_what_it_writes(served: Nginx, tmp_path: pathlib.Path) -> None:
    model = wirecodec.load(served.url("m.onnx"))
    wirecodec.save(model, tmp_path / "copy.onnx")
    assert (tmp_path / "copy.onnx").read_bytes() == (served.root / "m.onnx").read_bytes()
    wirecodec.save(model, tmp_path / "ext.onnx", external_data=True)
    again = wirecodec.load(tmp_path / "ext.onnx")
    local = wirecodec.load(served.root / "m.onnx")
    for mine, theirs in zip(again.graph.initializer, local.graph.initializer, strict=True):
        assert np.array_equal(wirecodec.to_array(mine), wirecodec.to_array(theirs))


@pytest.mark.parametrize("external_data", [True, "w.safetensors"])
def test_saving_a_remote_model_elsewhere_keeps_no_tensor_it_fetched(
    served: Nginx, tmp_path: pathlib.Path, external_data: bool | str
) -> None:
    # Each tensor is fetched when written and dropped: the model still waits for every one
    # afterwards (memory holds one tensor at a time, whatever the model's size).
    model = wirecodec.load(served.url("m.onnx"))
    waiting = [pending_size(t, "raw_data") for t in model.graph.initializer]
    assert all(size is not None and size > 0 for size in waiting[:WEIGHTS])
    wirecodec.save(model, tmp_path / "out.onnx", external_data=external_data, size_threshold=0)
    assert [pending_size(t, "raw_data") for t in model.graph.initializer] == waiting
    again = wirecodec.load(tmp_path / "out.onnx")
    local = wirecodec.load(served.root / "m.onnx")
    for mine, theirs in zip(again.graph.initializer, local.graph.initializer, strict=True):
        assert np.array_equal(wirecodec.to_array(mine), wirecodec.to_array(theirs)), theirs.name


def test_assigning_or_clearing_a_pending_raw_data_drops_the_fetch(served: Nginx) -> None:
    model = open_model(served.url("m.onnx")).model
    first, second = model.graph.initializer[0], model.graph.initializer[1]
    served.forget()
    first.raw_data = b"\x00" * 16
    second.ClearField("raw_data")
    assert bytes(first.raw_data) == b"\x00" * 16 and not second.HasField("raw_data")
    wirecodec.encode(first), wirecodec.encode(second)
    assert served.requests() == []


def test_not_lazy_fetches_everything_at_once(served: Nginx) -> None:
    served.forget()
    opened = open_model(served.url("m.onnx"), lazy=False)
    size = (served.root / "m.onnx").stat().st_size
    assert body_bytes(served, opened.remote.requests) >= size
    assert pending_size(opened.model.graph.initializer[0], "raw_data") is None


# -- external data beside a remote model --------------------------------------------------------


def test_external_data_resolves_beside_the_remote_model(served: Nginx) -> None:
    served.forget()
    opened = open_model(served.url("ext/m.onnx"))
    assert opened.layout == "external"
    opened.resolve_external()
    tensor = opened.model.graph.initializer[2]
    assert pending_size(tensor, "raw_data") == 4 * SHAPE[0] * SHAPE[1]
    before = len(served.requests(opened.remote.requests + 1))
    local = wirecodec.load(served.root / "ext" / "m.onnx")
    assert np.array_equal(wirecodec.to_array(tensor), wirecodec.to_array(local.graph.initializer[2]))
    fetched = served.requests(before + 1)[before:]
    assert len(fetched) == 1 and fetched[0].uri == "/ext/m.onnx.data"
    assert fetched[0].body_bytes_sent == 4 * SHAPE[0] * SHAPE[1]
    assert wirecodec.encode(wirecodec.load(served.url("ext/m.onnx"))) == wirecodec.encode(local)


@pytest.mark.parametrize("location", ["../m.onnx", "/etc/passwd", "a/../../m.onnx", "C:/w.bin"])
def test_a_location_escaping_the_models_directory_is_refused(served: Nginx, location: str) -> None:
    model = wirecodec.load(served.root / "ext" / "m.onnx", load_external_data=False)
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = location
    (served.root / "escape").mkdir(exist_ok=True)
    (served.root / "escape" / "m.onnx").write_bytes(wirecodec.encode(model))
    with pytest.raises(ExternalDataError, match=r"must be relative|contains '\.\.'"):
        wirecodec.load(served.url("escape/m.onnx"))


def test_a_missing_data_file_names_its_url(served: Nginx) -> None:
    model = wirecodec.load(served.root / "ext" / "m.onnx", load_external_data=False)
    for entry in model.graph.initializer[0].external_data:
        if entry.key == "location":
            entry.value = "gone.data"
    (served.root / "gone").mkdir(exist_ok=True)
    (served.root / "gone" / "m.onnx").write_bytes(wirecodec.encode(model))
    with pytest.raises(RemoteError, match=r"/gone/gone\.data bytes 0-.*HTTP 404"):
        wirecodec.load(served.url("gone/m.onnx"))


# -- what else by URL ----------------------------------------------------------------------------


def test_an_empty_file_by_url_is_not_a_model(served: Nginx) -> None:
    (served.root / "empty.onnx").write_bytes(b"")
    with pytest.raises(NotAModelError, match="empty"):
        wirecodec.load(served.url("empty.onnx"))


def test_remote_options_are_checked() -> None:
    for bad in ({"timeout": 0}, {"retries": -1}, {"block": 0}):
        with pytest.raises(ValueError, match="must"):
            RemoteOptions(**bad)  # type: ignore[arg-type]


# -- bad servers: a WireCodecError naming the URL and the range ---------------------------------


@pytest.fixture
def on_bad(bad_server: BadServer) -> BadServer:
    """The bad server holding ``m.onnx``, serving well until told otherwise."""
    wirecodec.save(weights_model(), bad_server.root / "m.onnx")
    bad_server.behave(None)
    return bad_server


QUICK = RemoteOptions(retries=1, backoff=0.01, timeout=5)


def test_a_server_ignoring_range_is_refused_unless_a_full_download_is_allowed(on_bad: BadServer) -> None:
    url = on_bad.url("m.onnx")
    on_bad.behave("ignore-range")
    with pytest.raises(RemoteError, match="ignores Range") as caught:
        open_model(url, remote=QUICK)
    assert caught.value.url == url and str(caught.value).startswith(f"{url} bytes 0-")
    allowed = open_model(url, remote=RemoteOptions(allow_full_download=True))
    assert wirecodec.encode(allowed.model) == (on_bad.root / "m.onnx").read_bytes()


@pytest.mark.parametrize(
    ("kind", "reason"),
    [
        ("truncate", "cut short"),
        ("wrong-range", "not the range asked for"),
        ("late-start", "not the range asked for"),
        ("416", "416"),
        ("reset", "Reset|cut short|RemoteDisconnected"),
        ("503", "503"),
        ("ignore-range", "stopped honouring Range"),
    ],
)
def test_a_server_failing_mid_tensor_gives_an_error_naming_url_and_range(
    on_bad: BadServer, kind: str, reason: str
) -> None:
    url = on_bad.url("m.onnx")
    tensor = open_model(url, remote=QUICK).model.graph.initializer[1]
    behaviour = on_bad.behave(kind)
    with pytest.raises(WireCodecError, match=reason) as caught:
        _ = tensor.raw_data
    error = caught.value
    assert isinstance(error, RemoteError) and error.url == url
    asked = behaviour.ranges[-1].removeprefix("bytes=")
    assert f"{url} bytes {asked}" in str(error)
    assert (
        error.end is not None
        and error.start is not None
        and error.end - error.start == 4 * SHAPE[0] * SHAPE[1]
    )
    on_bad.behave(None)
    assert len(tensor.raw_data) == 4 * SHAPE[0] * SHAPE[1]  # a later read tries again


def test_a_range_starting_late_is_refused_even_with_a_body_that_matches_its_header(
    on_bad: BadServer,
) -> None:
    # Content-Range "bytes 1-32767/N" with 32767 bytes of body: self-consistent, but not
    # what was asked. Taken, it would be cached as block 0 and every read shifted by one.
    on_bad.behave("late-start")
    with pytest.raises(RemoteError, match=r"sent bytes 1-32767 .*not the range asked for"):
        open_model(on_bad.url("m.onnx"), remote=QUICK)


def test_a_redirect_is_followed(on_bad: BadServer) -> None:
    opened = open_model(on_bad.url("moved/m.onnx"), remote=QUICK)
    assert opened.label == on_bad.url("moved/m.onnx")
    assert bytes(opened.model.graph.initializer[1].raw_data) == bytes(
        wirecodec.load(on_bad.root / "m.onnx").graph.initializer[1].raw_data
    )


def test_a_server_that_does_not_say_the_size_is_refused(on_bad: BadServer) -> None:
    on_bad.behave("no-total")
    with pytest.raises(RemoteError, match=r"bytes 0-32767: the server does not say the file's size"):
        open_model(on_bad.url("m.onnx"), remote=QUICK)


def test_retries_with_backoff_recover_from_a_transient_503(on_bad: BadServer) -> None:
    url = on_bad.url("m.onnx")
    behaviour = on_bad.behave("503", times=2)
    started = time.perf_counter()
    opened = open_model(url, remote=RemoteOptions(retries=3, backoff=0.05))
    assert behaviour.misbehaved == 2 and time.perf_counter() - started >= 0.05 + 0.1  # waited, doubling
    assert wirecodec.encode(opened.model) == (on_bad.root / "m.onnx").read_bytes()


def test_retries_give_up_and_say_how_often_they_tried(on_bad: BadServer) -> None:
    on_bad.behave("503")
    with pytest.raises(RemoteError, match=r"HTTP 503 .*\(3 tries\)"):
        open_model(on_bad.url("m.onnx"), remote=RemoteOptions(retries=2, backoff=0.01))


def test_the_timeout_is_honoured(on_bad: BadServer) -> None:
    on_bad.behave("stall", stall=3.0)
    started = time.perf_counter()
    with pytest.raises(RemoteError, match="timed out"):
        open_model(on_bad.url("m.onnx"), remote=RemoteOptions(timeout=0.3, retries=0))
    assert time.perf_counter() - started < 2.5


# -- fsspec (an optional extra) ------------------------------------------------------------------


def test_fsspec_urls_read_through_fsspec(served: Nginx) -> None:
    fsspec = pytest.importorskip("fsspec", reason="fsspec is an optional extra")
    fs = fsspec.filesystem("memory")
    fs.pipe("/wirecodec-test/m.onnx", (served.root / "m.onnx").read_bytes())
    fs.pipe("/wirecodec-test/ext/m.onnx", (served.root / "ext" / "m.onnx").read_bytes())
    fs.pipe("/wirecodec-test/ext/m.onnx.data", (served.root / "ext" / "m.onnx.data").read_bytes())
    try:
        expected = (served.root / "m.onnx").read_bytes()
        assert wirecodec.encode(wirecodec.load("memory://wirecodec-test/m.onnx")) == expected
        external = wirecodec.encode(wirecodec.load(served.root / "ext" / "m.onnx"))
        assert wirecodec.encode(wirecodec.load("memory://wirecodec-test/ext/m.onnx")) == external
        with pytest.raises(RemoteError, match=r"memory://wirecodec-test/none\.onnx"):
            wirecodec.load("memory://wirecodec-test/none.onnx")
    finally:
        fs.rm("/wirecodec-test", recursive=True)


def test_without_fsspec_other_schemes_say_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "fsspec", None)  # import fsspec fails
    with pytest.raises(RemoteError, match=r"s3:// URLs need the optional fsspec package"):
        wirecodec.load("s3://bucket/model.onnx")


def test_an_onnxruntime_session_by_url_computes_as_the_local_one(served: Nginx) -> None:
    pytest.importorskip("onnxruntime", reason="the bridge runs onnxruntime")
    x = np.ones((1, *SHAPE[1:]), np.float32).repeat(SHAPE[0], axis=0)
    outputs = [
        wirecodec.onnxruntime_session(source).run(None, {"x": x})[0]
        for source in (served.url("ext/m.onnx"), str(served.root / "ext" / "m.onnx"))
    ]
    assert np.array_equal(outputs[0], outputs[1])


def test_different_tensors_read_from_many_threads_each_get_their_own_bytes(served: Nginx) -> None:
    model = open_model(served.url("m.onnx")).model
    local = wirecodec.load(served.root / "m.onnx")
    barrier = threading.Barrier(WEIGHTS * 2)
    got: dict[int, list[bytes]] = {i: [] for i in range(WEIGHTS)}

    def read(i: int) -> None:
        barrier.wait()
        got[i].append(bytes(model.graph.initializer[i].raw_data))

    threads = [threading.Thread(target=read, args=(n % WEIGHTS,)) for n in range(WEIGHTS * 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for i in range(WEIGHTS):
        assert got[i] == [bytes(local.graph.initializer[i].raw_data)] * 2
