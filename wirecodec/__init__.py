"""wirecodec: a pure-Python, byte-exact, zero-copy codec for ONNX models.

>>> from wirecodec import decode, encode
>>> from schema_dsl.onnx import ModelProto
>>> model = decode(ModelProto, encode(ModelProto(ir_version=10, producer_name="demo")))
>>> model.producer_name, model.graph.node
('demo', [])
"""

from wirecodec.codec import DEFAULT_MAX_DEPTH, decode, encode, encode_chunks, encode_into
from wirecodec.compile import source
from wirecodec.errors import (
    CheckError,
    DecodeError,
    EncodeError,
    ExternalDataError,
    LimitError,
    WireCodecError,
)

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "CheckError",
    "DecodeError",
    "EncodeError",
    "ExternalDataError",
    "LimitError",
    "WireCodecError",
    "decode",
    "encode",
    "encode_chunks",
    "encode_into",
    "source",
]
