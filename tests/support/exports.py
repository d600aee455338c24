"""Real models for tests: small networks exported by PyTorch's two ONNX exporters.

Use the session fixture ``pytorch_exports`` (tests/conftest.py): each export is made
once per test run. These bytes come from a producer nobody here wrote.
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


def require_torch() -> Any:
    pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
    return pytest.importorskip("torch", reason="PyTorch exports the models (pip install torch==2.13.0)")


@dataclass
class Export:
    name: str
    data: bytes
    inputs: tuple[np.ndarray, ...]
    expected: list[np.ndarray]


def _models() -> dict[str, Callable[[], tuple[Any, tuple[Any, ...]]]]:
    torch = require_torch()
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
    torch = require_torch()
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


def make_exports(tmp_path_factory: pytest.TempPathFactory) -> list[Export]:
    """Every model of :func:`_models` through every exporter that handles it, with torch's outputs."""
    torch = require_torch()
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
