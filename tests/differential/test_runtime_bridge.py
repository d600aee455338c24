"""onnxruntime_session: the same outputs from every layout, weights not copied, past 2 GiB."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import textwrap
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import (
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    StringStringEntryProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from tests.support.exports import Export
from wirecodec import onnxruntime_session, save, save_zip

ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the reference runtime (test extra)")
ROOT = pathlib.Path(__file__).resolve().parents[2]
CPU = ["CPUExecutionProvider"]


def _value_info(name: str, elem_type: int, dims: list[int | str]) -> ValueInfoProto:
    shape = TensorShapeProto(
        dim=[
            TensorShapeProto.Dimension(dim_value=d)
            if isinstance(d, int)
            else TensorShapeProto.Dimension(dim_param=d)
            for d in dims
        ]
    )
    return ValueInfoProto(
        name=name, type=TypeProto(tensor_type=TypeProto.Tensor(elem_type=elem_type, shape=shape))
    )


def _gather_model(tables: list[Any], columns: int) -> ModelProto:
    """y = sum_i Gather(table_i, ids): each table a float32 [rows, columns] payload."""
    nodes, initializers, partial = [], [], []
    for i, payload in enumerate(tables):
        rows = len(payload) // (4 * columns)
        initializers.append(
            TensorProto(name=f"table{i}", data_type=TensorProto.FLOAT, dims=[rows, columns], raw_data=payload)
        )
        nodes.append(NodeProto(op_type="Gather", input=[f"table{i}", "ids"], output=[f"g{i}"]))
        partial.append(f"g{i}")
    nodes.append(NodeProto(op_type="Sum", input=partial, output=["y"]))
    graph = GraphProto(
        name="tables",
        node=nodes,
        initializer=initializers,
        input=[_value_info("ids", TensorProto.INT64, ["n"])],
        output=[_value_info("y", TensorProto.FLOAT, ["n", columns])],
    )
    return ModelProto(ir_version=8, opset_import=[OperatorSetIdProto(version=17)], graph=graph)


def _layouts(model: ModelProto, folder: pathlib.Path) -> dict[str, pathlib.Path]:
    paths = {
        "single": folder / "single.onnx",
        "external": folder / "external.onnx",
        "zip": folder / "model.onnxz",
    }
    save(model, paths["single"])
    save(model, paths["external"], external_data=True)
    save_zip(model, paths["zip"])
    return paths


def _run(session: Any, inputs: tuple[np.ndarray, ...]) -> list[np.ndarray]:
    feeds = {inp.name: value for inp, value in zip(session.get_inputs(), inputs, strict=True)}
    return list(session.run(None, feeds))


def test_pytorch_exports_run_the_same_from_every_layout(
    pytorch_exports: list[Export], tmp_path: pathlib.Path
) -> None:
    for item in pytorch_exports:
        want = _run(ort.InferenceSession(item.data, providers=CPU), item.inputs)
        folder = tmp_path / item.name
        folder.mkdir()
        for layout, path in _layouts(wirecodec.load(item.data), folder).items():
            got = _run(onnxruntime_session(path, providers=CPU), item.inputs)
            assert len(got) == len(want), (item.name, layout)
            for g, w in zip(got, want, strict=True):
                np.testing.assert_array_equal(g, w, err_msg=f"{item.name} from {layout}")


def test_attribute_tensors_and_subgraphs_from_a_zip(tmp_path: pathlib.Path) -> None:
    """Constant values (entries too) reach onnxruntime inline; initializers by reference."""
    onnx = pytest.importorskip("onnx", reason="onnx builds the reference model (test extra)")
    from onnx import helper, numpy_helper

    weight = np.arange(12, dtype=np.float32).reshape(3, 4)
    offset = np.full((4,), 0.5, np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["b"], value=numpy_helper.from_array(offset, "b")),
            helper.make_node("MatMul", ["x", "w"], ["h"]),
            helper.make_node("Add", ["h", "b"], ["y"]),
        ],
        "g",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 4])],
        [numpy_helper.from_array(weight, "w")],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]).SerializeToString()
    path = tmp_path / "m.onnxz"
    save_zip(wirecodec.load(data), path)
    x = np.ones((2, 3), np.float32)
    (got,) = _run(onnxruntime_session(path, providers=CPU), (x,))
    np.testing.assert_array_equal(got, x @ weight + offset)


def test_session_options_are_honoured(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnxz"
    table = np.arange(64, dtype=np.float32).tobytes()
    save_zip(_gather_model([table], 4), path)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = onnxruntime_session(path, sess_options=options, providers=CPU)
    (got,) = _run(session, (np.array([1, 3], np.int64),))
    np.testing.assert_array_equal(got, np.arange(64, dtype=np.float32).reshape(16, 4)[[1, 3]])
    assert (
        session.get_session_options().graph_optimization_level == ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    )


def test_a_clear_error_without_onnxruntime(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "m.onnxz"
    save_zip(_gather_model([bytes(64)], 4), path)
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # import now fails
    with pytest.raises(ImportError, match="pip install onnxruntime"):
        onnxruntime_session(path)


def test_bad_files_give_our_errors(tmp_path: pathlib.Path) -> None:
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    with pytest.raises(wirecodec.DecodeError):
        onnxruntime_session(empty)
    broken = tmp_path / "broken.onnxz"
    broken.write_bytes(b"PK\x03\x04" + bytes(40))
    with pytest.raises(wirecodec.ContainerError):
        onnxruntime_session(broken)


RSS_SCRIPT = textwrap.dedent(
    """
    import json, sys
    import numpy as np, psutil
    sys.path.insert(0, sys.argv[2])
    import onnxruntime as ort
    from wirecodec import onnxruntime_session

    process = psutil.Process()
    before = process.memory_info().rss
    session = onnxruntime_session(sys.argv[1], providers=["CPUExecutionProvider"])
    made = process.memory_info().rss
    (y,) = session.run(None, {"ids": np.array([0, 7, 1000], np.int64)})
    ran = process.memory_info().rss
    print(json.dumps({"made_mib": (made - before) / 2**20, "ran_mib": (ran - before) / 2**20,
                      "row7": y[1].tolist()}))
    """
)


def test_weights_are_not_copied(tmp_path: pathlib.Path) -> None:
    """A 256 MiB Gather table in every layout: the session's RSS grows by far less than it."""
    columns = 1024
    table = np.arange(64 * columns, dtype=np.float32).reshape(64, columns)
    table = np.tile(table, (1024, 1))  # 65,536 rows: 256 MiB
    paths = _layouts(_gather_model([memoryview(table).cast("B")], columns), tmp_path)
    try:
        for layout, path in paths.items():
            result = subprocess.run(
                [sys.executable, "-c", RSS_SCRIPT, str(path), str(ROOT)],
                capture_output=True,
                text=True,
                check=True,
            )
            report = json.loads(result.stdout)
            assert report["row7"] == table[7].tolist(), layout
            assert report["made_mib"] < 64 and report["ran_mib"] < 64, (layout, report)
    finally:
        for path in tmp_path.iterdir():
            path.unlink()


def test_why_not_add_external_initializers() -> None:
    """The alternative the bridge does not take: onnxruntime copies OrtValues given to
    add_external_initializers (a write to our buffer after the session is made is not
    seen). If this starts failing, onnxruntime changed and the choice deserves a look."""
    table = np.arange(32, dtype=np.float32).reshape(8, 4)
    model = _gather_model([bytes(table.nbytes)], 4)
    model.graph.initializer[0].ClearField("raw_data")
    model.graph.initializer[0].data_location = TensorProto.EXTERNAL
    model.graph.initializer[0].external_data.append(
        StringStringEntryProto(key="location", value="placeholder")
    )
    options = ort.SessionOptions()
    options.add_external_initializers(["table0"], [ort.OrtValue.ortvalue_from_numpy(table)])
    session = ort.InferenceSession(wirecodec.encode(model), options, providers=CPU)
    ids = (np.array([0], np.int64),)
    before = _run(session, ids)[0].copy()
    table[0, 0] = -1.0
    after = _run(session, ids)[0]
    assert before[0, 0] == 0.0 and after[0, 0] == 0.0


@pytest.mark.slow
def test_a_single_file_over_2_gib(tmp_path: pathlib.Path) -> None:
    """Twelve distinct 192 MiB tables in one 2.25 GiB file (protobuf's limit is 2 GiB):
    onnxruntime_session runs it and agrees with onnxruntime on the same model with
    external data."""
    columns, rows, count = 256, 196_608, 12
    size = rows * columns * 4
    shift = columns * 4 * 5  # each table starts five rows further into one shared buffer
    # Small whole numbers, so numpy's sum of the gathered rows is exact in float32.
    base = (np.arange((size + shift * count) // 4) % 1009).astype(np.float32)
    raw = memoryview(base).cast("B")
    model = _gather_model([raw[i * shift : i * shift + size] for i in range(count)], columns)
    single, external = tmp_path / "single.onnx", tmp_path / "external.onnx"
    try:
        save(model, single)
        assert single.stat().st_size > 2**31
        save(model, external, external_data=True)
        ids = (np.array([0, 1, rows // 2, rows - 1], np.int64),)
        (got,) = _run(onnxruntime_session(single, providers=CPU), ids)
        (want,) = _run(ort.InferenceSession(str(external), providers=CPU), ids)
        np.testing.assert_array_equal(got, want)
        tables = [base[i * shift // 4 :][: rows * columns].reshape(rows, columns) for i in range(count)]
        np.testing.assert_array_equal(got, sum(t[ids[0]] for t in tables))
    finally:
        for path in tmp_path.iterdir():
            path.unlink()
