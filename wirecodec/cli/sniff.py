"""What a file that is not an ONNX model looks like, from its first bytes.

Asked only after a model failed to decode, so a guess can never hide a real model: the
message then says ``not an ONNX model: this looks like a safetensors file`` instead of
the decoder's ``field number 0 is not allowed``, which is true but no help.

>>> looks_like(b'<!DOCTYPE html><html><body>Index of /models</body></html>')
'an HTML page'
>>> looks_like(b"PK\\x03\\x04" + bytes(26) + b"archive/data.pkl")
'a PyTorch checkpoint (torch.save)'
>>> looks_like(b"\\x08\\x07\\x12\\x07pytorch") is None
True
"""

from __future__ import annotations

import json
import struct
from typing import Final

__all__ = ["HEAD", "looks_like"]

HEAD: Final = 4096
"""How many leading bytes :func:`looks_like` wants."""

_MAGIC: Final = (
    (b"\x93NUMPY", "a NumPy .npy array"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file (Keras?)"),
    (b"\x1f\x8b", "a gzip-compressed file (decompress it first)"),
    (b"\x28\xb5\x2f\xfd", "a zstd-compressed file (decompress it first)"),
    (b"%PDF", "a PDF document"),
    (b"\x89PNG", "a PNG image"),
    (b"GGUF", "a GGUF file (llama.cpp)"),
)


def _safetensors(head: bytes) -> bool:
    if len(head) < 10:
        return False
    (length,) = struct.unpack_from("<Q", head)
    text = head[8 : 8 + length].lstrip(b" ")
    return 2 <= length < 100_000_000 and text[:2] in (b'{"', b"{}")


def _zip(head: bytes) -> str:
    # Local file names follow the 30-byte header; torch.save writes <name>/data.pkl first.
    name_size = struct.unpack_from("<H", head, 26)[0] if len(head) >= 30 else 0
    first = head[30 : 30 + name_size]
    if first.endswith(b"data.pkl") or b"/data.pkl" in head or b"/version" in head[:HEAD]:
        return "a PyTorch checkpoint (torch.save)"
    return "a zip archive without the __MODEL_PROTO entry of an .onnxz container"


def _text(head: bytes) -> str | None:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as exc:
        if exc.start < len(head) - 3:  # not just a character cut at the end of the head
            return None
        text = head[: exc.start].decode("utf-8")
    if not text or any(ch < " " and ch not in "\t\r\n\f" for ch in text):
        return None
    lowered = text.lstrip().lower()
    if lowered.startswith(("<!doctype html", "<html")) or "<html" in lowered[:512]:
        return "an HTML page"
    if lowered.startswith("<?xml"):
        return "an XML document"
    if lowered.startswith(("{", "[")):
        try:
            json.loads(text)
        except ValueError:
            if len(head) < HEAD:  # all of it, and still not JSON
                return "a text file"
        return "JSON text"
    if lowered.startswith(("ir_version", "<", "model")) or "opset_import" in lowered[:512]:
        return "text (the ONNX text format? wirecodec reads binary .onnx files)"
    return "a text file"


def looks_like(head: bytes) -> str | None:
    """What ``head`` (a file's first :data:`HEAD` bytes) looks like, or None for no guess."""
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        return _zip(head)
    if head[:2] in (b"\x80\x02", b"\x80\x03", b"\x80\x04", b"\x80\x05"):
        return "a Python pickle (an old-style PyTorch checkpoint?)"
    for magic, what in _MAGIC:
        if head.startswith(magic):
            return what
    if head[4:8] == b"TFL3":
        return "a TensorFlow Lite model"
    if _safetensors(head):
        return "a safetensors file (attach-weights points a model's tensors into it)"
    return _text(head)
