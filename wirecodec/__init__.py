"""wirecodec: a pure-Python, byte-exact, zero-copy codec for ONNX models.

>>> from wirecodec import decode, encode
>>> from schema_dsl.onnx import ModelProto
>>> model = decode(ModelProto, encode(ModelProto(ir_version=10, producer_name="demo")))
>>> model.producer_name, model.graph.node
('demo', [])
"""

from schema_dsl.text_format import to_text
from wirecodec import compose, helper, numpy_helper, parser, printer, utils
from wirecodec.checker import check
from wirecodec.errors import (
    CheckError,
    ContainerError,
    DecodeError,
    EncodeError,
    ExternalDataError,
    GraphError,
    LimitError,
    ParseError,
    TensorError,
    WireCodecError,
)
from wirecodec.files.convert import convert
from wirecodec.files.load import load, load_external_data_into, load_tensor
from wirecodec.files.safetensors_attach import attach_weights
from wirecodec.files.save import save, save_tensor
from wirecodec.files.stream import stream
from wirecodec.files.zip_container import load_zip, save_zip
from wirecodec.onnx_compat import load_model, load_model_from_string, load_tensor_from_string, save_model
from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, encode, encode_chunks, encode_into
from wirecodec.protobuf.compile import source
from wirecodec.protobuf.gcpause import gc_paused
from wirecodec.protobuf.json_format import from_json, to_json
from wirecodec.protobuf.text_parser import from_text
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
    "GraphError",
    "LimitError",
    "ParseError",
    "TensorError",
    "WireCodecError",
    "array_from_raw",
    "attach_weights",
    "check",
    "compose",
    "convert",
    "data_type_of",
    "decode",
    "encode",
    "encode_chunks",
    "encode_into",
    "from_array",
    "from_dict",
    "from_json",
    "from_list",
    "from_optional",
    "from_text",
    "gc_paused",
    "helper",
    "load",
    "load_external_data_into",
    "load_model",
    "load_model_from_string",
    "load_tensor",
    "load_tensor_from_string",
    "ml_dtypes_available",
    "numpy_dtype",
    "parser",
    "printer",
    "numpy_helper",
    "load_zip",
    "onnxruntime_session",
    "raw_size",
    "save",
    "save_model",
    "save_tensor",
    "save_zip",
    "source",
    "stream",
    "to_array",
    "to_dict",
    "to_float32",
    "to_json",
    "to_list",
    "to_optional",
    "to_text",
    "utils",
]
