"""Issue 45, item 5: ``merge --prefix2`` into a model whose If branches read outer names
renames every reference in every scope (wirecodec.compose with every_scope=True); onnx's
add_prefix, kept by default (onnx_compat is this module), still leaves them."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import check, compose, helper, load, numpy_helper, save
from wirecodec.cli import main
from wirecodec.errors import CheckError


def _info(name: str) -> object:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [2])


def _head() -> ModelProto:
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["r"])], "head", [_info("x")], [_info("r")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


def _branching() -> ModelProto:
    """y = a + w when a's sum > 0, else a - w: both branches read the outer initializer w
    and the outer value a, and one reads the outer edge s."""

    def branch(op: str, name: str) -> object:
        return helper.make_graph(
            [helper.make_node(op, ["a", "w"], [name + "_out"])], name, [], [_info(name + "_out")]
        )

    nodes = [
        helper.make_node("ReduceSum", ["a"], ["s"], keepdims=0),
        helper.make_node("Greater", ["s", "zero"], ["c"]),
        helper.make_node(
            "If", ["c"], ["y"], then_branch=branch("Add", "then"), else_branch=branch("Sub", "else")
        ),
    ]
    initializers = [
        numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "w"),
        numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
    ]
    graph = helper.make_graph(nodes, "net", [_info("a")], [_info("y")], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.quick
def test_prefix_every_scope_renames_the_branches_references() -> None:
    prefixed = compose.add_prefix(_branching(), "q/", every_scope=True)
    check(prefixed)
    then = next(a.g for a in prefixed.graph.node[2].attribute if a.name == "then_branch")
    assert list(then.node[0].input) == ["q/a", "q/w"]
    assert list(then.node[0].output) == ["q/then_out"] == [v.name for v in then.output]


def test_onnx_add_prefix_is_kept_by_default() -> None:
    onnx = pytest.importorskip("onnx")
    ours = compose.add_prefix(_branching(), "q/")
    theirs = onnx.compose.add_prefix(onnx.load_from_string(_branching().SerializeToString()), "q/")
    assert ours.SerializeToString() == theirs.SerializeToString()
    with pytest.raises(CheckError):
        check(ours)  # onnx's result: the branches still read 'w'


def test_merge_prefix2_into_if_bodies_passes_the_check(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save(_head(), tmp_path / "pre.onnx")
    save(_branching(), tmp_path / "net.onnx")
    out = tmp_path / "merged.onnx"
    code = main(
        [
            "merge",
            str(tmp_path / "pre.onnx"),
            str(tmp_path / "net.onnx"),
            str(out),
            "--io-map",
            "r:a",
            "--prefix2",
            "q/",
        ]
    )
    assert code == 0, capsys.readouterr().err
    merged = load(out)
    check(merged)
    assert [n.op_type for n in merged.graph.node] == ["Relu", "ReduceSum", "Greater", "If"]


def test_merge_prefix2_runs_as_the_two_models_do(tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime")
    save(_head(), tmp_path / "pre.onnx")
    save(_branching(), tmp_path / "net.onnx")
    out = tmp_path / "merged.onnx"
    assert (
        main(
            [
                "merge",
                str(tmp_path / "pre.onnx"),
                str(tmp_path / "net.onnx"),
                str(out),
                "--io-map",
                "r:a",
                "--prefix2",
                "q/",
            ]
        )
        == 0
    )
    session = ort.InferenceSession(str(out), providers=["CPUExecutionProvider"])
    for x, expected in (([1.0, -3.0], [2.0, 2.0]), ([-1.0, -3.0], [-1.0, -2.0])):
        (y,) = session.run(None, {"x": np.array(x, np.float32)})
        np.testing.assert_array_equal(y, expected)


def test_a_merge_that_fails_the_check_gives_no_wrong_hint(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    save(_head(), tmp_path / "pre.onnx")
    save(_branching(), tmp_path / "net.onnx")
    real = compose.add_prefix

    def onnx_walk(*args: object, **kwargs: object) -> ModelProto:
        kwargs["every_scope"] = False  # onnx's renaming: the result fails the check
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(compose, "add_prefix", onnx_walk)
    args = ["merge", str(tmp_path / "pre.onnx"), str(tmp_path / "net.onnx"), str(tmp_path / "m.onnx")]
    assert main([*args, "--io-map", "r:a", "--prefix2", "q/"]) == 1
    err = capsys.readouterr().err
    assert "fails the IR check" in err
    assert "--no-check" not in err and "wirecodec check" not in err and " + " not in err
    assert not (tmp_path / "m.onnx").exists()
