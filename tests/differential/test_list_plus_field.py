"""``[] + field``: a list in front of a repeated field, against onnx's elements.

protobuf's containers refuse ``+`` (TypeError). wirecodec's are lists, so the expression
runs; it must then give the field's elements — the live views a read gives — and never
the container's storage, which holds waiting offsets and sealed records, not elements.
Run in every decode mode, on graphs below and above the records threshold, with the
expression as the field's first use and after a read.
"""

from __future__ import annotations

from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.decode_modes import DecodeMode
from tests.support.reference import require_onnx

onnx = require_onnx()

SIZES = (7, 2000)  # below and above RECORDS_AFTER (1,024)

FIELDS = {
    "nodes": lambda m: m.graph.node,
    "value_infos": lambda m: m.graph.value_info,
    "a node's inputs": lambda m: m.graph.node[3].input,
    "a node's attributes": lambda m: m.graph.node[3].attribute,
    "a shape's dims": lambda m: m.graph.value_info[2].type.tensor_type.shape.dim,
}


def _model_bytes(nodes: int) -> bytes:
    helper = onnx.helper
    made = [
        helper.make_node("Transpose", [f"x{i}", "extra"], [f"x{i + 1}"], name=f"n{i}", perm=[1, 0])
        for i in range(nodes)
    ]
    values = [helper.make_tensor_value_info(f"x{i + 1}", 1, ["batch", i]) for i in range(nodes)]
    graph = helper.make_graph(made, "g", [], [], value_info=values)
    return helper.make_model(graph).SerializeToString()


def _as_text(element: Any) -> str:
    return element if isinstance(element, str) else element.SerializeToString().hex()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("field", FIELDS)
@pytest.mark.parametrize("first_use", [True, False], ids=["first-use", "after-a-read"])
def test_a_list_plus_a_field_gives_its_elements(
    decode_mode: DecodeMode, size: int, field: str, first_use: bool
) -> None:
    data = _model_bytes(size)
    theirs = FIELDS[field](onnx.load_model_from_string(data))
    with pytest.raises(TypeError):
        [] + theirs  # noqa: RUF005  (protobuf's answer: no list concatenation)
    model = decode_mode.decode(ModelProto, data)
    if not first_use:
        assert len(FIELDS[field](model)[0:1]) == 1  # a read first
    mine = FIELDS[field](model)
    joined = ["front"] + mine  # noqa: RUF005
    assert joined[0] == "front"
    assert [_as_text(e) for e in joined[1:]] == [_as_text(e) for e in theirs]
    if not isinstance(joined[-1], str):
        assert joined[-1] is mine[-1]  # the live element: a write through it is the model's


def test_a_tuple_plus_a_field_is_refused_as_by_onnx() -> None:
    data = _model_bytes(SIZES[1])
    mine = wirecodec.decode(ModelProto, data).graph.node
    theirs = onnx.load_model_from_string(data).graph.node
    for field in (mine, theirs):
        with pytest.raises(TypeError):
            (1,) + field  # noqa: RUF005
