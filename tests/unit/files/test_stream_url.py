"""stream(url) (RangeInput: the model read by byte ranges) gives the events stream(path)
gives, on models whose structure spans many read windows and on a cut-short model."""

from __future__ import annotations

import pathlib

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, TensorProto
from tests.support.http_server import Nginx
from wirecodec.errors import WireCodecError
from wirecodec.files.stream.reader import assemble, stream


def _model() -> bytes:
    # Nodes of about 100 bytes each, 3,000 of them (over 300 KiB of structure: several
    # 64 KiB windows), between initializers whose payloads are skipped, not fetched.
    nodes = [
        NodeProto(
            op_type="Add", name=f"node {i}", input=[f"x{i}", "w"], output=[f"x{i + 1}"], doc_string="n" * 60
        )
        for i in range(3000)
    ]
    weights = [
        TensorProto(name=f"w{i}", data_type=TensorProto.UINT8, dims=[70_000], raw_data=bytes([i]) * 70_000)
        for i in range(3)
    ]
    return wirecodec.encode(
        ModelProto(ir_version=10, graph=GraphProto(name="g", node=nodes, initializer=weights))
    )


def _events(source: object) -> list[str]:
    with stream(source) as events:  # type: ignore[arg-type]
        return [repr(event) for event in events]


@pytest.fixture(scope="module")
def served(nginx_server: Nginx) -> Nginx:
    data = _model()
    (nginx_server.root / "many.onnx").write_bytes(data)
    (nginx_server.root / "cut.onnx").write_bytes(data[: len(data) - 50_000])  # inside the last payload
    return nginx_server


def test_stream_by_url_equals_stream_of_the_file(served: Nginx) -> None:
    assert _events(served.url("many.onnx")) == _events(served.root / "many.onnx")
    with stream(served.url("many.onnx")) as events:
        model = assemble(events)
    assert wirecodec.encode(model) == (served.root / "many.onnx").read_bytes()


def test_a_cut_short_model_by_url_fails_as_the_file_does(served: Nginx, tmp_path: pathlib.Path) -> None:
    with pytest.raises(WireCodecError) as local:
        _events(served.root / "cut.onnx")
    with pytest.raises(WireCodecError) as remote:
        _events(served.url("cut.onnx"))
    assert type(remote.value) is type(local.value)
    assert str(remote.value) == str(local.value)


def test_stream_by_url_reads_the_structure_in_few_ranges(served: Nginx) -> None:
    # About 320 KiB of structure, read through 64 KiB windows (the remote client's 32 KiB
    # blocks below them): a handful of requests, not one per record, and the skipped
    # payloads not at all.
    served.forget()
    _events(served.url("many.onnx"))
    requests = served.requests(1)
    assert 1 <= len(requests) <= 20, len(requests)
