"""Issue 35, item 14: inspect says what a model is made of (precision, quantization,
parameters by operator)."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from tests.support import odd_models
from wirecodec import save
from wirecodec.cli import main


def _inspect(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], model: Any
) -> tuple[dict[str, Any], str]:
    path = tmp_path / "m.onnx"
    save(model, path)
    assert main(["inspect", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert main(["inspect", str(path)]) == 0
    return summary["make_up"], capsys.readouterr().out


def test_an_fp16_model_with_casts_at_its_edges(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made, text = _inspect(tmp_path, capsys, odd_models.fp16_model(width=16, layers=2))
    assert made["precision"] == {
        "weights": "FLOAT16",
        "share": 1.0,
        "edge_casts": {"input to FLOAT16": ["graph_input_cast0"], "output to FLOAT": ["graph_output_cast0"]},
    }
    assert made["quantization"] == {"operators": {}, "scales": {}}
    assert made["parameters_by_operator"] == {"MatMul": 2 * 16 * 16, "Add": 2 * 16}
    assert "precision     FLOAT16 weights; Cast at the input to FLOAT16" in text
    assert "quantized" not in text


def test_a_quantized_model(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    made, text = _inspect(tmp_path, capsys, odd_models.quantized_model(width=16))
    assert made["quantization"]["operators"] == {
        "QuantizeLinear": 1,
        "MatMulInteger": 1,
        "DequantizeLinear": 1,
        "ConvInteger": 1,
    }
    assert made["quantization"]["scales"] == {"per tensor": 1, "per channel": 1}
    by_op = made["parameters_by_operator"]
    # The fp16 weight and the int8 weight dequantized for a MatMul both count for MatMul.
    assert by_op["MatMul"] == 2 * 16 * 16 and by_op["MatMulInteger"] == 16 * 16 and by_op["ConvInteger"] == 2
    assert "quantized     QuantizeLinear×1" in text and "1 per channel" in text


def test_constant_weights_count_for_their_operator(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made, _ = _inspect(tmp_path, capsys, odd_models.constant_weights_model(width=8))
    assert made["parameters_by_operator"] == {"MatMul": 2 * 64, "Add": 2 * 8}
