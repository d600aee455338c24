"""A packed run of enum values holding one its enum lacks: protobuf (a proto2, closed enum)
moves that value to the unknown fields, written after the known ones, so re-encoding never
gives the bytes back as they came; wirecodec must write what upb writes, wherever its
decoder met the run (in an element decoded at once, or in one left waiting and validated
first: the validator must call the run not canonical when *any* value is unknown).

No ONNX message has a packed enum: the schema here is declared for the test, and upb
judges it through a descriptor built from the same declaration.
"""

from __future__ import annotations

import enum
from typing import Any

import pytest

import wirecodec
from schema_dsl import ENUM, MESSAGE, STRING, Message, optional, repeated
from wirecodec.protobuf.representation import Representation


class Shade(enum.IntEnum):
    DARK = 0
    MID = 1
    LIGHT = 2


class Swatch(Message):
    shades: list[int] = repeated(1, ENUM, enum=Shade, packed=True)
    label: str = optional(2, STRING)


class Card(Message):
    swatches: list[Swatch] = repeated(1, MESSAGE)


def _upb_card() -> Any:
    pytest.importorskip("google.protobuf", reason="protobuf (upb) is the reference (test extra)")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    field = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(name="audit7_swatch.proto", package="audit7", syntax="proto2")
    shade = file.enum_type.add(name="Shade")
    for member in Shade:
        shade.value.add(name=member.name, number=int(member))
    swatch = file.message_type.add(name="Swatch")
    shades = swatch.field.add(name="shades", number=1, type=field.TYPE_ENUM, label=field.LABEL_REPEATED)
    shades.type_name = ".audit7.Shade"
    shades.options.packed = True
    swatch.field.add(name="label", number=2, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    card = file.message_type.add(name="Card")
    swatches = card.field.add(name="swatches", number=1, type=field.TYPE_MESSAGE, label=field.LABEL_REPEATED)
    swatches.type_name = ".audit7.Swatch"
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("audit7.Card"))


def _card(runs: list[list[int]]) -> bytes:
    """A Card of one Swatch per run: the run packed (field 1), then a label (field 2)."""
    out = bytearray()
    for run in runs:
        packed = bytes(run)  # every value below 128: one byte each
        swatch = b"\x0a" + bytes([len(packed)]) + packed + b"\x12\x01s"
        out += b"\x0a" + bytes([len(swatch)]) + swatch
    return bytes(out)


@pytest.mark.parametrize(
    "representation", [None, Representation(every_element_waits=True)], ids=["default", "waiting"]
)
@pytest.mark.parametrize("run", [[1, 9, 2], [9, 1], [1, 2, 9], [9]], ids=str)
def test_a_packed_run_with_an_unknown_enum_value_is_written_as_upb_writes_it(
    representation: Representation | None, run: list[int]
) -> None:
    data = _card([[0, 1], [2], run, [1, 2], [0], run])  # the runs past the fourth element wait by default
    theirs = _upb_card().FromString(data)
    want = theirs.SerializeToString()
    assert want != data  # upb moved the unknown values behind the label
    mine = wirecodec.decode(Card, data, representation=representation)
    assert wirecodec.encode(mine) == want
    assert list(mine.swatches[2].shades) == list(theirs.swatches[2].shades) == [v for v in run if v != 9]


@pytest.mark.parametrize(
    "representation", [None, Representation(every_element_waits=True)], ids=["default", "waiting"]
)
def test_a_packed_run_of_known_enum_values_is_copied_as_it_came(
    representation: Representation | None,
) -> None:
    data = _card([[0, 1], [2], [1, 2, 0], [1, 2], [0], [2, 1]])
    assert _upb_card().FromString(data).SerializeToString() == data
    assert wirecodec.encode(wirecodec.decode(Card, data, representation=representation)) == data
