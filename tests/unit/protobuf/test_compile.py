"""The schema compiler: generated code readable in tracebacks, stable names, no shared hidden state."""

from __future__ import annotations

import gc
import math
import os
import struct
import traceback
import weakref
from typing import Final

import pytest

import wirecodec
from schema_dsl import FLOAT, INT64, Message, optional, repeated
from schema_dsl.onnx import AttributeProto, GraphProto, NodeProto, TensorProto
from tests.support.decode_modes import EVERY_ELEMENT
from wirecodec import decode, encode
from wirecodec.protobuf import shipped
from wirecodec.protobuf.compile import decoder, encoder
from wirecodec.protobuf.lazy import waiting_fields

# A float32 signalling NaN with a payload: widening it to a Python float sets the quiet bit.
_SNAN: Final = struct.pack("<I", 0x7F800001)
# AttributeProto.floats (field 7) is not packed: one fixed32 record per value.
_UNPACKED: Final = (AttributeProto, b"\x3d" + _SNAN + b"\x3d" + struct.pack("<f", 2.0))
# TensorProto.float_data (field 4) is packed: one length-delimited run.
_PACKED: Final = (TensorProto, b"\x22\x08" + _SNAN + struct.pack("<f", 2.0))


@pytest.mark.parametrize(("cls", "data"), [_UNPACKED, _PACKED], ids=["unpacked", "packed"])
def test_nan_payload_survives_copyfrom_and_merge(cls: type[Message], data: bytes) -> None:
    original = decode(cls, data)
    values = original.floats if cls is AttributeProto else original.float_data
    assert math.isnan(values[0])
    copied = cls()
    copied.CopyFrom(original)  # a plain list now: the encoder must still keep the bytes
    merged = cls()
    merged.MergeFrom(original)
    for message in (original, copied, merged):
        assert encode(message) == data


@pytest.mark.parametrize(("cls", "data"), [_UNPACKED, _PACKED], ids=["unpacked", "packed"])
def test_reference_serializer_agrees_on_the_nan_bytes(cls: type[Message], data: bytes) -> None:
    onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
    theirs = getattr(onnx, cls.__name__).FromString(data)
    copied = getattr(onnx, cls.__name__)()
    copied.CopyFrom(theirs)
    ours = cls()
    ours.CopyFrom(decode(cls, data))
    assert encode(ours) == copied.SerializeToString()


def test_a_traceback_through_generated_code_shows_its_source() -> None:
    node = NodeProto(input=["x"])
    list.append(node.input, 7)  # past the container's check: fails inside the generated encoder
    with pytest.raises(AttributeError) as info:
        encoder(NodeProto)(node, [])
    frames = traceback.extract_tb(info.tb)
    # NodeProto's codecs are shipped as source (wirecodec/_codecs): frames show its file.
    shipped_file = os.path.join(shipped.FOLDER, "encode", "NodeProto.py")
    generated = [f for f in frames if f.filename.startswith("<wirecodec ") or f.filename == shipped_file]
    assert generated, [f.filename for f in frames]
    assert generated[-1].filename in ("<wirecodec encode schema_dsl.onnx.NodeProto>", shipped_file)
    assert generated[-1].name == "encode_NodeProto"
    assert "encode('utf-8', 'surrogateescape')" in (generated[-1].line or "")  # from linecache


def test_generated_names_depend_only_on_the_class() -> None:
    for cls in (GraphProto, NodeProto, TensorProto.Segment):
        name = cls.__qualname__.replace(".", "_")
        assert decoder(cls).__name__ == f"decode_{name}"
        assert encoder(cls).__name__ == f"encode_{name}"
    # GraphProto's decoder calls NodeProto's through a name made from the field.
    assert "_d_node(buf, mv, pos, p2, depth - 1, src)" in wirecodec.source(GraphProto)


def test_codecs_of_a_class_go_away_with_it() -> None:
    class Leaf(Message):
        x: int = optional(1, INT64)
        weights: list[float] = repeated(2, FLOAT)

    leaf = decode(Leaf, encode(Leaf(x=3, weights=[0.5])))
    assert leaf.x == 3 and leaf.weights == [0.5]
    assert set(Leaf.__schema__.codecs) == {"encode", "decode+lazy"}
    gone = weakref.ref(Leaf)
    del Leaf, leaf
    gc.collect()
    assert gone() is None


def test_every_element_waiting_is_a_separate_codec_not_a_patch() -> None:
    data = encode(GraphProto(node=[NodeProto(op_type="Relu")] * 6))
    eager_before = decoder(GraphProto, lazy=True)
    assert decoder(GraphProto, lazy=True, representation=EVERY_ELEMENT) is not eager_before
    graph = decode(GraphProto, data, representation=EVERY_ELEMENT)
    assert waiting_fields(graph) == ["node"]  # every element waits, even the first four
    assert decoder(GraphProto, lazy=True) is eager_before
    assert waiting_fields(decode(GraphProto, data)) == ["node"]  # past the first four, small ones wait
    assert [n.op_type for n in graph.node] == ["Relu"] * 6
    assert "decode+lazy-all" in GraphProto.__schema__.codecs  # compiled codecs live with the class
