"""Issue 45, item 7: what inspect, edit --toposort and diff report, and a missing output
folder named by the user's path."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper, numpy_helper, save
from wirecodec.cli import EXAMPLE, main
from wirecodec.cli.graph_order import out_of_place
from wirecodec.cli.make_up import percent


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _mostly_float() -> ModelProto:
    """9,998 FLOAT parameters and 2 INT64: 99.98% FLOAT."""
    weights = [
        numpy_helper.from_array(np.zeros(9998, np.float32), "w"),
        numpy_helper.from_array(np.array([2, 4999], np.int64), "shape"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [9998])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4999])
    nodes = [helper.make_node("Add", ["x", "w"], ["s"]), helper.make_node("Reshape", ["s", "shape"], ["y"])]
    graph = helper.make_graph(nodes, "g", [x], [y], weights)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])


@pytest.mark.quick
@pytest.mark.parametrize(
    ("share", "text"),
    [(0.9998, "99.98%"), (0.5, "50%"), (0.25, "25%"), (0.0004, "0.04%"), (0.996, "99.6%"), (1.0, "100%")],
)
def test_a_percentage_is_100_only_when_it_is_all(share: float, text: str) -> None:
    assert percent(share) == text


def test_inspect_does_not_round_99_98_to_100(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    save(_mostly_float(), tmp_path / "m.onnx")
    code, out, _ = _run(capsys, "inspect", str(tmp_path / "m.onnx"))
    assert code == 0
    assert "FLOAT weights (99.98% of parameters)" in out


N, K, BLOCK = 16, 64, 32


def _nbits() -> ModelProto:
    """y = x @ W through com.microsoft's MatMulNBits: W 16x64 as 4-bit values in 32-wide
    blocks (512 packed bytes), a FLOAT scale and a packed 4-bit zero point per block."""
    blocks = K // BLOCK
    rng = np.random.default_rng(0)
    weights = [
        numpy_helper.from_array(rng.integers(0, 256, (N, blocks, BLOCK // 2), dtype=np.uint8), "W_q"),
        numpy_helper.from_array(np.full(N * blocks, 0.01, np.float32), "W_scales"),
        numpy_helper.from_array(np.full(N * ((blocks * 4 + 7) // 8), 0x88, np.uint8), "W_zp"),
    ]
    node = helper.make_node(
        "MatMulNBits",
        ["x", "W_q", "W_scales", "W_zp"],
        ["y"],
        domain="com.microsoft",
        K=K,
        N=N,
        bits=4,
        block_size=BLOCK,
    )
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, K])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, N])
    graph = helper.make_graph([node], "nbits", [x], [y], weights)
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets)


def test_matmulnbits_weights_count_as_4_bit_parameters(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "nbits.onnx"
    save(_nbits(), path)
    code, out, _ = _run(capsys, "inspect", str(path), "--json")
    assert code == 0
    params = json.loads(out)["parameters"]
    four_bit = N * K + N * (K // BLOCK)  # the weights and a zero point per block
    assert params["by_dtype"]["UINT4"] == {"tensors": 2, "count": four_bit, "bytes": N * K // 2 + N}
    assert params["by_dtype"]["FLOAT"]["count"] == N * (K // BLOCK)
    assert "UINT8" not in params["by_dtype"]
    code, out, _ = _run(capsys, "inspect", str(path))
    assert "precision     UINT4 weights (97% of parameters)" in out


def test_the_nbits_model_is_a_real_one(tmp_path: pathlib.Path) -> None:
    ort = pytest.importorskip("onnxruntime")
    path = tmp_path / "nbits.onnx"
    save(_nbits(), path)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": np.ones((1, K), np.float32)})
    assert y.shape == (1, N)


@pytest.mark.quick
@pytest.mark.parametrize(
    ("order", "moved"),
    [([0, 1, 2, 3], 0), ([3, 0, 1, 2], 1), ([1, 2, 3, 0], 1), ([3, 2, 1, 0], 3), ([1, 0, 3, 2], 2)],
)
def test_nodes_out_of_place_are_counted_not_shifted_ones(order: list[int], moved: int) -> None:
    assert out_of_place(order) == moved


def test_toposort_of_one_late_producer_moves_one_node(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    info = helper.make_tensor_value_info
    chain = [helper.make_node("Relu", [f"v{i}"], [f"v{i + 1}"], name=f"relu{i}") for i in range(1, 20)]
    first = helper.make_node("Neg", ["x"], ["v1"], name="neg")  # listed last, needed first
    graph = helper.make_graph(
        [*chain, first], "g", [info("x", TensorProto.FLOAT, [2])], [info("v20", TensorProto.FLOAT, [2])]
    )
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), tmp_path / "u.onnx")
    code, out, err = _run(
        capsys, "edit", str(tmp_path / "u.onnx"), "-o", str(tmp_path / "s.onnx"), "--toposort"
    )
    assert code == 0, err
    assert "1 node moved into topological order" in out


def test_diff_names_data_types(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    def model(kind: int) -> ModelProto:
        info = helper.make_tensor_value_info
        graph = helper.make_graph(
            [helper.make_node("Identity", ["x"], ["y"])], "g", [info("x", kind, [2])], [info("y", kind, [2])]
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])

    save(model(TensorProto.FLOAT), tmp_path / "a.onnx")
    save(model(TensorProto.INT64), tmp_path / "b.onnx")
    code, out, _ = _run(capsys, "diff", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnx"))
    assert code == 1
    assert "graph.input[0].type.tensor_type.elem_type: FLOAT != INT64" in out
    assert "1 != 7" not in out


@pytest.mark.parametrize(
    "args",
    [
        ["extract", "{m}", "{o}", "--outputs", "y"],
        ["merge", "--io-map", "y:x", "--prefix2", "q_", "{m}", "{m}", "{o}"],
        ["draw", "{m}", "-o", "{o}"],
        ["tensors", "{m}", "w1", "-o", "{o}"],
        ["edit", "{m}", "-o", "{o}", "--toposort"],
        ["infer-shapes", "{m}", "{o}"],
    ],
    ids=lambda args: args[0],
)
def test_a_missing_output_folder_is_named_by_the_users_path(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], args: list[str]
) -> None:
    out = tmp_path / "absent" / {"draw": "out.dot", "tensors": "out.npy"}.get(args[0], "out.onnx")
    code, _, err = _run(capsys, *(a.format(m=EXAMPLE, o=out) for a in args))
    assert code == 1
    assert f"{out}: cannot write it: the folder {out.parent} does not exist" in err
    assert ".tmp" not in err
