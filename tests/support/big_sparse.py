"""A 2 GB-class single-file model written as a sparse file, in about a second.

``write_big_model`` builds ``count`` float32 initializers of ``each`` bytes whose
``raw_data`` are views of one untouched anonymous map (zeros), encodes the model as
chunks, and writes the structure while *seeking over* every payload: the file has its
full size but occupies a few kilobytes of disk. Then it marks each payload's first and
last 16 bytes with bytes of its own (``mark``), so a test can tell the tensors apart.
Used by tests/unit/files/test_remote.py (bench/remote_open.py measures real exports instead).
"""

from __future__ import annotations

import mmap
import os
import pathlib
from dataclasses import dataclass

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper
from wirecodec.protobuf.codec import encode_chunks

MIB = 1 << 20
_HOLE = MIB  # payload chunks at least this big are skipped, not written


def mark(index: int) -> bytes:
    """The 16 bytes that open and close payload ``index``."""
    return f"tensor-{index:09d}".encode()


@dataclass(frozen=True)
class BigModel:
    path: pathlib.Path
    size: int
    each: int  # bytes of each weight
    payloads: list[tuple[int, int]]  # where each weight's bytes lie in the file


def write_big_model(path: pathlib.Path, *, count: int = 64, each: int = 32 * MIB) -> BigModel:
    """Write the model (``count`` x ``each`` bytes of weights: 2 GiB by default) to ``path``."""
    zeros = mmap.mmap(-1, each)  # never written: no page of it is ever touched
    view = memoryview(zeros).toreadonly()  # kept as it is: a writable buffer would be copied
    inits, nodes = [], []
    for i in range(count):
        tensor = TensorProto(name=f"w{i}", data_type=TensorProto.FLOAT, dims=[each // 4])
        tensor.raw_data = view
        inits.append(tensor)
        nodes.append(helper.make_node("Add", [f"h{i}", f"w{i}"], [f"h{i + 1}"], name=f"add{i}"))
    io = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [each // 4]) for n in ("h0", f"h{count}")]
    model: ModelProto = helper.make_model(helper.make_graph(nodes, "big", io[:1], io[1:], initializer=inits))
    chunks, size = encode_chunks(model)
    payloads = []
    with path.open("wb") as out:
        for chunk in chunks:
            if isinstance(chunk, memoryview) and chunk.obj is zeros and chunk.nbytes >= _HOLE:
                start = out.tell()
                payloads.append((start, start + chunk.nbytes))
                out.seek(chunk.nbytes, os.SEEK_CUR)
            else:
                out.write(chunk)
        out.truncate(size)
        for i, (start, end) in enumerate(payloads):
            out.seek(start)
            out.write(mark(i))
            out.seek(end - 16)
            out.write(mark(i))
    del chunks, model, inits
    view.release()
    zeros.close()
    assert len(payloads) == count and path.stat().st_size == size
    return BigModel(path, size, each, payloads)
