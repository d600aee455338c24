"""wirecodec: a pure-Python, byte-exact, zero-copy codec for ONNX models.

>>> from wirecodec import decode, encode
>>> from schema_dsl.onnx import ModelProto
>>> model = decode(ModelProto, encode(ModelProto(ir_version=10, producer_name="demo")))
>>> model.producer_name, model.graph.node
('demo', [])
"""

from wirecodec.errors import (
    CheckError,
    ContainerError,
    DecodeError,
    EncodeError,
    ExternalDataError,
    LimitError,
    ParseError,
    TensorError,
    WireCodecError,
)
from wirecodec.files.load import load, load_external_data_into, load_tensor
from wirecodec.files.save import save, save_tensor
from wirecodec.files.zip_container import load_zip, save_zip
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, encode, encode_chunks, encode_into
from wirecodec.protobuf.compile import source
from wirecodec.runtime_bridge import onnxruntime_session
from wirecodec.tensors import (
    array_from_raw,
    data_type_of,
    from_array,
    ml_dtypes_available,
    numpy_dtype,
    raw_size,
    to_array,
    to_float32,
)
from wirecodec.tensors.values import from_dict, from_list, from_optional, to_dict, to_list, to_optional

__all__ = [
    "DEFAULT_MAX_DEPTH",
    "CheckError",
    "ContainerError",
    "DecodeError",
    "EncodeError",
    "ExternalDataError",
    "LimitError",
    "ParseError",
    "TensorError",
    "WireCodecError",
    "array_from_raw",
    "data_type_of",
    "decode",
    "encode",
    "encode_chunks",
    "encode_into",
    "from_array",
    "from_dict",
    "from_list",
    "from_optional",
    "load",
    "load_external_data_into",
    "load_tensor",
    "load_zip",
    "ml_dtypes_available",
    "numpy_dtype",
    "onnxruntime_session",
    "raw_size",
    "save",
    "save_tensor",
    "save_zip",
    "source",
    "to_array",
    "to_dict",
    "to_float32",
    "to_list",
    "to_optional",
]
