"""protobuf (upb) twins of the test schema in tests/unit/protobuf/test_codec.py, built from our declarations.

The small test schema (``All``, ``Guide1``..``Guide4``, ``Color``) has no .proto file; this
turns its declarations into a protobuf descriptor at run time, so that upb, not this
project, can judge encodings of every scalar kind. Needs protobuf (the test extra).
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

from schema_dsl import Kind, Message
from tests.unit.protobuf.test_codec import All, Color, Guide1, Guide2, Guide3, Guide4


@functools.cache
def pb_twins() -> dict[type[Message], Any]:
    """protobuf message classes for the test schema, keyed by our classes."""
    pytest.importorskip("google.protobuf", reason="protobuf (upb) is the reference (test extra)")
    from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

    field_proto = descriptor_pb2.FieldDescriptorProto
    types = {kind: getattr(field_proto, f"TYPE_{kind.name}") for kind in Kind}
    classes: list[type[Message]] = [All, Guide1, Guide2, Guide3, Guide4]
    file = descriptor_pb2.FileDescriptorProto(name="pb_twins.proto", package="twins", syntax="proto2")
    color = file.enum_type.add(name="Color")
    for member in Color:
        color.value.add(name=member.name, number=int(member))
    for cls in classes:
        proto = file.message_type.add(name=cls.__qualname__)
        oneofs: dict[str, int] = {}
        for spec in cls.__schema__.fields:
            field = proto.field.add(name=spec.name, number=spec.number, type=types[spec.kind])
            field.label = field_proto.LABEL_REPEATED if spec.repeated else field_proto.LABEL_OPTIONAL
            if spec.packed:
                field.options.packed = True
            if spec.kind is Kind.MESSAGE:
                field.type_name = f".twins.{spec.message_type.__qualname__}"
            if spec.kind is Kind.ENUM:
                field.type_name = ".twins.Color"
            if spec.oneof is not None:
                if spec.oneof not in oneofs:
                    oneofs[spec.oneof] = len(proto.oneof_decl)
                    proto.oneof_decl.add(name=spec.oneof)
                field.oneof_index = oneofs[spec.oneof]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        cls: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"twins.{cls.__qualname__}"))
        for cls in classes
    }
