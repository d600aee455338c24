"""Weights held in Constant nodes — in the main graph, in an If's branches, in a Loop's
body — x every verb that moves, lists, exports, folds or runs weights, each cell judged
by onnx or onnxruntime.

- external data with ``convert_attribute``: the same tensors move out as in
  ``onnx.save_model(..., convert_attribute=True)``, and ``onnx.load`` reads back the arrays;
- safetensors with ``convert_attribute``: the same tensors move, onnx reads the arrays, and
  the safetensors package reads the file;
- zip: every array as onnx reads it from the single file;
- ``tensors --json`` lists the tensors onnx's walk finds (paths, types, shapes);
  ``inspect --json`` counts their parameters;
- the checker agrees with ``onnx.checker.check_model(full_check=True)``;
- the reference evaluator and ``edit --fold-constants`` give onnxruntime's outputs.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import wirecodec
from wirecodec.cli import main

onnx = pytest.importorskip("onnx", reason="onnx is the reference (test extra)")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

_RNG = np.random.default_rng(11)
N = 16


def _weight(name: str, *shape: int) -> Any:
    return numpy_helper.from_array((_RNG.standard_normal(shape) / N).astype(np.float32), name)


def _io(name: str, *shape: int) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def _top() -> Any:
    nodes = [
        helper.make_node("Constant", [], ["w"], value=_weight("w_value", N, N)),
        helper.make_node("Constant", [], ["b"], value=_weight("b_value", N)),
        helper.make_node("MatMul", ["x", "w"], ["h"]),
        helper.make_node("Add", ["h", "b"], ["y"]),
    ]
    return helper.make_graph(nodes, "top", [_io("x", 2, N)], [_io("y", 2, N)])


def _if_branches() -> Any:
    def branch(tag: str) -> Any:
        nodes = [
            helper.make_node("Constant", [], [f"k_{tag}"], value=_weight(f"kv_{tag}", N, N)),
            helper.make_node("MatMul", ["x", f"k_{tag}"], [f"y_{tag}"]),
        ]
        return helper.make_graph(nodes, tag, [], [_io(f"y_{tag}", 2, N)])

    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=branch("then"), else_branch=branch("else"))
    return helper.make_graph([node], "if", [cond, _io("x", 2, N)], [_io("y", 2, N)])


def _loop_body() -> Any:
    body = helper.make_graph(
        [
            helper.make_node("Constant", [], ["k"], value=_weight("kv_body", N, N)),
            helper.make_node("MatMul", ["v", "k"], ["v_next"]),
            helper.make_node("Identity", ["c"], ["c_next"]),
        ],
        "body",
        [
            helper.make_tensor_value_info("i", TensorProto.INT64, []),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
            _io("v", 2, N),
        ],
        [helper.make_tensor_value_info("c_next", TensorProto.BOOL, []), _io("v_next", 2, N)],
    )
    nodes = [
        helper.make_node(
            "Constant", [], ["trips"], value=numpy_helper.from_array(np.array(3, np.int64), "t")
        ),
        helper.make_node("Constant", [], ["go"], value=numpy_helper.from_array(np.array(True), "g")),
        helper.make_node("Loop", ["trips", "go", "x"], ["y"], body=body),
    ]
    return helper.make_graph(nodes, "loop", [_io("x", 2, N)], [_io("y", 2, N)])


GRAPHS: dict[str, Callable[[], Any]] = {
    "main-graph": _top,
    "if-branches": _if_branches,
    "loop-body": _loop_body,
}


def _feeds(graph: str) -> dict[str, Any]:
    feeds: dict[str, Any] = {"x": np.linspace(-1, 1, 2 * N, dtype=np.float32).reshape(2, N)}
    if graph == "if-branches":
        feeds["cond"] = np.array(False)  # the else branch: the second Constant of the model
    return feeds


def _tensors(graph: Any, path: str = "graph") -> Iterator[tuple[str, Any]]:
    """(field path, tensor) of every initializer and attribute tensor, subgraphs included,
    walked over onnx's classes (the path dialect ``inspect`` prints)."""
    for i, tensor in enumerate(graph.initializer):
        yield f"{path}.initializer[{i}]", tensor
    for i, node in enumerate(graph.node):
        for j, attribute in enumerate(node.attribute):
            where = f"{path}.node[{i}].attribute[{j}]"
            if attribute.HasField("t"):
                yield f"{where}.t", attribute.t
            if attribute.HasField("g"):
                yield from _tensors(attribute.g, f"{where}.g")


def _arrays(model: Any) -> dict[str, bytes]:
    return {path: numpy_helper.to_array(t).tobytes() for path, t in _tensors(model.graph)}


def _external(model: Any) -> set[str]:
    return {path for path, t in _tensors(model.graph) if t.data_location == TensorProto.EXTERNAL}


@pytest.fixture(params=sorted(GRAPHS))
def case(request: pytest.FixtureRequest, tmp_path: pathlib.Path) -> tuple[str, Any, pathlib.Path]:
    model = helper.make_model(
        GRAPHS[request.param](), opset_imports=[helper.make_opsetid("", 17)], ir_version=9
    )
    onnx.checker.check_model(model, full_check=True)
    path = tmp_path / "m.onnx"
    onnx.save_model(model, str(path))
    return request.param, model, path


def _onnx_moves(model: Any, folder: pathlib.Path) -> set[str]:
    """The tensors ``onnx.save_model(..., convert_attribute=True)`` moves out."""
    (folder / "theirs").mkdir()
    onnx.save_model(
        onnx.ModelProto.FromString(model.SerializeToString()),
        str(folder / "theirs" / "m.onnx"),
        save_as_external_data=True,
        convert_attribute=True,
        size_threshold=0,
    )
    moved = _external(onnx.load(str(folder / "theirs" / "m.onnx"), load_external_data=False))
    assert moved  # attribute tensors, in bodies too: the cell would be empty otherwise
    return moved


def test_external_data_moves_what_onnx_moves(
    case: tuple[str, Any, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    _, model, path = case
    out = tmp_path / "ours" / "m.onnx"
    out.parent.mkdir()
    wirecodec.save(wirecodec.load(path), out, external_data=True, size_threshold=0, convert_attribute=True)
    assert _external(onnx.load(str(out), load_external_data=False)) == _onnx_moves(model, tmp_path)
    assert _arrays(onnx.load(str(out))) == _arrays(model)


def test_safetensors_moves_what_onnx_moves(
    case: tuple[str, Any, pathlib.Path], tmp_path: pathlib.Path
) -> None:
    st_numpy = pytest.importorskip("safetensors.numpy", reason="the safetensors package (test extra)")
    _, model, path = case
    out = tmp_path / "ours" / "m.onnx"
    out.parent.mkdir()
    wirecodec.save(
        wirecodec.load(path), out, external_data="m.safetensors", size_threshold=0, convert_attribute=True
    )
    moved = _onnx_moves(model, tmp_path)
    assert _external(onnx.load(str(out), load_external_data=False)) == moved
    assert _arrays(onnx.load(str(out))) == _arrays(model)
    held = {
        name: array.tobytes() for name, array in st_numpy.load_file(str(out.parent / "m.safetensors")).items()
    }
    by_name = {t.name: numpy_helper.to_array(t).tobytes() for _, t in _tensors(model.graph)}
    assert held == {name: by_name[name] for name in held} and len(held) == len(moved)


def test_zip_holds_every_constant(case: tuple[str, Any, pathlib.Path], tmp_path: pathlib.Path) -> None:
    _, model, path = case
    assert main(["convert", str(path), str(tmp_path / "m.onnxz"), "--to", "zip"]) == 0
    loaded = wirecodec.load(tmp_path / "m.onnxz")
    back = onnx.ModelProto.FromString(wirecodec.encode(loaded))
    assert _arrays(back) == _arrays(model)


def test_tensors_and_inspect_list_what_onnx_walks(
    case: tuple[str, Any, pathlib.Path], capsys: pytest.CaptureFixture[str]
) -> None:
    _, model, path = case
    capsys.readouterr()
    assert main(["tensors", "--json", str(path)]) == 0
    listed = {t["path"]: (t["dtype"], t["shape"]) for t in json.loads(capsys.readouterr().out)["tensors"]}
    walked = {p: (TensorProto.DataType.Name(t.data_type), list(t.dims)) for p, t in _tensors(model.graph)}
    assert listed == walked
    assert main(["inspect", "--json", str(path)]) == 0
    parameters = json.loads(capsys.readouterr().out)["parameters"]
    sizes = [int(np.prod(t.dims, dtype=np.int64)) for _, t in _tensors(model.graph)]
    assert (parameters["tensors"], parameters["count"]) == (len(sizes), sum(sizes))


def test_the_checker_agrees_with_onnx(case: tuple[str, Any, pathlib.Path]) -> None:
    _, model, path = case
    onnx.checker.check_model(model, full_check=True)  # the reference's verdict: valid
    wirecodec.check(wirecodec.load(path), full=True)
    # ... and a Constant given two values: one verdict with onnx's full check (its rule,
    # in Constant's inference, must reach the bodies too).
    broken = onnx.ModelProto.FromString(model.SerializeToString())
    constant = next(n for _, n in _nodes(broken.graph) if n.op_type == "Constant")
    constant.attribute.append(helper.make_attribute("value_float", 1.0))
    with pytest.raises((onnx.checker.ValidationError, onnx.shape_inference.InferenceError)):
        onnx.checker.check_model(broken, full_check=True)
    with pytest.raises(wirecodec.CheckError):
        wirecodec.check(wirecodec.load(broken.SerializeToString()), full=True)


def _nodes(graph: Any) -> Iterator[tuple[Any, Any]]:
    """Every node, bodies first: the deepest Constant is the one a rule must reach."""
    for node in graph.node:
        for attribute in node.attribute:
            if attribute.HasField("g"):
                yield from _nodes(attribute.g)
        yield graph, node


def _onnxruntime(model: Any, feeds: dict[str, Any]) -> list[Any]:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the model (test extra)")
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return list(session.run(None, feeds))


def test_the_reference_evaluator_gives_onnxruntimes_outputs(case: tuple[str, Any, pathlib.Path]) -> None:
    graph, model, path = case
    feeds = _feeds(graph)
    got = wirecodec.ReferenceEvaluator(wirecodec.load(path)).run(None, feeds)
    for mine, theirs in zip(got, _onnxruntime(model, feeds), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-6)


def test_folding_constants_keeps_onnxruntimes_outputs(
    case: tuple[str, Any, pathlib.Path], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    graph, model, path = case
    out = tmp_path / "folded.onnx"
    assert main(["edit", str(path), "-o", str(out), "--fold-constants"]) == 0, capsys.readouterr().err
    folded = onnx.load(str(out))
    onnx.checker.check_model(folded, full_check=True)
    feeds = _feeds(graph)
    for mine, theirs in zip(_onnxruntime(folded, feeds), _onnxruntime(model, feeds), strict=True):
        np.testing.assert_allclose(mine, theirs, rtol=1e-6, atol=1e-7)
    if graph == "main-graph":  # the weights became initializers; no Constant is left
        assert [n.op_type for n in folded.graph.node] in (["MatMul", "Add"], [])
