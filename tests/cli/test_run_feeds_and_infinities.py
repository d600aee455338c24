"""What ``wirecodec run`` feeds and how it compares (cli/runner.py, no runtime needed):
a graph input that an initializer holds (IR < 4 models list every weight as an input) is
not given a random feed, which would replace the weight; and an output that is +inf on
one side and -inf on the other differs, by an infinite amount (infinities are the same
only with one sign)."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from schema_dsl.onnx import TensorProto
from wirecodec import helper, save
from wirecodec.cli import main
from wirecodec.cli.runner import compare, declared_inputs, feeds
from wirecodec.numpy_helper import from_array

WEIGHT = np.array([10.0, 20.0, 30.0], np.float32)


def _weights_as_inputs() -> object:
    info = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3]) for n in ("x", "w", "y")]
    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        info[:2],
        info[2:],
        initializer=[from_array(WEIGHT, "w")],
    )
    return helper.make_model(graph, ir_version=3, opset_imports=[helper.make_opsetid("", 7)])


@pytest.mark.quick
def test_an_input_an_initializer_holds_gets_no_feed() -> None:
    model = _weights_as_inputs()
    specs = declared_inputs(model)  # type: ignore[arg-type]
    assert [spec.name for spec in specs] == ["x"]
    assert list(feeds(specs, {}, {}, 0)) == ["x"]


def test_run_computes_with_the_stored_weight(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    save(_weights_as_inputs(), path)  # type: ignore[arg-type]
    x = tmp_path / "x.npy"
    np.save(x, np.ones(3, np.float32))
    assert main(["run", str(path), "--engine", "reference", "--input", f"x={x}", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert list(report["inputs"]) == ["x"]
    y = report["outputs"]["y"]
    assert (y["min"], y["max"], y["mean"]) == (11.0, 31.0, 21.0)  # 1 + the stored weight


@pytest.mark.quick
@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        (np.inf, np.inf, True),
        (-np.inf, -np.inf, True),
        (np.inf, -np.inf, False),
        (-np.inf, np.inf, False),
        (np.inf, 1.0, False),
        (np.nan, np.nan, True),
    ],
)
def test_infinities_are_the_same_only_with_one_sign(a: float, b: float, same: bool) -> None:
    ours, theirs = np.array([1.0, a], np.float32), np.array([1.0, b], np.float32)
    (difference,) = compare(["y"], [ours], ["y"], [theirs], atol=1e-5, rtol=1e-3)
    assert difference.same is same
    assert difference.max_abs == (0.0 if same else np.inf)  # the report's "max abs" column
    assert json.loads(json.dumps(difference.to_dict()))["same"] is same
