"""What ``RemoteOptions`` promises, against a loopback server that guards its files as an
object store does (tests/support/guarded_server.py): 401 without the ``Authorization``
header, 403 without the presigned URL's query string. So the query string must reach the
server with every request, ``headers`` must be sent with every request, and
``whole_below`` must fetch a small model in one request after the first (issue 46: all
three survived the audit, as nothing tested them). No network: 127.0.0.1 only."""

from __future__ import annotations

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.guarded_server import SIGNATURE, TOKEN, GuardedServer, guarded_server
from wirecodec import helper
from wirecodec.errors import RemoteError
from wirecodec.files.remote.source import RemoteOptions

__all__ = ["guarded_server"]  # the fixture, used by name

AUTH = RemoteOptions(headers=(("Authorization", TOKEN),), retries=0, timeout=10)


def _model() -> ModelProto:
    """Four initializers of 128 KiB (large enough to wait for their first read) and a small one."""
    rng = np.random.default_rng(46)
    inits = [
        wirecodec.from_array(rng.standard_normal((128, 256)).astype(np.float32), f"w{i}") for i in range(4)
    ]
    inits.append(wirecodec.from_array(np.arange(4, dtype=np.float32), "small"))
    info = [helper.make_tensor_value_info(n, 1, [128, 256]) for n in ("x", "y")]
    graph = helper.make_graph([helper.make_node("Add", ["x", "w0"], ["y"])], "g", info[:1], info[1:], inits)
    return helper.make_model(graph)


@pytest.fixture(scope="module")
def served(guarded_server: GuardedServer) -> GuardedServer:
    wirecodec.save(_model(), guarded_server.root / "m.onnx")
    return guarded_server


def _arrays(model: ModelProto) -> list[bytes]:
    return [wirecodec.to_array(t).tobytes() for t in model.graph.initializer]


def test_the_query_string_and_the_headers_reach_the_server_with_every_request(served: GuardedServer) -> None:
    seen = served.forget()
    remote = wirecodec.load(served.url("m.onnx"), remote=AUTH)
    assert _arrays(remote) == _arrays(_model())  # every tensor fetched when read
    assert len(seen.requests) >= 3
    assert all(status == 206 for status in seen.statuses()), seen.requests
    assert {query for _, query, _, _ in seen.requests} == {SIGNATURE}


def test_without_the_header_the_server_refuses_with_401(served: GuardedServer) -> None:
    with pytest.raises(RemoteError, match="HTTP 401"):
        wirecodec.load(served.url("m.onnx"), remote=RemoteOptions(retries=0))


def test_without_the_query_string_the_server_refuses_with_403(served: GuardedServer) -> None:
    with pytest.raises(RemoteError, match="HTTP 403"):
        wirecodec.load(served.url("m.onnx", signed=False), remote=AUTH)


def test_whole_below_fetches_a_small_model_in_one_request_after_the_first(served: GuardedServer) -> None:
    size = (served.root / "m.onnx").stat().st_size
    seen = served.forget()
    model = wirecodec.load(served.url("m.onnx"), remote=RemoteOptions(headers=AUTH.headers, whole_below=size))
    assert len(seen.requests) == 2, seen.requests  # the probe, then the whole file
    assert seen.requests[1][2] == f"bytes=0-{size - 1}"
    assert _arrays(model) == _arrays(_model())
    assert len(seen.requests) == 2, seen.requests  # its tensors cost no further request


def test_a_model_over_whole_below_is_read_by_ranges(served: GuardedServer) -> None:
    size = (served.root / "m.onnx").stat().st_size
    seen = served.forget()
    model = wirecodec.load(
        served.url("m.onnx"), remote=RemoteOptions(headers=AUTH.headers, whole_below=size - 1)
    )
    before = len(seen.requests)
    assert all(
        not asked.startswith("bytes=0-") or asked != f"bytes=0-{size - 1}" for _, _, asked, _ in seen.requests
    )
    assert _arrays(model) == _arrays(_model())
    assert len(seen.requests) > before  # the waiting tensors fetched when read
