"""Models past 2 and 4 GiB, in bounded memory (slow: writes about 9 GB; a few minutes).

One model is built on the fly from a sparse data file: ``head`` (8 MiB of random
bytes), ``big`` (4 GiB + 1 MiB, zeros with random 4 KiB marks every 512 MiB) and
``tail`` (8 MiB random, so in the single file it starts past 4 GiB), then:

external -> single file (4.3 GB) -> streamed from its path, from a pipe, loaded ->
external again; every step runs in a fresh process whose peak RSS is measured by its
parent (``resource.getrusage(RUSAGE_CHILDREN).ru_maxrss`` in a one-child wrapper)
and must stay under 256 MB, and every tensor ends bit-identical (SHA-256 of each,
compared with the hashes of what was written). Bounds are on memory, never on time.
"""

from __future__ import annotations

import hashlib
import json
import os
import pathlib
import shlex
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import (
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    StringStringEntryProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[2]
LIMIT_MB = 256
MIB = 1 << 20
HEAD = 8 * MIB
BIG = (4 << 30) + MIB
TAIL = 8 * MIB
MARK_EVERY = 512 * MIB
NEEDS_DISK = 12 << 30  # the single file and the external copy at once, with room to spare

WRAPPER = """
import json, resource, subprocess, sys
code = subprocess.run(sys.argv[2:]).returncode
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
with open(sys.argv[1], "w") as out:
    json.dump({"code": code, "peak_mb": peak / 1024}, out)
"""


def measured(label: str, argv: list[str], work: pathlib.Path) -> float:
    """Run ``argv`` as the only child of a fresh wrapper; its peak RSS in MB (it must succeed)."""
    record = work / "rss.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # From the work directory: ``python -c`` puts the current directory first on sys.path.
    subprocess.run([sys.executable, "-c", WRAPPER, str(record), *argv], env=env, cwd=work, check=True)
    result = json.loads(record.read_text())
    record.unlink()
    assert result["code"] == 0, f"{argv[:3]} failed"
    peak: float = result["peak_mb"]
    print(f"\n{label}: peak RSS {peak:.0f} MB", end="")  # shown with pytest -s
    return peak


def python(code: str, *args: object) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code), *map(str, args)]


@dataclass
class Huge:
    folder: pathlib.Path
    external: pathlib.Path
    single: pathlib.Path
    hashes: dict[str, str]
    sizes: dict[str, int]
    convert_peak_mb: float


def _external(folder: pathlib.Path, name: str, offset: int, length: int) -> TensorProto:
    return TensorProto(
        name=name,
        dims=[length],
        data_type=TensorProto.UINT8,
        data_location=TensorProto.DataLocation.EXTERNAL,
        external_data=[
            StringStringEntryProto(key="location", value="weights.bin"),
            StringStringEntryProto(key="offset", value=str(offset)),
            StringStringEntryProto(key="length", value=str(length)),
        ],
    )


def _value(name: str) -> ValueInfoProto:
    shape = TensorShapeProto(dim=[TensorShapeProto.Dimension(dim_param="N")])
    return ValueInfoProto(name=name, type=TypeProto(tensor_type=TypeProto.Tensor(elem_type=2, shape=shape)))


def _build(folder: pathlib.Path) -> tuple[dict[str, str], dict[str, int]]:
    """A sparse weights.bin (real bytes only where written) and model.onnx pointing into it."""
    rng = np.random.default_rng(4)
    layout = {"head": (0, HEAD), "big": (HEAD, BIG), "tail": (HEAD + BIG, TAIL)}
    hashes = {}
    with open(folder / "weights.bin", "wb") as data:
        head = rng.integers(0, 256, HEAD, dtype=np.uint8).tobytes()
        data.write(head)
        hashes["head"] = hashlib.sha256(head).hexdigest()
        big = hashlib.sha256()
        position = 0
        zeros = bytes(MIB)
        while position < BIG:  # hash the tensor as it will read: zeros, marks every 512 MiB
            mark = rng.integers(0, 256, 4096, dtype=np.uint8).tobytes() if position % MARK_EVERY == 0 else b""
            if mark:
                data.seek(HEAD + position)
                data.write(mark)
            piece = min(MIB, BIG - position)
            big.update(mark + zeros[len(mark) : piece])
            position += piece
        hashes["big"] = big.hexdigest()
        tail = rng.integers(0, 256, TAIL, dtype=np.uint8).tobytes()
        data.seek(HEAD + BIG)
        data.write(tail)
        hashes["tail"] = hashlib.sha256(tail).hexdigest()
    graph = GraphProto(
        name="huge",
        node=[NodeProto(op_type="Concat", input=["head", "big", "tail"], output=["y"], name="cat")],
        initializer=[_external(folder, name, *layout[name]) for name in ("head", "big", "tail")],
        output=[_value("y")],
    )
    model = ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)
    wirecodec.save(model, folder / "model.onnx")
    return hashes, {name: size for name, (_, size) in layout.items()}


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Huge]:
    folder = tmp_path_factory.mktemp("huge")
    free = shutil.disk_usage(folder).free
    if free < NEEDS_DISK:
        pytest.skip(f"needs {NEEDS_DISK >> 30} GiB free next to the temporary files, {free >> 30} GiB are")
    try:
        (folder / "external").mkdir()
        (folder / "single").mkdir()
        hashes, sizes = _build(folder / "external")
        external = folder / "external" / "model.onnx"
        single = folder / "single" / "model.onnx"
        to_single = "import sys, wirecodec; wirecodec.convert(sys.argv[1], sys.argv[2], to='single')"
        peak = measured("convert external -> single", python(to_single, external, single), folder)
        yield Huge(folder, external, single, hashes, sizes, peak)
    finally:
        for path in sorted(folder.rglob("*"), reverse=True):
            path.rmdir() if path.is_dir() else path.unlink()


HASH_TENSORS = """
import hashlib, json, sys, wirecodec
from wirecodec.files.stream.events import Initializer
hashes = {}
with wirecodec.stream(sys.argv[1]) as events:
    for event in events:
        if isinstance(event, Initializer):
            lazy, digest = event.tensor, hashlib.sha256()
            for piece in lazy.chunks():  # 16 MiB at a time: memory stays bounded
                digest.update(piece)
            hashes[lazy.name] = [digest.hexdigest(), lazy.raw_offset, lazy.raw_length]
json.dump(hashes, open(sys.argv[2], "w"))
"""


def test_external_to_single_file_over_4_gib(huge: Huge) -> None:
    assert huge.convert_peak_mb < LIMIT_MB, f"external -> single took {huge.convert_peak_mb:.0f} MB"
    assert huge.single.stat().st_size > (4 << 30) + HEAD + TAIL
    # Every payload, read back from the single file (by offset) in a fresh process.
    found = huge.folder / "found.json"
    peak = measured(
        "stream the single file, hash every payload", python(HASH_TENSORS, huge.single, found), huge.folder
    )
    assert peak < LIMIT_MB
    seen = json.loads(found.read_text())
    assert {name: digest for name, (digest, _, _) in seen.items()} == huge.hashes
    assert seen["tail"][1] > 1 << 32 and seen["big"][2] == BIG  # 64-bit offsets and lengths


def test_single_file_streams_through_a_pipe(huge: Huge) -> None:
    code = """
    import json, sys, wirecodec
    from wirecodec.files.stream.events import Initializer, Node, ValueInfo
    seen = {"nodes": 0, "tensors": {}, "output_at": None}
    for event in wirecodec.stream(sys.stdin.buffer, skip_payloads=True):
        if isinstance(event, Node):
            seen["nodes"] += 1
        elif isinstance(event, Initializer):
            seen["tensors"][event.tensor.name] = [event.tensor.raw_offset, event.tensor.raw_length]
        elif isinstance(event, ValueInfo):
            seen["output_at"] = event.offset
    json.dump(seen, open(sys.argv[1], "w"))
    """
    record = huge.folder / "piped.json"
    pipe = f"cat {shlex.quote(str(huge.single))} | {shlex.join(python(code, record))}"
    peak = measured("cat single | stream(sys.stdin.buffer)", ["sh", "-c", pipe], huge.folder)
    assert peak < LIMIT_MB, f"streaming through a pipe took {peak:.0f} MB"
    seen = json.loads(record.read_text())
    assert seen["nodes"] == 1
    assert {name: length for name, (_, length) in seen["tensors"].items()} == huge.sizes
    assert seen["output_at"] > 1 << 32  # the graph output comes after the 4 GiB tensor


def test_single_file_loads_and_goes_back_to_external(huge: Huge) -> None:
    load = """
    import hashlib, sys, wirecodec
    model = wirecodec.load(sys.argv[1])
    tensors = {t.name: t for t in model.graph.initializer}
    assert len(tensors["big"].raw_data) == int(sys.argv[2])
    print(hashlib.sha256(tensors["tail"].raw_data).hexdigest(), file=open(sys.argv[3], "w"))
    """
    tail = huge.folder / "tail.txt"
    peak = measured("load the single file, hash the tail", python(load, huge.single, BIG, tail), huge.folder)
    assert peak < LIMIT_MB, f"load took {peak:.0f} MB"
    assert tail.read_text().strip() == huge.hashes["tail"]

    back = huge.folder / "back"
    back.mkdir()
    convert = """
    import sys, wirecodec
    wirecodec.convert(sys.argv[1], sys.argv[2], to="external", max_shard_size=3 << 30)
    """
    peak = measured(
        "convert single -> external", python(convert, huge.single, back / "model.onnx"), huge.folder
    )
    assert peak < LIMIT_MB, f"single -> external took {peak:.0f} MB"
    shards = sorted(p.name for p in back.iterdir())
    # No shard splits a tensor: head, then big alone (over the shard size), then tail.
    assert shards == ["model.onnx", "model.onnx.data.0", "model.onnx.data.1", "model.onnx.data.2"]
    found = huge.folder / "final.json"
    hash_external = """
    import hashlib, json, os, sys, wirecodec
    from wirecodec.files.base.references import parse_ref
    model = wirecodec.load(sys.argv[1], load_external_data=False)
    hashes = {}
    for tensor in model.graph.initializer:
        ref, digest, done = parse_ref(tensor), hashlib.sha256(), 0
        fd = os.open(os.path.join(os.path.dirname(sys.argv[1]), ref.location), os.O_RDONLY)
        while done < ref.length:
            piece = os.pread(fd, min(1 << 24, ref.length - done), ref.offset + done)
            digest.update(piece)
            done += len(piece)
        os.close(fd)
        hashes[tensor.name] = digest.hexdigest()
    json.dump(hashes, open(sys.argv[2], "w"))
    """
    peak = measured("hash the final tensors", python(hash_external, back / "model.onnx", found), huge.folder)
    assert peak < LIMIT_MB
    assert json.loads(found.read_text()) == huge.hashes
