"""Saving with external data: what moves (as onnx decides), and what is never lost.

The first test is differential: the set of tensors our ``save`` moves out equals the set
``onnx.save_model`` moves out of the same model, and onnx loads what we wrote. The rest
pin down files we must never delete or overwrite, and the permissions of what we write.
"""

from __future__ import annotations

import os
import pathlib
import stat
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, StringStringEntryProto, TensorProto
from wirecodec import ExternalDataError
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.load import load
from wirecodec.files.save import save

onnx = pytest.importorskip("onnx", reason="onnx is the reference for what moves (test extra)")
from onnx import helper, numpy_helper  # noqa: E402

OT = onnx.TensorProto


def _rich_model() -> Any:
    """Initializers, a sparse initializer, an If with subgraph initializers, attribute tensors."""
    rng = np.random.default_rng(3)

    def weights(name: str, n: int) -> Any:
        return numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), name)

    branch = {
        side: helper.make_graph(
            [helper.make_node("Add", ["x", f"{side}_w"], [f"{side}_y"])],
            side,
            [],
            [helper.make_tensor_value_info(f"{side}_y", OT.FLOAT, [2048])],
            initializer=[weights(f"{side}_w", 2048)],
        )
        for side in ("then", "else")
    }
    sparse = helper.make_sparse_tensor(
        weights("sv", 1024), numpy_helper.from_array(np.arange(1024, dtype=np.int64), "si"), [4096]
    )
    nodes = [
        helper.make_node("Constant", [], ["c"], value=weights("attr_t", 2048)),
        helper.make_node("If", ["cond"], ["y"], then_branch=branch["then"], else_branch=branch["else"]),
    ]
    graph = helper.make_graph(
        nodes,
        "rich",
        [
            helper.make_tensor_value_info("x", OT.FLOAT, [2048]),
            helper.make_tensor_value_info("cond", OT.BOOL, []),
        ],
        [helper.make_tensor_value_info("y", OT.FLOAT, [2048])],
        initializer=[weights("big", 4096), weights("small", 8)],
        sparse_initializer=[sparse],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _external_names(path: pathlib.Path) -> set[str]:
    model = load(path, load_external_data=False)
    return {t.name for t in iter_tensors(model) if t.data_location == TensorProto.DataLocation.EXTERNAL}


def _onnx_external_names(model: Any) -> set[str]:
    from onnx.external_data_helper import _get_all_tensors, uses_external_data

    return {t.name for t in _get_all_tensors(model) if uses_external_data(t)}


@pytest.mark.parametrize("convert_attribute", [False, True])
def test_we_move_exactly_the_tensors_onnx_moves(tmp_path: pathlib.Path, convert_attribute: bool) -> None:
    reference = _rich_model()
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    onnx.save_model(
        _rich_model(),  # onnx converts the model it saves in place
        str(theirs / "m.onnx"),
        save_as_external_data=True,
        size_threshold=1024,
        convert_attribute=convert_attribute,
    )
    expected = _onnx_external_names(onnx.load(str(theirs / "m.onnx"), load_external_data=False))
    assert "big" in expected and "small" not in expected and "sv" not in expected

    ours = tmp_path / "ours"
    ours.mkdir()
    model = wirecodec.decode(ModelProto, reference.SerializeToString())
    save(model, ours / "m.onnx", external_data=True, size_threshold=1024, convert_attribute=convert_attribute)
    assert _external_names(ours / "m.onnx") == expected
    # ... and onnx reads back every array we wrote.
    back = onnx.load(str(ours / "m.onnx"))
    for tensor in reference.graph.initializer:
        found = next(t for t in back.graph.initializer if t.name == tensor.name)
        np.testing.assert_array_equal(numpy_helper.to_array(found), numpy_helper.to_array(tensor))


def _weights_model(name: str = "w") -> ModelProto:
    weights = wirecodec.from_array(np.arange(1024, dtype=np.float32), name)
    return ModelProto(ir_version=9, graph=GraphProto(name="g", initializer=[weights]))


def test_resaving_a_model_loaded_without_its_data_keeps_that_data(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    save(_weights_model(), path, external_data=True, size_threshold=0)
    model = load(path, load_external_data=False)  # still points at m.onnx.data
    save(model, path, external_data=True, size_threshold=0)
    again = load(path)
    assert wirecodec.to_array(again.graph.initializer[0]).tolist() == list(range(1024))


def test_saving_again_writes_over_no_data_file_and_deletes_none(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    save(_weights_model(), path, external_data=True, size_threshold=0, location="m.onnx.weights.data")
    save(_weights_model(), path, external_data=True, size_threshold=0)
    assert (tmp_path / "m.onnx.weights.data").exists()  # another model may still use it
    first = (tmp_path / "m.onnx.data").read_bytes()
    save(_weights_model(), path, external_data=True, size_threshold=0)  # m.onnx.data is taken
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "m.onnx",
        "m.onnx.1.data",
        "m.onnx.data",
        "m.onnx.weights.data",
    ]
    assert (tmp_path / "m.onnx.data").read_bytes() == first
    assert wirecodec.to_array(load(path).graph.initializer[0]).tolist() == list(range(1024))


def test_per_tensor_files_never_overwrite_an_unrelated_file(tmp_path: pathlib.Path) -> None:
    (tmp_path / "w").write_bytes(b"unrelated")
    path = tmp_path / "m.onnx"
    save(_weights_model("w"), path, external_data=True, size_threshold=0, all_tensors_to_one_file=False)
    assert (tmp_path / "w").read_bytes() == b"unrelated"
    assert wirecodec.to_array(load(path).graph.initializer[0]).tolist() == list(range(1024))
    # Re-saving the same model may reuse the files it owns, and still spares the other.
    save(_weights_model("w"), path, external_data=True, size_threshold=0, all_tensors_to_one_file=False)
    assert (tmp_path / "w").read_bytes() == b"unrelated"
    assert wirecodec.to_array(load(path).graph.initializer[0]).tolist() == list(range(1024))


def test_an_empty_location_is_refused(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ExternalDataError, match="empty"):
        save(_weights_model(), tmp_path / "m.onnx", external_data=True, location="")
    assert list(tmp_path.iterdir()) == []


def test_written_files_get_the_umask_mode_and_replaced_ones_keep_theirs(tmp_path: pathlib.Path) -> None:
    old = os.umask(0o027)
    try:
        save(_weights_model(), tmp_path / "m.onnx", external_data=True, size_threshold=0)
        for path in tmp_path.iterdir():
            assert stat.S_IMODE(path.stat().st_mode) == 0o640, path.name
        (tmp_path / "m.onnx").chmod(0o604)
        save(_weights_model(), tmp_path / "m.onnx")
        assert stat.S_IMODE((tmp_path / "m.onnx").stat().st_mode) == 0o604
    finally:
        os.umask(old)


def test_a_refused_reference_leaves_the_model_unchanged(tmp_path: pathlib.Path) -> None:
    (tmp_path / "good.bin").write_bytes(np.arange(4, dtype="<f4").tobytes())

    def ref(name: str, location: str) -> TensorProto:
        return TensorProto(
            name=name,
            dims=[4],
            data_type=1,
            data_location=TensorProto.DataLocation.EXTERNAL,
            external_data=[StringStringEntryProto(key="location", value=location)],
        )

    model = ModelProto(graph=GraphProto(initializer=[ref("fine", "good.bin"), ref("evil", "../secret")]))
    before = wirecodec.encode(model)
    with pytest.raises(ExternalDataError, match="evil"):
        wirecodec.files.load.load_external_data_into(model, tmp_path)
    assert wirecodec.encode(model) == before  # "fine" was not half-loaded


@pytest.mark.parametrize("key", ["offset", "length"])
def test_a_number_too_long_for_int_is_an_external_data_error(tmp_path: pathlib.Path, key: str) -> None:
    (tmp_path / "good.bin").write_bytes(bytes(16))
    tensor = TensorProto(
        name="w",
        dims=[4],
        data_type=1,
        data_location=TensorProto.DataLocation.EXTERNAL,
        external_data=[
            StringStringEntryProto(key="location", value="good.bin"),
            StringStringEntryProto(key=key, value="1" * 5000),  # int() itself refuses > 4300 digits
        ],
    )
    path = tmp_path / "m.onnx"
    path.write_bytes(wirecodec.encode(ModelProto(graph=GraphProto(initializer=[tensor]))))
    with pytest.raises(ExternalDataError, match="digits"):
        load(path)
