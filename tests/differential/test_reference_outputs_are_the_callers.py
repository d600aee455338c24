"""What a run hands back can be written without changing the next run, or the caller's
feeds: side by side with onnx.reference on outputs that are a Constant's value, an
initializer, an Identity of each, and an Identity of a feed."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import wirecodec.reference as ours
from tests.support.reference import require_onnx

onnx = require_onnx()
from onnx import helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

OUTPUTS = ("constant", "of_constant", "initializer", "of_initializer", "of_feed")


def _model() -> Any:
    value = numpy_helper.from_array(np.arange(3, dtype=np.float32))
    nodes = [
        helper.make_node("Constant", [], ["constant"], value=value),
        helper.make_node("Identity", ["constant"], ["of_constant"]),
        helper.make_node("Identity", ["initializer"], ["of_initializer"]),
        helper.make_node("Identity", ["x"], ["of_feed"]),
    ]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", 1, [3])],
        [helper.make_tensor_value_info(name, 1, [3]) for name in OUTPUTS],
        [numpy_helper.from_array(np.arange(3, dtype=np.float32) + 10, "initializer")],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def _written(evaluator: Any) -> tuple[list[bool], list[list[float]], list[float]]:
    """Each output's writeability, every output of a second run after writing 42 into
    each writable output of the first, and the feed after both runs."""
    feed = np.array([7, 8, 9], dtype=np.float32)
    first = evaluator.run(None, {"x": feed})
    writable = [bool(a.flags.writeable) for a in first]
    for array in first:
        if array.flags.writeable:
            array[0] = 42
        else:
            with pytest.raises(ValueError, match="read-only"):
                array[0] = 42
    again = [a.tolist() for a in evaluator.run(None, {"x": feed})]
    return writable, again, feed.tolist()


def test_writing_into_outputs_changes_no_later_run_and_no_feed_as_onnx() -> None:
    model = _model()
    theirs = _written(ReferenceEvaluator(model))
    mine = _written(ours.ReferenceEvaluator(model.SerializeToString()))
    assert mine == theirs
    assert theirs[1][0] == [0.0, 1.0, 2.0] and theirs[2] == [7.0, 8.0, 9.0]  # what onnx keeps


def test_an_array_handed_in_a_model_container_stays_the_callers() -> None:
    """A ModelContainer's large initializer is the caller's own array: the evaluator reads
    it through a read-only view, never changing the caller's flags. onnx hands the caller's
    array back writable (a write into that output changes the caller's array and every
    later run); here that output is read-only, as onnx's other initializers are."""
    import onnx.model_container as theirs_container

    from wirecodec import helper as our_helper
    from wirecodec.onnx_compat import model_container as ours_container

    def build(helper_: Any, container: Any, big: Any) -> Any:
        tensor = container.make_large_tensor_proto("#W", "W", 1, [3])
        graph = helper_.make_graph(
            [helper_.make_node("Identity", ["W"], ["copy"])],
            "g",
            [],
            [helper_.make_tensor_value_info("W", 1, [3]), helper_.make_tensor_value_info("copy", 1, [3])],
            [tensor],
        )
        return container.make_large_model(graph, {"#W": big}, opset_imports=[helper_.make_opsetid("", 18)])

    seen = []
    for helper_, container, engine in (
        (helper, theirs_container, ReferenceEvaluator),
        (our_helper, ours_container, ours.ReferenceEvaluator),
    ):
        big = np.arange(3, dtype=np.float32) + 10
        outputs = engine(build(helper_, container, big)).run(None, {})
        flags = [bool(a.flags.writeable) for a in outputs]
        seen.append(([a.tolist() for a in outputs], flags, bool(big.flags.writeable)))
    (their_values, their_flags, _), (my_values, my_flags, caller_writable) = seen
    assert my_values == their_values
    assert their_flags == [True, True] and my_flags == [False, True]  # the one difference
    assert caller_writable
