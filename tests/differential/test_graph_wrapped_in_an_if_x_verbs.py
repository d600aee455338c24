"""A whole model's body wrapped in an If (one level, and an If inside the branch), its
weights branch initializers and Constant nodes, reading the outer graph's input — x the
walk (``tensors``), ``inspect``, the checker, shape inference and external-data save,
each cell judged by onnx (its walk, checker, ``infer_shapes`` and ``save_model``) and
onnxruntime (the saved model computes what the input does).
"""

from __future__ import annotations

import json
import pathlib
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import wirecodec
from tests.differential.shape_compare import assert_strict_inference_as_onnx, compare
from wirecodec.cli import main

onnx = pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

_RNG = np.random.default_rng(5)


def _weight(name: str, *shape: int) -> Any:
    return numpy_helper.from_array((_RNG.standard_normal(shape) / 8).astype(np.float32), name)


def _io(name: str, *shape: int | str) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def _body(tag: str) -> Any:
    """The model as it was before it was wrapped: Gemm, Relu, a Reshape by a Constant's
    shape, Transpose, MatMul; reads ``x`` from the enclosing graph."""
    shape = numpy_helper.from_array(np.array([1, 4, 8], np.int64), f"shape_{tag}")
    nodes = [
        helper.make_node("Gemm", ["x", f"w1_{tag}", f"b1_{tag}"], [f"h_{tag}"], transB=1),
        helper.make_node("Relu", [f"h_{tag}"], [f"r_{tag}"]),
        helper.make_node("Constant", [], [f"s_{tag}"], value=shape),
        helper.make_node("Reshape", [f"r_{tag}", f"s_{tag}"], [f"q_{tag}"]),
        helper.make_node("Transpose", [f"q_{tag}"], [f"t_{tag}"], perm=[0, 2, 1]),
        helper.make_node("Reshape", [f"t_{tag}", f"back_{tag}"], [f"f_{tag}"]),
        helper.make_node("MatMul", [f"f_{tag}", f"w2_{tag}"], [f"y_{tag}"]),
    ]
    initializers = [
        _weight(f"w1_{tag}", 32, 16),
        _weight(f"b1_{tag}", 32),
        _weight(f"w2_{tag}", 32, 16),
        numpy_helper.from_array(np.array([1, 32], np.int64), f"back_{tag}"),
    ]
    return helper.make_graph(nodes, tag, [], [_io(f"y_{tag}", 1, 16)], initializers)


def _if(then: Any, tag: str, out: str) -> Any:
    other = helper.make_graph(
        [helper.make_node("MatMul", ["x", f"e_{tag}"], [f"y_e{tag}"])],
        f"else_{tag}",
        [],
        [_io(f"y_e{tag}", 1, 16)],
        [_weight(f"e_{tag}", 16, 16)],
    )
    return helper.make_node("If", ["cond"], [out], then_branch=then, else_branch=other, name=f"if_{tag}")


def _wrapped() -> Any:
    inputs = [helper.make_tensor_value_info("cond", TensorProto.BOOL, []), _io("x", 1, 16)]
    return helper.make_graph([_if(_body("a"), "a", "y")], "wrapped", inputs, [_io("y", 1, 16)])


def _wrapped_twice() -> Any:
    inner = _if(_body("b"), "b", "y_inner")
    then = helper.make_graph([inner], "outer_then", [], [_io("y_inner", 1, 16)])
    node = _if(then, "c", "y")
    return helper.make_graph(
        [node], "wrapped2", [helper.make_tensor_value_info("cond", 9, []), _io("x", 1, 16)], [_io("y", 1, 16)]
    )


GRAPHS: dict[str, Callable[[], Any]] = {"in-an-if": _wrapped, "in-an-if-in-an-if": _wrapped_twice}


def _graphs(graph: Any, path: str = "graph") -> Iterator[tuple[str, Any]]:
    """(field path, graph) of the graph and every subgraph, over onnx's classes."""
    yield path, graph
    for i, node in enumerate(graph.node):
        for j, attribute in enumerate(node.attribute):
            if attribute.HasField("g"):
                yield from _graphs(attribute.g, f"{path}.node[{i}].attribute[{j}].g")


def _tensors(graph: Any) -> Iterator[tuple[str, Any]]:
    for path, g in _graphs(graph):
        for i, tensor in enumerate(g.initializer):
            yield f"{path}.initializer[{i}]", tensor
        for i, node in enumerate(g.node):
            for j, attribute in enumerate(node.attribute):
                if attribute.HasField("t"):
                    yield f"{path}.node[{i}].attribute[{j}].t", attribute.t


@pytest.fixture(params=sorted(GRAPHS))
def case(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> tuple[Any, pathlib.Path]:
    model = helper.make_model(
        GRAPHS[request.param](), opset_imports=[helper.make_opsetid("", 17)], ir_version=9
    )
    onnx.checker.check_model(model, full_check=True)
    path = tmp_path / "m.onnx"
    onnx.save_model(model, str(path))
    return model, path


def _run(model: Any) -> list[Any]:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the model (test extra)")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    x = np.linspace(-2, 2, 16, dtype=np.float32).reshape(1, 16)
    return [session.run(None, {"cond": np.array(c), "x": x})[0] for c in (True, False)]


def test_the_walk_lists_what_onnx_walks(
    case: tuple[Any, pathlib.Path], capsys: pytest.CaptureFixture[str]
) -> None:
    model, path = case
    capsys.readouterr()
    assert main(["tensors", "--json", str(path)]) == 0
    listed = {t["path"]: (t["dtype"], t["shape"]) for t in json.loads(capsys.readouterr().out)["tensors"]}
    assert listed == {
        p: (TensorProto.DataType.Name(t.data_type), list(t.dims)) for p, t in _tensors(model.graph)
    }


def test_inspect_counts_what_onnx_walks(
    case: tuple[Any, pathlib.Path], capsys: pytest.CaptureFixture[str]
) -> None:
    model, path = case
    capsys.readouterr()
    assert main(["inspect", "--json", str(path)]) == 0
    summary = json.loads(capsys.readouterr().out)
    bodies = Counter(n.op_type for p, g in _graphs(model.graph) if p != "graph" for n in g.node)
    assert summary["subgraph_operators"] == dict(bodies)
    assert summary["operators"] == dict(Counter(n.op_type for n in model.graph.node))
    sizes = [int(np.prod(t.dims, dtype=np.int64)) for _, t in _tensors(model.graph)]
    assert (summary["parameters"]["tensors"], summary["parameters"]["count"]) == (len(sizes), sum(sizes))


def test_the_checker_agrees_with_onnx(case: tuple[Any, pathlib.Path]) -> None:
    model, path = case
    wirecodec.check(wirecodec.load(path), full=True)  # onnx's verdict (the fixture): valid
    # The deepest body reads a name defined nowhere: both refuse.
    broken = onnx.ModelProto.FromString(model.SerializeToString())
    deepest = next(g for _, g in _graphs(broken.graph) if g.name in ("a", "b"))  # the wrapped body
    deepest.node[1].input[0] = "nowhere"
    with pytest.raises(onnx.checker.ValidationError):
        onnx.checker.check_model(broken)
    with pytest.raises(wirecodec.CheckError, match="nowhere"):
        wirecodec.check(wirecodec.load(broken.SerializeToString()))


def test_shape_inference_agrees_with_onnx(case: tuple[Any, pathlib.Path]) -> None:
    model, _ = case
    result = compare("wrapped", model.SerializeToString())
    assert result.equal, (result.differing, result.error)
    assert_strict_inference_as_onnx(model)


def test_external_data_moves_what_onnx_moves_and_runs_alike(
    case: tuple[Any, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    model, path = case
    (tmp_path / "ours").mkdir()
    (tmp_path / "theirs").mkdir()
    out = tmp_path / "ours" / "m.onnx"
    wirecodec.save(wirecodec.load(path), out, external_data=True, size_threshold=0)
    theirs = onnx.ModelProto.FromString(model.SerializeToString())  # onnx rewrites what it saves
    onnx.save_model(theirs, str(tmp_path / "theirs" / "m.onnx"), save_as_external_data=True, size_threshold=0)

    def moved(where: pathlib.Path) -> set[str]:
        loaded = onnx.load(str(where), load_external_data=False)
        return {p for p, t in _tensors(loaded.graph) if t.data_location == TensorProto.EXTERNAL}

    assert moved(out) == moved(tmp_path / "theirs" / "m.onnx") != set()
    back = onnx.load(str(out))
    assert {p: numpy_helper.to_array(t).tobytes() for p, t in _tensors(back.graph)} == {
        p: numpy_helper.to_array(t).tobytes() for p, t in _tensors(model.graph)
    }
    for mine, theirs in zip(_run(back), _run(model), strict=True):
        np.testing.assert_array_equal(mine, theirs)
