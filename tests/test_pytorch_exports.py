"""Models exported by PyTorch (both exporters) decode, re-encode byte-identically, and run.

These bytes come from a producer nobody here wrote: torch's TorchScript exporter and
its torch.export-based (dynamo) exporter. onnxruntime then runs what we re-encoded and
must reproduce torch's outputs.
"""

from __future__ import annotations

import io
import logging
import pathlib
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto
from tests.reference import assert_same, pb_class
from wirecodec import decode, encode

torch = pytest.importorskip("torch", reason="PyTorch exports the models (pip install torch==2.13.0)")
pytest.importorskip("onnx", reason="onnx is the reference (test extra)")


@dataclass
class Export:
    name: str
    data: bytes
    inputs: tuple[np.ndarray, ...]
    expected: list[np.ndarray]


def _models() -> dict[str, Callable[[], tuple[Any, tuple[Any, ...]]]]:
    nn = torch.nn

    def mlp() -> tuple[Any, tuple[Any, ...]]:
        return nn.Sequential(nn.Linear(16, 64), nn.GELU(), nn.Linear(64, 8)), (torch.randn(4, 16),)

    def cnn() -> tuple[Any, tuple[Any, ...]]:
        model = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.BatchNorm2d(8),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(8, 4, 3),
            nn.AdaptiveAvgPool2d(1),
            nn.Flatten(),
        )
        return model, (torch.randn(2, 3, 16, 16),)

    def transformer() -> tuple[Any, tuple[Any, ...]]:
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True)
        return layer, (torch.randn(2, 5, 32),)

    def embedding() -> tuple[Any, tuple[Any, ...]]:
        class Embed(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.table = nn.Embedding(1000, 64)  # 256 KB of weights
                self.norm = nn.LayerNorm(64)

            def forward(self, ids: Any) -> Any:
                return self.norm(self.table(ids)).mean(dim=1)

        return Embed(), (torch.randint(0, 1000, (3, 7)),)

    def lstm() -> tuple[Any, tuple[Any, ...]]:
        class Recurrent(nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.rnn = nn.LSTM(8, 16, batch_first=True)

            def forward(self, x: Any) -> Any:
                return self.rnn(x)[0]

        return Recurrent(), (torch.randn(2, 6, 8),)

    return {"mlp": mlp, "cnn": cnn, "transformer": transformer, "embedding": embedding, "lstm": lstm}


# Which exporters can handle which model in torch 2.13: the TorchScript exporter fails
# on the fused attention of TransformerEncoderLayer; torch.export does not lower nn.LSTM.
_EXPORTERS = {
    "mlp": (False, True),
    "cnn": (False, True),
    "transformer": (True,),
    "embedding": (False, True),
    "lstm": (False,),
}


def _export(model: Any, args: tuple[Any, ...], dynamo: bool, tmp: pathlib.Path) -> bytes:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, args, dynamo=True, verbose=False)
            path = tmp / "model.onnx"
            program.save(str(path))
            return path.read_bytes()
        buffer = io.BytesIO()
        torch.onnx.export(model, args, buffer, dynamo=False)
        return buffer.getvalue()


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> list[Export]:
    torch.manual_seed(0)
    logging.getLogger("torch").setLevel(logging.ERROR)
    out = []
    for name, factory in _models().items():
        model, args = factory()
        model.eval()
        with torch.no_grad():
            result = model(*args)
        expected = [r.numpy() for r in (result if isinstance(result, tuple) else (result,))]
        for dynamo in _EXPORTERS[name]:
            tmp = tmp_path_factory.mktemp(f"{name}-{dynamo}")
            try:
                data = _export(model, args, dynamo, tmp)
            except ModuleNotFoundError as exc:  # dynamo needs onnxscript
                pytest.skip(f"exporter unavailable: {exc}")
            label = f"{name}-{'dynamo' if dynamo else 'torchscript'}"
            out.append(Export(label, data, tuple(a.numpy() for a in args), expected))
    return out


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
