"""Encoding a long graph after everyday edits is byte-identical to onnx's (issue 48, item 7).

A decoded graph re-emits its unchanged source bytes and encodes again only what changed
(wirecodec.protobuf.origin). The oracle is onnx (upb): one model, built here with
``onnx.helper`` in a few shapes (attributes of every common kind, ``If`` sub-graphs,
value_infos with symbolic and fixed dims, doc strings), is parsed by both libraries from
the same bytes, the same edit program runs on both through the API they share, and the
encodings must be equal — through ``encode`` with and without reuse of the source bytes,
``encode_into`` (the two-pass writer) and ``ByteSize``. The graphs are below and above
1,024 nodes, where decoding keeps a long field's elements as records read through views.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto

onnx = pytest.importorskip("onnx", reason="the oracle is the onnx package (upb)")
helper = onnx.helper

SIZES = (300, 1500)  # below and above the records threshold (1,024 elements)
LONG = "n" * 150  # a name whose record needs a two-byte length


def _graph_nodes(count: int, prefix: str, depth: int) -> tuple[list[Any], list[Any]]:
    """``count`` nodes of a few shapes, and a value_info per node output."""
    nodes: list[Any] = []
    infos: list[Any] = []
    previous = f"{prefix}input"
    for i in range(count):
        name = f"{prefix}/layer.{i // 4}/op{i}"
        out = f"{name}_out"
        shape = i % 4
        if shape == 0:
            node = helper.make_node(
                "Conv", [previous, f"{prefix}w{i}"], [out], name=name, kernel_shape=[3, 3], pads=[1, 1, 1, 1]
            )
        elif shape == 1:
            node = helper.make_node(
                "LeakyRelu", [previous], [out], name=name, alpha=0.25, doc_string="d" * (i % 3)
            )
        elif shape == 2 and depth == 0 and i % 8 == 2:
            branches = {
                f"{b}_branch": helper.make_graph(
                    _graph_nodes(2, f"{name}/{b}", depth + 1)[0],
                    f"{name}/{b}",
                    [],
                    [
                        helper.make_tensor_value_info(
                            f"{name}/{b}/layer.0/op1_out", onnx.TensorProto.FLOAT, [2]
                        )
                    ],
                )
                for b in ("then", "else")
            }
            node = helper.make_node("If", ["cond"], [out], name=name, **branches)
        elif shape == 2:
            values = [i, -i, *range(40 * (i % 3))]  # (some attributes past 127 bytes)
            tensor = helper.make_tensor(f"{name}/t", onnx.TensorProto.INT64, [len(values)], values)
            node = helper.make_node("Constant", [], [out], name=name, value=tensor)
        else:
            node = helper.make_node("Gelu", [previous], [out], name=name, approximate="tanh", domain="")
        nodes.append(node)
        dims: list[int | str] = ["batch", i % 300, 4] if i % 2 else ["batch", "seq"]
        infos.append(helper.make_tensor_value_info(out, onnx.TensorProto.FLOAT, dims))
        previous = out
    return nodes, infos


def _model_bytes(count: int) -> bytes:
    nodes, infos = _graph_nodes(count, "", 0)
    graph = helper.make_graph(
        nodes,
        "edits",
        [helper.make_tensor_value_info("input", onnx.TensorProto.FLOAT, ["batch", 3])],
        [infos.pop()],
        value_info=infos,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    data: bytes = model.SerializeToString()
    return data


_BYTES: dict[int, bytes] = {}


def _source(count: int) -> bytes:
    if count not in _BYTES:
        _BYTES[count] = _model_bytes(count)
    return _BYTES[count]


# -- the edit programs: each runs as it is on an onnx model and on a wirecodec one ---------


def rename_every_node(m: Any) -> None:
    for node in m.graph.node:
        node.name = node.name + "/renamed"


def rename_every_node_long(m: Any) -> None:
    for node in m.graph.node:
        node.name = LONG  # the record's length grows from one byte to two


def rename_some_nodes(m: Any) -> None:
    for i, node in enumerate(m.graph.node):
        if i % 7 == 3:
            node.name = f"x{i}"


def rename_to_empty(m: Any) -> None:
    for node in m.graph.node[::5]:
        node.name = ""


def clear_names(m: Any) -> None:
    for node in m.graph.node[1::3]:
        node.ClearField("name")


def rename_and_retype(m: Any) -> None:
    for i, node in enumerate(m.graph.node):
        node.name = node.name.upper()
        if i % 11 == 0:
            node.op_type = "Identity"
        if i % 13 == 0:
            node.doc_string = "changed" * (i % 30)


def edit_inputs_and_outputs(m: Any) -> None:
    for i, node in enumerate(m.graph.node):
        if node.input and i % 2:
            node.input[0] = node.input[0] + "'"
        if i % 9 == 0:
            node.output.append(f"extra{i}")


def edit_attributes(m: Any) -> None:
    for i, node in enumerate(m.graph.node):
        for attribute in node.attribute:
            if attribute.name == "alpha":
                attribute.f = 0.5 + i
            elif attribute.name == "pads" and i % 3 == 0:
                attribute.ints[0] = 300 + i
            elif attribute.name == "kernel_shape":
                attribute.ints.append(1)
            elif attribute.name == "approximate" and i % 2:
                attribute.s = b"none"
            elif attribute.name == "value":
                attribute.t.int64_data[1] = -(10**12)


def add_and_remove_attributes(m: Any) -> None:
    for i, node in enumerate(m.graph.node):
        if i % 4 == 1:
            node.attribute.add(name="extra", type=onnx.AttributeProto.INT, i=i)
        elif i % 4 == 0 and len(node.attribute) > 1:
            del node.attribute[0]


def rename_and_attribute(m: Any) -> None:
    for i, node in enumerate(m.graph.node):
        node.name = f"{i}"
        if node.attribute and i % 3 == 0:
            node.attribute[0].name = node.attribute[0].name + "_"


def rename_and_borrow_attributes(m: Any) -> None:
    """A renamed node gets other nodes' attributes (decoded elsewhere) and copies of its own."""
    nodes = m.graph.node
    for i in range(1, len(nodes)):
        nodes[i].name = "b"
        if i % 5 == 0:
            nodes[i].attribute.extend(nodes[i - 1].attribute)
        elif i % 5 == 1 and len(nodes[i].attribute):
            nodes[i].attribute.add().CopyFrom(nodes[i].attribute[0])
        elif i % 5 == 2 and len(nodes[i - 2].attribute):
            nodes[i].attribute.append(nodes[i - 2].attribute[-1])


def rename_even_edit_odd(m: Any) -> None:
    """As many changes as nodes: half of them inside the nodes (an attribute each)."""
    for i, node in enumerate(m.graph.node):
        if i % 2 == 0:
            node.name = f"even{i}"
        else:
            node.attribute[0].name = "odd"


def rename_graph_and_delete_nodes(m: Any) -> None:
    """The graph changes itself and its node list: the node list is encoded whole."""
    m.graph.name = "renamed graph"
    del m.graph.node[7]
    for node in m.graph.node[::4]:
        node.name = node.name + "#"


def edit_dims(m: Any) -> None:
    for i, info in enumerate(m.graph.value_info):
        dims = info.type.tensor_type.shape.dim
        if i % 3 == 0:
            dims[0].dim_param = "B"
        elif i % 3 == 1 and len(dims) > 1:
            dims[1].dim_value = 100000 + i
        else:
            dims.add(dim_value=7)


def rename_everything(m: Any) -> None:
    for node in m.graph.node:
        node.name = node.name + "!"
    for info in m.graph.value_info:
        info.name = info.name + "!"
        info.type.tensor_type.shape.dim[0].dim_param = "N"


def edit_subgraphs(m: Any) -> None:
    for node in m.graph.node:
        node.name = node.name + "/r"
        for attribute in node.attribute:
            if attribute.type == onnx.AttributeProto.GRAPH:
                attribute.g.node[0].name = "inner"
                attribute.g.name = attribute.g.name + "/r"


def pop_and_rename(m: Any) -> None:
    nodes = m.graph.node
    nodes.pop()
    nodes.pop(0)
    for node in nodes:
        node.name = node.name + "-"


def copy_between_nodes(m: Any) -> None:
    nodes = m.graph.node
    nodes[5].CopyFrom(nodes[6])
    nodes[7].MergeFrom(nodes[9])
    for node in nodes[20:40]:
        node.name = "renamed"


def rename_then_restore(m: Any) -> None:
    for node in m.graph.node:
        old = node.name
        node.name = "tmp"
        node.name = old


def sort_and_rename(m: Any) -> None:
    nodes = m.graph.node
    nodes.sort(key=lambda n: n.name)
    for node in nodes[::3]:
        node.name = node.name + "s"


EDITS: tuple[Callable[[Any], None], ...] = (
    rename_every_node,
    rename_every_node_long,
    rename_some_nodes,
    rename_to_empty,
    clear_names,
    rename_and_retype,
    edit_inputs_and_outputs,
    edit_attributes,
    add_and_remove_attributes,
    rename_and_attribute,
    rename_and_borrow_attributes,
    rename_even_edit_odd,
    rename_graph_and_delete_nodes,
    edit_dims,
    rename_everything,
    edit_subgraphs,
    pop_and_rename,
    copy_between_nodes,
    rename_then_restore,
    sort_and_rename,
)


def _insert_program(node_class: Any) -> Callable[[Any], None]:
    def delete_insert_rename(m: Any) -> None:
        nodes = m.graph.node
        del nodes[10:20]
        nodes.insert(3, node_class(name="new", op_type="Relu"))
        for node in nodes[::2]:
            node.name = node.name + "+"

    return delete_insert_rename


def _check(size: int, edit: Callable[[Any], None], mine_edit: Callable[[Any], None], records: bool) -> None:
    data = _source(size)
    theirs = onnx.load_model_from_string(data)
    mine = wirecodec.decode(ModelProto, data, records=records)
    edit(theirs)
    mine_edit(mine)
    expected = theirs.SerializeToString()
    assert wirecodec.encode(mine) == expected
    assert wirecodec.encode(mine, reuse_source=False) == expected
    out = io.BytesIO()
    assert wirecodec.encode_into(mine, out) == len(expected)
    assert out.getvalue() == expected
    assert mine.ByteSize() == len(expected)
    # A second encode of the same edited model (nothing cached goes stale).
    assert wirecodec.encode(mine) == expected


@pytest.mark.parametrize("records", [True, False], ids=["records", "messages"])
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("edit", EDITS, ids=lambda e: e.__name__)
def test_edits_encode_as_onnx_does(edit: Callable[[Any], None], size: int, records: bool) -> None:
    _check(size, edit, edit, records)


@pytest.mark.parametrize("records", [True, False], ids=["records", "messages"])
@pytest.mark.parametrize("size", SIZES)
def test_deleted_inserted_and_renamed_nodes_encode_as_onnx_does(size: int, records: bool) -> None:
    from schema_dsl.onnx import NodeProto

    _check(size, _insert_program(onnx.NodeProto), _insert_program(NodeProto), records)


@pytest.mark.quick
def test_every_node_renamed_encodes_as_onnx_does() -> None:
    _check(SIZES[1], rename_every_node, rename_every_node, True)


def test_edits_after_an_encode_encode_as_onnx_does() -> None:
    """Edits made after a first encode show in the next (the first left nothing behind)."""
    data = _source(SIZES[1])
    theirs = onnx.load_model_from_string(data)
    mine = wirecodec.decode(ModelProto, data)
    for edit in (rename_every_node, edit_attributes, rename_some_nodes, edit_dims):
        edit(theirs)
        edit(mine)
        assert wirecodec.encode(mine) == theirs.SerializeToString(), edit.__name__
