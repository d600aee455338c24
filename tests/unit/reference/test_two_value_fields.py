"""A tensor with two value fields is refused by a build as ``to_array`` refuses it, whichever
quick path (``_values``: raw_data only, waiting floats, a few listed floats) looks at it
first: each tells the fields a tensor holds from its presence bits, in one mask."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from schema_dsl.onnx import TensorProto
from wirecodec import encode, helper
from wirecodec.errors import TensorError
from wirecodec.tensors import to_array

FLOAT = 1


def _tensor(raw: bool, floats: int, ints: int = 0) -> Any:
    tensor = TensorProto()
    tensor.name = "w"
    tensor.data_type = FLOAT
    tensor.dims.extend([max(floats, 1)])
    if raw:
        tensor.raw_data = np.ones(max(floats, 1), np.float32).tobytes()
    tensor.float_data.extend([0.5] * floats)
    tensor.int32_data.extend([1] * ints)
    return tensor


def _as_initializer(tensor: Any) -> bytes:
    node = helper.make_node("Identity", ["w"], ["y"])
    graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", FLOAT, None)], [tensor])
    return encode(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))


def _as_constant(tensor: Any) -> bytes:
    node = helper.make_node("Constant", [], ["y"], value=tensor)
    graph = helper.make_graph([node], "g", [], [helper.make_tensor_value_info("y", FLOAT, None)])
    return encode(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)]))


@pytest.mark.parametrize(
    ("raw", "floats", "ints"),
    [(True, 1, 0), (True, 40, 0), (False, 1, 1), (False, 40, 40)],
    ids=["raw-and-few-floats", "raw-and-a-run-of-floats", "few-floats-and-int32", "run-of-floats-and-int32"],
)
@pytest.mark.parametrize("place", [_as_initializer, _as_constant], ids=["initializer", "constant"])
def test_two_value_fields_are_refused_as_to_array_refuses_them(
    raw: bool, floats: int, ints: int, place: Any
) -> None:
    from wirecodec.reference import ReferenceEvaluator

    tensor = _tensor(raw, floats, ints)
    with pytest.raises(TensorError) as expected:
        to_array(tensor)
    with pytest.raises(TensorError) as got:
        ReferenceEvaluator(place(tensor)).run(None, {})
    assert str(got.value) == str(expected.value)


@pytest.mark.parametrize(("raw", "floats"), [(True, 0), (False, 1), (False, 40)])
def test_one_value_field_is_read_as_to_array_reads_it(raw: bool, floats: int) -> None:
    from wirecodec.reference import ReferenceEvaluator

    tensor = _tensor(raw, floats)
    (got,) = ReferenceEvaluator(_as_initializer(tensor)).run(None, {})
    np.testing.assert_array_equal(got, to_array(tensor))
