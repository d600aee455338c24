"""Models exported by PyTorch (both exporters) decode, re-encode byte-identically, and run.

These bytes come from a producer nobody here wrote: torch's TorchScript exporter and
its torch.export-based (dynamo) exporter. onnxruntime then runs what we re-encoded and
must reproduce torch's outputs.
"""

from __future__ import annotations

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto
from tests.support.exports import _EXPORTERS, Export
from tests.support.reference import assert_same, pb_class
from wirecodec import decode, encode


@pytest.fixture
def exports(pytorch_exports: list[Export]) -> list[Export]:
    return pytorch_exports


def test_exports_round_trip_byte_identically(exports: list[Export]) -> None:
    assert len(exports) == sum(len(v) for v in _EXPORTERS.values())
    for item in exports:
        assert encode(decode(ModelProto, item.data)) == item.data, item.name


def test_exports_match_protobufs_parse(exports: list[Export]) -> None:
    for item in exports:
        theirs = pb_class(ModelProto)()
        theirs.ParseFromString(item.data)
        assert_same(decode(ModelProto, item.data), theirs, item.name)


def test_onnxruntime_runs_what_we_reencode(exports: list[Export]) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
    for item in exports:
        model = decode(ModelProto, item.data)
        session = ort.InferenceSession(encode(model), providers=["CPUExecutionProvider"])
        feeds = {inp.name: value for inp, value in zip(session.get_inputs(), item.inputs, strict=True)}
        outputs = session.run(None, feeds)
        assert len(outputs) == len(item.expected), item.name
        for got, want in zip(outputs, item.expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5, err_msg=item.name)
