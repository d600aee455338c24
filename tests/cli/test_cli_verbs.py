"""The corners of extract, diff and edit, on small models built with the onnx package.

onnx builds every model here (``onnx.helper``, ``numpy_helper``) and reads back what
``edit`` wrote; expected values come from numpy or from onnx, not from wirecodec.
"""

from __future__ import annotations

import io
import json
import pathlib
import sys
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from tests.support.reference import require_onnx
from wirecodec.cli import main

onnx = require_onnx()
from onnx import TensorProto, helper, numpy_helper  # noqa: E402  (after the skip above)


def _save(model: Any, path: pathlib.Path) -> str:
    path.write_bytes(model.SerializeToString())
    return str(path)


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out) if out.strip() else None


def _model(nodes: list[Any], initializers: Sequence[Any] = (), sparse: Sequence[Any] = ()) -> Any:
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])],
        initializer=list(initializers),
        sparse_initializer=list(sparse),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)], ir_version=10)


# -- extract ------------------------------------------------------------------------------


@pytest.fixture
def holder(tmp_path: pathlib.Path) -> str:
    """A model holding a tensor of every awkward kind."""
    ml_dtypes = pytest.importorskip("ml_dtypes")
    bf16 = np.array([[1.5, -2.25], [3.0, 0.0078125]], dtype=ml_dtypes.bfloat16)
    sparse_values = numpy_helper.from_array(np.array([5.0, 6.0], dtype=np.float32), "sparse_w")
    sparse_indices = numpy_helper.from_array(np.array([[0, 1], [2, 0]], dtype=np.int64), "sparse_w_idx")
    nodes = [
        helper.make_node("Constant", [], ["ints_const"], value_ints=[4, 5, 6]),
        helper.make_node("Constant", [], ["float_const"], value_float=0.5),
        helper.make_node("Constant", [], ["text_const"], value_strings=["ab", "ç"]),
        helper.make_node(
            "Constant",
            [],
            ["tensor_const"],
            value=numpy_helper.from_array(np.arange(6, dtype=np.int32), "inner"),
        ),
        helper.make_node("Identity", ["x"], ["y"]),
    ]
    initializers = [
        helper.make_tensor(
            "bf16", TensorProto.BFLOAT16, [2, 2], bf16.view(np.uint16).reshape(-1).tobytes(), raw=True
        ),
        helper.make_tensor("i4", TensorProto.INT4, [3], [-8, 7, -1]),
        helper.make_tensor("words", TensorProto.STRING, [2], [b"hello", "wörld".encode()]),
        helper.make_tensor("typed", TensorProto.DOUBLE, [2], [0.25, -1.0]),
    ]
    sparse = [helper.make_sparse_tensor(sparse_values, sparse_indices, [3, 2])]
    return _save(_model(nodes, initializers, sparse), tmp_path / "holder.onnx")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("bf16", np.array([[1.5, -2.25], [3.0, 0.0078125]], dtype=np.float32)),
        ("i4", np.array([-8, 7, -1], dtype=np.int8)),
        ("words", np.array(["hello", "wörld"])),
        ("typed", np.array([0.25, -1.0])),
        ("sparse_w", np.array([[0, 5], [0, 0], [6, 0]], dtype=np.float32)),
        ("ints_const", np.array([4, 5, 6], dtype=np.int64)),
        ("float_const", np.array(0.5, dtype=np.float32)),
        ("text_const", np.array(["ab", "ç"])),
        ("tensor_const", np.arange(6, dtype=np.int32)),
        ("inner", np.arange(6, dtype=np.int32)),  # the value tensor's own name finds it too
    ],
)
def test_extract_widens_and_densifies(
    holder: str, name: str, expected: np.ndarray, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out.npy"
    assert main(["tensors", holder, name, "-o", str(out)]) == 0
    got = np.load(out, allow_pickle=False)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert np.array_equal(got, expected)
    assert str(out) in capsys.readouterr().out


def test_extract_lists_every_tensor_with_its_path(holder: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, listing = _json(capsys, ["tensors", "--list", "--json", holder])
    assert code == 0
    assert listing["version"] == 1
    by_name = {entry["name"]: entry for entry in listing["tensors"]}
    assert by_name["sparse_w"]["path"] == "graph.sparse_initializer[0]"
    assert by_name["sparse_w"]["shape"] == [3, 2]
    assert by_name["tensor_const"]["names"] == ["tensor_const", "inner"]
    assert by_name["ints_const"] == {
        "name": "ints_const",
        "names": ["ints_const"],
        "path": "graph.node[0].attribute[0]",
        "dtype": "INT64",
        "shape": [3],
        "bytes": 24,
    }
    assert by_name["bf16"]["dtype"] == "BFLOAT16" and by_name["bf16"]["bytes"] == 8
    # The text form: one tensor per line.
    assert main(["tensors", "--list", holder]) == 0
    assert len(capsys.readouterr().out.strip().splitlines()) == len(listing["tensors"]) == 9


def test_extract_to_standard_output(holder: str) -> None:
    # -o - writes the .npy bytes to standard output (binary).
    buffer = io.BytesIO()

    class Out:
        def __init__(self) -> None:
            self.buffer = buffer

        def write(self, text: str) -> int:
            raise AssertionError("text written to stdout: " + text)

        def flush(self) -> None:
            pass

    original = sys.stdout
    sys.stdout = Out()  # type: ignore[assignment]
    try:
        assert main(["tensors", holder, "typed", "-o", "-"]) == 0
    finally:
        sys.stdout = original
    assert np.load(io.BytesIO(buffer.getvalue())).tolist() == [0.25, -1.0]


def test_extract_default_file_name_is_safe(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    weight = numpy_helper.from_array(np.ones((2, 2), dtype=np.float32), "/encoder/layer.0:weight")
    source = _save(_model([helper.make_node("Identity", ["x"], ["y"])], [weight]), tmp_path / "m.onnx")
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    assert main(["tensors", source, "/encoder/layer.0:weight"]) == 0
    assert [p.name for p in work.iterdir()] == ["encoder_layer.0_weight.npy"]


def test_extract_asks_for_a_path_when_a_name_is_used_twice(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The same tensor name inside both branches of an If.
    def branch(value: float, name: str) -> Any:
        constant = numpy_helper.from_array(np.array([value], dtype=np.float32), "c")
        return helper.make_graph(
            [helper.make_node("Identity", ["c"], [name])],
            name,
            [],
            [helper.make_tensor_value_info(name, TensorProto.FLOAT, [1])],
            initializer=[constant],
        )

    node = helper.make_node("If", ["cond"], ["y"], then_branch=branch(1.0, "t"), else_branch=branch(2.0, "e"))
    source = _save(_model([node]), tmp_path / "if.onnx")
    assert main(["tensors", source, "c", "-o", str(tmp_path / "c.npy")]) == 2
    err = capsys.readouterr().err
    assert "2 tensors are named 'c'" in err
    path = "graph.node[0].attribute[1].g.initializer[0]"
    assert path in err
    assert main(["tensors", source, path, "-o", str(tmp_path / "c.npy")]) == 0
    second = onnx.load(source).graph.node[0].attribute[1]
    assert np.load(tmp_path / "c.npy").tolist() == numpy_helper.to_array(second.g.initializer[0]).tolist()


# -- diff -----------------------------------------------------------------------------------


def _weights(values: list[float], dtype: Any = np.float32, name: str = "w") -> Any:
    return _model(
        [helper.make_node("Identity", ["x"], ["y"])], [numpy_helper.from_array(np.array(values, dtype), name)]
    )


@pytest.mark.parametrize(
    ("a", "b", "options", "equal"),
    [
        ([1.0, 2.0], [1.0, 2.0], [], True),
        ([1.0, 2.0], [1.0, 2.001], [], False),
        ([1.0, 2.0], [1.0, 2.001], ["--atol", "0.01"], True),
        ([1.0, 2.0], [1.0, 2.001], ["--rtol", "0.001"], True),  # |a-b| <= rtol * |b|
        ([1.0, 2.0], [1.0, 2.01], ["--rtol", "0.001"], False),
        ([float("nan"), 1.0], [float("nan"), 1.0], [], True),
        ([float("nan"), 1.0], [0.0, 1.0], ["--atol", "10"], False),
        ([float("inf")], [float("inf")], [], True),
    ],
)
def test_diff_tolerance(
    a: list[float], b: list[float], options: list[str], equal: bool, tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    left, right = _save(_weights(a), tmp_path / "a.onnx"), _save(_weights(b), tmp_path / "b.onnx")
    code, result = _json(capsys, ["diff", "--json", *options, left, right])
    assert code == (0 if equal else 1) and result["equal"] is equal
    if not equal:
        (difference,) = result["differences"]
        assert difference["path"] == "graph.initializer[0].values"
        assert difference["a"] is not None  # small tensors show their values


def test_diff_reports_type_and_shape_instead_of_values(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    left = _save(_weights([1.0, 2.0]), tmp_path / "a.onnx")
    right = _save(_weights([1.0, 2.0], np.float64), tmp_path / "b.onnx")
    code, result = _json(capsys, ["diff", "--json", left, right])
    assert code == 1
    assert [(d["path"], d["a"], d["b"]) for d in result["differences"]] == [
        ("graph.initializer[0].data_type", TensorProto.FLOAT, TensorProto.DOUBLE)
    ]
    longer = _save(_weights([1.0, 2.0, 3.0]), tmp_path / "c.onnx")
    code, result = _json(capsys, ["diff", "--json", left, longer])
    assert [d["path"] for d in result["differences"]] == ["graph.initializer[0].dims[0]"]


def test_diff_strings_and_extra_items(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    def words(*values: str) -> Any:
        tensor = helper.make_tensor("w", TensorProto.STRING, [len(values)], [v.encode() for v in values])
        return _model([helper.make_node("Identity", ["x"], ["y"])], [tensor])

    left, right = _save(words("a", "b"), tmp_path / "a.onnx"), _save(words("a", "c"), tmp_path / "b.onnx")
    assert main(["diff", left, right]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"{left} and {right} differ in 1 place: 1 tensor values differ"
    assert out[1] == (
        "graph.initializer[0].values: values differ in 1 of 2 elements (first at [1]: 'b' != 'c')"
    )

    more = _model([helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Relu", ["t"], ["y"])])
    fewer = _model([helper.make_node("Identity", ["x"], ["y"])])
    code, result = _json(
        capsys, ["diff", "--json", _save(fewer, tmp_path / "f.onnx"), _save(more, tmp_path / "m.onnx")]
    )
    assert code == 1
    # Unnamed nodes are matched by their outputs: the node making 'y' (A's node[0], B's
    # node[1]) changed, and a node making 't' (B's node[0]) was added. Each index says its side.
    assert [d["message"] for d in result["differences"]] == [
        "A graph.node[0].input[0] / B graph.node[1].input[0]: 'x' != 't'",
        "A graph.node[0].op_type / B graph.node[1].op_type: 'Identity' != 'Relu'",
        "B graph.node[0]: only in B: NodeProto 'Identity'",
    ]
    assert (result["differences"][0]["path"], result["differences"][0]["path_b"]) == (
        "graph.node[0].input[0]",
        "graph.node[1].input[0]",
    )
    assert result["summary"].endswith("differ in 3 places: 1 only in B, 2 fields changed")


def test_diff_reads_one_model_from_standard_input(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _weights([1.0])
    path = _save(model, tmp_path / "a.onnx")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(model.SerializeToString())))
    code, result = _json(capsys, ["diff", "--json", "-", path])
    assert (code, result["a"], result["equal"]) == (0, "<stdin>", True)


# -- edit -----------------------------------------------------------------------------------


def test_edit_dims_metadata_and_producer(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = _weights([1.0])
    model.metadata_props.add(key="license", value="none")
    model.producer_name, model.producer_version = "old", "9"
    path = _save(model, tmp_path / "m.onnx")
    argv = ["edit", path, "-o", path, "--set-dim-value", "x:0=8", "--set-dim-param", "y:-1=features",
            "--set-metadata", "license=MIT", "--set-metadata", "note=a=b",
            "--set-producer", "new"]  # fmt: skip
    assert main(argv) == 0
    edited = onnx.load(path)
    onnx.checker.check_model(edited)
    x_dims = edited.graph.input[0].type.tensor_type.shape.dim
    y_dims = edited.graph.output[0].type.tensor_type.shape.dim
    assert x_dims[0].dim_value == 8 and not x_dims[0].HasField("dim_param")
    # The output's 'N' is the same size as the input's: it is fixed too (make_dynamic_shape_fixed).
    assert y_dims[1].dim_param == "features" and y_dims[0].dim_value == 8
    assert "(and 1 other dimension named 'N')" in capsys.readouterr().out
    assert [(p.key, p.value) for p in edited.metadata_props] == [("license", "MIT"), ("note", "a=b")]
    assert edited.producer_name == "new" and not edited.HasField("producer_version")
    assert [p.name for p in tmp_path.iterdir()] == ["m.onnx"]  # no temporary left behind


def test_edit_rename_output_read_by_a_subgraph(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
    # t is a graph output and is read inside the If's branches.
    then_graph = helper.make_graph(
        [helper.make_node("Neg", ["t"], ["o1"])],
        "then",
        [],
        [helper.make_tensor_value_info("o1", TensorProto.FLOAT, [2])],
    )
    else_graph = helper.make_graph(
        [helper.make_node("Abs", ["t"], ["o2"])],
        "else",
        [],
        [helper.make_tensor_value_info("o2", TensorProto.FLOAT, [2])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Relu", ["x"], ["t"]),
            helper.make_node("If", ["c"], ["y"], then_branch=then_graph, else_branch=else_graph),
        ],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("t", TensorProto.FLOAT, [2]),
        ],
        value_info=[helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    source, out = _save(model, tmp_path / "m.onnx"), str(tmp_path / "out.onnx")
    assert main(["edit", source, "-o", out, "--rename-output", "t=relu_out"]) == 0
    assert (
        "(5 places)" in capsys.readouterr().out
    )  # graph output, value_info, Relu, Neg and Abs in the branches
    renamed = onnx.load(out)
    onnx.checker.check_model(renamed, full_check=True)
    session = ort.InferenceSession(out, providers=["CPUExecutionProvider"])
    x = np.array([-1.0, 2.0], dtype=np.float32)
    y, t = session.run(["y", "relu_out"], {"x": x, "c": np.array(True)})
    assert t.tolist() == [0.0, 2.0] and y.tolist() == [-0.0, -2.0]


def test_edit_refuses_stdin_model_with_external_data(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    model = _weights([1.0] * 512)
    onnx.save_model(
        model, str(tmp_path / "m.onnx"), save_as_external_data=True, location="m.bin", size_threshold=0
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO((tmp_path / "m.onnx").read_bytes())))
    assert main(["edit", "-", "-o", str(tmp_path / "out.onnx"), "--set-metadata", "a=b"]) == 1
    err = capsys.readouterr().err
    assert "its data is in 'm.bin', but the model came from <stdin>" in err and err.count("\n") == 1
    assert not (tmp_path / "out.onnx").exists()


# -- inspect: the round-trip verdict ------------------------------------------------------------


@pytest.mark.parametrize("weights", [4, 300_000], ids=["small", "payload-over-64KiB"])
def test_inspect_says_when_a_file_is_not_byte_identical(
    weights: int, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = _weights([0.5] * weights)
    canonical = model.SerializeToString()
    path = tmp_path / "m.onnx"
    path.write_bytes(canonical)
    code, summary = _json(capsys, ["inspect", "--json", str(path)])
    assert code == 0 and summary["byte_identical"] is True

    # The same model with ir_version (field 1) written last: protobuf reads it the same,
    # but no encoder writes it that way, so the re-encoding differs (the size does not).
    ir_field = bytes([0x08, model.ir_version])
    assert canonical.startswith(ir_field)
    reordered = canonical[len(ir_field) :] + ir_field
    again = onnx.ModelProto()
    again.ParseFromString(reordered)
    assert again == model
    path.write_bytes(reordered)
    code, summary = _json(capsys, ["inspect", "--json", str(path)])
    assert code == 1 and summary["byte_identical"] is False
    assert summary["parameters"]["count"] == weights
    assert main(["inspect", str(path)]) == 1
    assert "round trip    DIFFERS" in capsys.readouterr().out


def test_diff_matches_nodes_by_name_so_reordered_exports_compare_equal(
    pytorch_exports: list[Any], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    compared = 0
    for export in pytorch_exports:
        theirs = onnx.ModelProto.FromString(export.data)
        nodes = list(theirs.graph.node)
        if len(nodes) < 3 or len({n.name for n in nodes}) != len(nodes):
            continue
        shuffled = onnx.ModelProto.FromString(export.data)
        del shuffled.graph.node[:]
        shuffled.graph.node.extend(reversed(nodes))
        inits = list(shuffled.graph.initializer)
        del shuffled.graph.initializer[:]
        shuffled.graph.initializer.extend(reversed(inits))
        a, b = tmp_path / f"{export.name}-a.onnx", tmp_path / f"{export.name}-b.onnx"
        a.write_bytes(export.data)
        b.write_bytes(shuffled.SerializeToString())
        assert main(["diff", str(a), str(b)]) == 0, export.name
        assert capsys.readouterr().out == f"{a} and {b} are equal\n"
        # A real change among the reordered nodes is found, at its path in A.
        shuffled.graph.node[0].name = "renamed"
        b.write_bytes(shuffled.SerializeToString())
        code, result = _json(capsys, ["diff", "--json", str(a), str(b)])
        assert code == 1 and result["summary"].endswith("1 only in A, 1 only in B"), result["summary"]
        compared += 1
    assert compared >= 2
