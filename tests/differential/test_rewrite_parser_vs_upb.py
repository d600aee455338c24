"""The fuzz tools' record parser (wirecodec/protobuf/rewrite/records.py) refuses exactly the
malformed inputs protobuf's upb refuses, and takes their well-formed neighbours: a padded
tag, a packed fixed-width run, a length at the end, a group's end tag."""

from __future__ import annotations

import pytest

from schema_dsl.onnx import TensorProto
from tests.support.reference import require_onnx
from wirecodec.errors import DecodeError
from wirecodec.protobuf.rewrite.records import parse

onnx = require_onnx()
from google.protobuf.message import DecodeError as UpbDecodeError  # noqa: E402  (after require_onnx)

CASES = [
    # (name, TensorProto bytes)
    ("dims tag padded to 5 bytes", b"\x88\x80\x80\x80\x00\x01"),
    ("dims tag padded to 6 bytes", b"\x88\x80\x80\x80\x80\x00\x01"),
    ("float_data packed, 8 bytes", b"\x22\x08" + bytes(8)),
    ("float_data packed, 5 bytes", b"\x22\x05" + bytes(5)),
    ("name of 2 bytes, 2 there", b"\x42\x02ab"),
    ("name of 3 bytes, 2 there", b"\x42\x03ab"),
    ("unknown group 100, closed", b"\xa3\x06\x08\x01\xa4\x06"),
    ("unknown group 100, closed by 101", b"\xa3\x06\x08\x01\xac\x06"),
]


@pytest.mark.parametrize(("name", "data"), CASES, ids=[case[0] for case in CASES])
def test_the_record_parser_refuses_what_upb_refuses(name: str, data: bytes) -> None:
    try:
        onnx.TensorProto.FromString(data)
        upb_refuses = False
    except UpbDecodeError:
        upb_refuses = True
    if upb_refuses:
        with pytest.raises(DecodeError):
            parse(data, TensorProto)
    else:
        assert parse(data, TensorProto)


def test_the_cases_hold_both_verdicts() -> None:
    refused = 0
    for _, data in CASES:
        try:
            onnx.TensorProto.FromString(data)
        except UpbDecodeError:
            refused += 1
    assert refused == 4
