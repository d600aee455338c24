"""A safetensors header read as the ``safetensors`` package reads it: JSON whitespace
(space, tab, CR, LF) before or after the object is allowed, anything else before the ``{``
is refused (issue 46: a header starting with whitespace was one of the audit's survivors).
Each header is given to the package and to wirecodec; both accept it, or both refuse it."""

from __future__ import annotations

import json
import pathlib
import struct

import numpy as np
import pytest

import wirecodec
from tests.support import odd_models
from wirecodec.errors import ExternalDataError
from wirecodec.files.safetensors.format import read_header

safetensors_numpy = pytest.importorskip(
    "safetensors.numpy", reason="the safetensors package is the reference"
)

_BODY = json.dumps({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
_DATA = np.arange(2, dtype=np.float32).tobytes()

# (before the object, after it)
PADDINGS = [
    (b"", b""),
    (b" ", b""),
    (b"\t", b""),
    (b"\n", b""),
    (b"\r\n  \t", b""),
    (b"", b"    "),
    (b" \n", b" \t\r\n"),
    (b"\x0c", b""),  # form feed: not JSON whitespace
    (b"\x0b", b""),  # vertical tab: neither
    ("\u00a0".encode(), b""),  # no-break space: neither
    (b"\xef\xbb\xbf", b""),  # a byte-order mark
    (b"[", b"]"),  # not an object at all
]


def _file(folder: pathlib.Path, before: bytes, after: bytes) -> pathlib.Path:
    header = before + _BODY + after
    path = folder / "t.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + _DATA)
    return path


@pytest.mark.parametrize(("before", "after"), PADDINGS, ids=[repr(b + a) for b, a in PADDINGS])
def test_a_padded_header_is_read_as_the_package_reads_it(
    tmp_path: pathlib.Path, before: bytes, after: bytes
) -> None:
    path = _file(tmp_path, before, after)
    try:
        theirs = safetensors_numpy.load_file(str(path))
    except Exception:  # the package raises its own SafetensorError
        theirs = None
    try:
        header = read_header(path)
    except ExternalDataError:
        header = None
    assert (header is None) == (theirs is None), (before, after)
    if header is not None and theirs is not None:
        entry = header.entries["a"]
        assert (entry.dtype, entry.shape) == ("F32", theirs["a"].shape)
        assert header.offset(entry) == 8 + len(before) + len(_BODY) + len(after)


def test_a_model_whose_safetensors_header_starts_with_whitespace_loads(tmp_path: pathlib.Path) -> None:
    model_path = odd_models.safetensors_model(tmp_path)
    file = tmp_path / "st.safetensors"
    data = file.read_bytes()
    (length,) = struct.unpack_from("<Q", data)
    text = data[8 : 8 + length].rstrip(b" ")
    room = length - len(text)
    assert room >= 1, "the writer pads its header to 8 bytes; this one leaves no room to move it"
    # The same length: the offsets the model refers to stay where they were.
    header = (b"\n \t"[:room] + text).ljust(length, b" ")
    assert header[:1] != b"{"
    file.write_bytes(data[:8] + header + data[8 + length :])
    expected = safetensors_numpy.load_file(str(file))
    model = wirecodec.load(model_path)
    for tensor in model.graph.initializer:
        assert np.array_equal(wirecodec.to_array(tensor), expected[tensor.name]), tensor.name
