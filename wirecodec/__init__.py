"""wirecodec: a pure-Python, byte-exact, zero-copy codec for ONNX models.

>>> from wirecodec import decode, encode
>>> from schema_dsl.onnx import ModelProto
>>> model = decode(ModelProto, encode(ModelProto(ir_version=10, producer_name="demo")))
>>> model.producer_name, model.graph.node
('demo', [])
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Messages of schema_dsl serialize through the codec this package installs. The codec
# itself (the compiler and its generated code) is imported when a message first
# serializes, not here: a stand-in takes its place until then, so that
# ``import wirecodec; ModelProto(...).SerializeToString()`` works and importing stays cheap.
from schema_dsl.contract import install_codec as _install_codec

# The errors are small (no imports of their own) and are what callers catch: always loaded.
from wirecodec.errors import (
    CheckError,
    ContainerError,
    DecodeError,
    EncodeError,
    EvaluationError,
    ExternalDataError,
    GraphError,
    LimitError,
    NotAModelError,
    NumpyMissingError,
    ParseError,
    PathError,
    PayloadPassedError,
    RemoteError,
    TensorDecodeError,
    TensorEncodeError,
    TensorError,
    WireCodecError,
)


class _CodecOnFirstUse:
    """Imports ``wirecodec.protobuf.codec`` (which installs the real codec) on first use."""

    @staticmethod
    def _real() -> Any:
        from schema_dsl.contract import the_codec

        importlib.import_module("wirecodec.protobuf.codec")
        return the_codec()

    def encode(self, message: Any) -> bytes:
        encoded: bytes = self._real().encode(message)
        return encoded

    def byte_size(self, message: Any) -> int:
        size: int = self._real().byte_size(message)
        return size

    def decode(self, cls: Any, data: Any) -> Any:
        return self._real().decode(cls, data)

    def carry_pending(self, copy: Any, name: str, record: Any) -> None:
        self._real().carry_pending(copy, name, record)

    # Only a decoded message has source bytes (a span), and decoding imported the codec:
    # for any other message these answer None without importing it.
    def equal_sources(self, a: Any, b: Any) -> Any:
        return None if a._span is None or b._span is None else self._real().equal_sources(a, b)

    def copy_of(self, message: Any) -> Any:
        return None if message._span is None else self._real().copy_of(message)

    def source_bytes(self, span: int) -> Any:
        return self._real().source_bytes(span)


_install_codec(_CodecOnFirstUse())

if TYPE_CHECKING:
    from schema_dsl.text_format import to_text
    from wirecodec import compose, helper, numpy_helper, parser, printer, utils
    from wirecodec.checker import check
    from wirecodec.files.convert import convert
    from wirecodec.files.load import load, load_external_data_into, load_tensor
    from wirecodec.files.remote.source import RemoteOptions
    from wirecodec.files.safetensors.attach import attach_weights
    from wirecodec.files.save import save, save_tensor
    from wirecodec.files.stream.reader import stream
    from wirecodec.files.zip.container import load_zip, save_zip
    from wirecodec.onnx_compat import load_model, load_model_from_string, load_tensor_from_string, save_model
    from wirecodec.protobuf.codec import DEFAULT_MAX_DEPTH, decode, encode, encode_chunks, encode_into
    from wirecodec.protobuf.compile import source
    from wirecodec.protobuf.gcpause import gc_paused
    from wirecodec.protobuf.json_format import from_json, to_json
    from wirecodec.protobuf.text_parser import from_text
    from wirecodec.reference import ReferenceEvaluator
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

# Everything else is imported on first use (PEP 562), so that ``import wirecodec`` costs
# what a call needs and nothing more ("imports fast", docs/performance.md): name -> the
# module that defines it (a submodule of this package: the submodule itself).
_LAZY = {
    "array_from_raw": "wirecodec.tensors",
    "attach_weights": "wirecodec.files.safetensors.attach",
    "compose": "wirecodec.compose",
    "gc_paused": "wirecodec.protobuf.gcpause",
    "utils": "wirecodec.utils",
    "check": "wirecodec.checker",
    "convert": "wirecodec.files.convert",
    "data_type_of": "wirecodec.tensors",
    "decode": "wirecodec.protobuf.codec",
    "DEFAULT_MAX_DEPTH": "wirecodec.protobuf.codec",
    "encode": "wirecodec.protobuf.codec",
    "encode_chunks": "wirecodec.protobuf.codec",
    "encode_into": "wirecodec.protobuf.codec",
    "from_array": "wirecodec.tensors",
    "from_dict": "wirecodec.tensors.values",
    "from_json": "wirecodec.protobuf.json_format",
    "from_list": "wirecodec.tensors.values",
    "from_optional": "wirecodec.tensors.values",
    "from_text": "wirecodec.protobuf.text_parser",
    "helper": "wirecodec.helper",
    "load": "wirecodec.files.load",
    "load_external_data_into": "wirecodec.files.load",
    "load_model": "wirecodec.onnx_compat",
    "load_model_from_string": "wirecodec.onnx_compat",
    "load_tensor": "wirecodec.files.load",
    "load_tensor_from_string": "wirecodec.onnx_compat",
    "load_zip": "wirecodec.files.zip.container",
    "ml_dtypes_available": "wirecodec.tensors",
    "numpy_dtype": "wirecodec.tensors",
    "numpy_helper": "wirecodec.numpy_helper",
    "onnxruntime_session": "wirecodec.runtime_bridge",
    "ReferenceEvaluator": "wirecodec.reference",
    "parser": "wirecodec.parser",
    "printer": "wirecodec.printer",
    "raw_size": "wirecodec.tensors",
    "RemoteOptions": "wirecodec.files.remote.source",
    "save": "wirecodec.files.save",
    "save_model": "wirecodec.onnx_compat",
    "save_tensor": "wirecodec.files.save",
    "save_zip": "wirecodec.files.zip.container",
    "source": "wirecodec.protobuf.compile",
    "stream": "wirecodec.files.stream.reader",
    "to_array": "wirecodec.tensors",
    "to_dict": "wirecodec.tensors.values",
    "to_float32": "wirecodec.tensors",
    "to_json": "wirecodec.protobuf.json_format",
    "to_list": "wirecodec.tensors.values",
    "to_optional": "wirecodec.tensors.values",
    "to_text": "schema_dsl.text_format",
}


if not TYPE_CHECKING:  # hidden from type checkers, which would take any name for Any

    def __getattr__(name: str) -> Any:
        """Import the module that defines ``name`` when it is first asked for, and keep the value."""
        module_name = _LAZY.get(name)
        if module_name is None:
            raise AttributeError(f"module 'wirecodec' has no attribute {name!r}")
        module = importlib.import_module(module_name)
        value = module if module_name == f"wirecodec.{name}" else getattr(module, name)
        globals()[name] = value  # later lookups are plain module attributes
        return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})


__all__ = [
    "DEFAULT_MAX_DEPTH",
    "CheckError",
    "ContainerError",
    "DecodeError",
    "EncodeError",
    "EvaluationError",
    "ExternalDataError",
    "GraphError",
    "LimitError",
    "NotAModelError",
    "PayloadPassedError",
    "NumpyMissingError",
    "ParseError",
    "PathError",
    "RemoteError",
    "ReferenceEvaluator",
    "RemoteOptions",
    "TensorDecodeError",
    "TensorEncodeError",
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
