"""The reference evaluator's values over their edges, against onnx.reference and
onnxruntime (wirecodec/reference/_values.py, _evaluator.py, ops/signal.py, ops/ml/maps.py):

* every way a Constant's tensor stores its data (raw_data, short and long ``float_data`` (a
  long run waits in the decoded buffer), ``int32_data``, ``int64_data``, ``double_data``),
  from a lazily decoded model: the output equals onnx.reference's, and stays so when the
  buffer the model was decoded from is overwritten after the evaluator was built;
* sparse tensors of rank 1, 2 and 3 with linear (1-D) and coordinate (2-D) indices, as a
  Constant's ``sparse_value`` and as a sparse initializer: the dense values onnx.proto defines;
* a feed named as an initializer, for every kind of initializer: the fed value wins, as
  in onnx.reference;
* STFT with ``onesided`` absent, 0 and 1, a window or a frame length: onnx.reference's;
* CastMap to SPARSE with keys at 0, at ``max_map - 1``, at ``max_map`` and past it, for
  ``cast_to`` float and int64: onnxruntime's (its strings print floats C's way).
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
onnx = pytest.importorskip("onnx", reason="the models are built with onnx.helper")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from wirecodec.reference import ReferenceEvaluator  # noqa: E402


def _model(nodes: list[Any], inputs: list[Any], outputs: list[str], opset: int = 18, **graph: Any) -> bytes:
    made = helper.make_graph(nodes, "g", inputs, [onnx.ValueInfoProto(name=o) for o in outputs], **graph)
    imports = [helper.make_opsetid("", opset), helper.make_opsetid("ai.onnx.ml", 3)]
    return helper.make_model(made, ir_version=10, opset_imports=imports).SerializeToString()  # type: ignore[no-any-return]


def _onnx(data: bytes, feeds: dict[str, Any]) -> list[Any]:
    from onnx.reference import ReferenceEvaluator as OnnxEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return list(OnnxEvaluator(onnx.ModelProto.FromString(data)).run(None, feeds))


def _stored(kind: str, count: int) -> Any:
    values = np.arange(count, dtype=np.float64) - count / 2
    if kind == "raw":
        return numpy_helper.from_array(values.astype(np.float32), "c")
    if kind == "float_data":
        return helper.make_tensor("c", TensorProto.FLOAT, [count], values.astype(np.float32).tolist())
    if kind == "int32_data":
        return helper.make_tensor("c", TensorProto.INT32, [count], values.astype(np.int32).tolist())
    if kind == "int64_data":
        return helper.make_tensor("c", TensorProto.INT64, [count], values.astype(np.int64).tolist())
    return helper.make_tensor("c", TensorProto.DOUBLE, [count], values.tolist())


@pytest.mark.parametrize("count", [3, 64, 65, 5000])  # short, at and past the short-list limit, a waiting run
def test_constants_of_every_storage_are_onnx_values_and_hold_no_view_of_the_model(count: int) -> None:
    for kind in ("raw", "float_data", "int32_data", "int64_data", "double_data"):
        node = helper.make_node("Constant", [], ["y"], value=_stored(kind, count))
        data = _model([node], [], ["y"])
        (theirs,) = _onnx(data, {})
        # Built from a buffer the caller owns and then reuses: the evaluator's values are its own
        # (onnx's evaluator holds a parsed copy), whatever the buffer holds afterwards.
        buffer = bytearray(data)
        evaluator = ReferenceEvaluator(buffer)
        buffer[:] = bytes(len(buffer))
        (ours,) = evaluator.run(None, {})
        assert ours.dtype == theirs.dtype and ours.shape == theirs.shape, kind
        np.testing.assert_array_equal(ours, theirs, err_msg=kind)


def _sparse(shape: list[int], linear: bool) -> tuple[Any, Any]:
    """A sparse tensor holding 5 and 6 at two places, and its dense value (onnx.proto's
    definition: linear indices into the flattened tensor, or one coordinate row per value)."""
    dense = np.zeros(shape, np.float32)
    flat_at = np.array([1, int(np.prod(shape)) - 1], np.int64)
    dense.reshape(-1)[flat_at] = [5.0, 6.0]
    values = numpy_helper.from_array(np.array([5.0, 6.0], np.float32), "s")
    if linear:
        indices = numpy_helper.from_array(flat_at, "i")
    else:
        coordinates = np.stack(np.unravel_index(flat_at, shape), axis=1).astype(np.int64)
        indices = numpy_helper.from_array(coordinates, "i")
    return helper.make_sparse_tensor(values, indices, shape), dense


@pytest.mark.parametrize(
    ("shape", "linear"), list(itertools.product([[6], [2, 3], [2, 2, 3]], [True, False]))
)
def test_sparse_values_of_every_rank_and_index_form_are_their_dense_values(
    shape: list[int], linear: bool
) -> None:
    if len(shape) == 1 and not linear:
        pytest.skip("a rank-1 tensor's coordinates are its linear indices")
    # (onnx.reference gives no sparse Constant's value: its SparseTensor is no output type)
    sparse, dense = _sparse(shape, linear)
    constant = _model([helper.make_node("Constant", [], ["y"], sparse_value=sparse)], [], ["y"])
    (ours,) = ReferenceEvaluator(constant).run(None, {})
    np.testing.assert_array_equal(ours, dense)
    initializer = _model([helper.make_node("Identity", ["s"], ["y"])], [], ["y"], sparse_initializer=[sparse])
    (ours,) = ReferenceEvaluator(initializer).run(None, {})
    np.testing.assert_array_equal(ours, dense)


@pytest.mark.parametrize("kind", ["raw", "float_data", "int64_data", "double_data"])
def test_a_feed_named_as_an_initializer_wins_as_in_onnx(kind: str) -> None:
    init = _stored(kind, 4)
    x = helper.make_tensor_value_info("c", init.data_type, [4])
    data = _model([helper.make_node("Identity", ["c"], ["y"])], [x], ["y"], initializer=[init])
    fed = (np.arange(4) + 100).astype(numpy_helper.to_array(init).dtype)
    (ours,) = ReferenceEvaluator(data).run(None, {"c": fed})
    (theirs,) = _onnx(data, {"c": fed})
    np.testing.assert_array_equal(theirs, fed)
    np.testing.assert_array_equal(ours, theirs)
    (unfed,) = ReferenceEvaluator(data).run(None, {})
    np.testing.assert_array_equal(unfed, numpy_helper.to_array(init))


@pytest.mark.parametrize(
    ("onesided", "by"), list(itertools.product([None, 0, 1], ["window", "frame_length", "both"]))
)
def test_stft_of_every_onesided_and_framing_is_onnx_value(onesided: int | None, by: str) -> None:
    signal = np.sin(np.arange(32, dtype=np.float32) / 3).reshape(1, 32, 1)
    inputs = ["signal", "step", "window" if by != "frame_length" else "", "length" if by != "window" else ""]
    while inputs[-1] == "":
        inputs.pop()
    attrs = {} if onesided is None else {"onesided": onesided}
    node = helper.make_node("STFT", inputs, ["y"], **attrs)
    init = [numpy_helper.from_array(np.array(4, np.int64), "step")]
    if by != "frame_length":
        init.append(numpy_helper.from_array(np.hanning(8).astype(np.float32), "window"))
    if by != "window":
        init.append(numpy_helper.from_array(np.array(8, np.int64), "length"))
    x = helper.make_tensor_value_info("signal", TensorProto.FLOAT, [1, 32, 1])
    data = _model([node], [x], ["y"], opset=17, initializer=init)
    (ours,) = ReferenceEvaluator(data).run(None, {"signal": signal})
    (theirs,) = _onnx(data, {"signal": signal})
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("cast_to", ["TO_FLOAT", "TO_INT64"])  # (TO_STRING: ORT prints 0.500000)
def test_cast_map_sparse_keys_at_and_past_max_map_as_onnxruntime(cast_to: str) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the oracle for CastMap")
    max_map = 4
    node = helper.make_node(
        "CastMap", ["m"], ["y"], domain="ai.onnx.ml", cast_to=cast_to, map_form="SPARSE", max_map=max_map
    )
    values = helper.make_tensor_type_proto(TensorProto.FLOAT, [])
    m = helper.make_value_info("m", helper.make_map_type_proto(TensorProto.INT64, values))
    data = _model([node], [m], ["y"])
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for keys in ([0], [max_map - 1], [max_map], [max_map + 3], [0, max_map - 1, max_map, max_map + 1]):
        feed = {k: float(k) + 0.5 for k in keys}
        (ours,) = ReferenceEvaluator(data).run(None, {"m": feed})
        (theirs,) = session.run(None, {"m": feed})
        assert ours.shape == theirs.shape, keys
        np.testing.assert_array_equal(ours, theirs, err_msg=str(keys))
