"""The codecs shipped in the package (wirecodec/_codecs, wirecodec.protobuf.shipped) are what
the generators make now, and a process using them decodes and encodes exactly as one
that generates its own; a shipped file that does not fit is never used."""

from __future__ import annotations

import importlib.util
import marshal
import os
import pathlib
import subprocess
import sys

import pytest

from wirecodec._codecs import entries, names
from wirecodec.protobuf import compile as compile_module
from wirecodec.protobuf import shipped
from wirecodec.protobuf.compile import CACHE_ENV

ROOT = pathlib.Path(__file__).resolve().parents[3]
SHIPPED_FILES = sorted(pathlib.Path(shipped.FOLDER).glob("*.bin"))
# In WebAssembly (the Pyodide job, tests/pyodide/runner.py) this module checks Pyodide's own
# shipped code; what needs subprocesses or onnx runs natively only.
NATIVE_ONLY = pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in WebAssembly")
REGENERATE = "run `python -m wirecodec._codecs` and `python -m bench.pyodide_cold --ship`"


def _contents(path: pathlib.Path) -> dict[str, tuple[object, str, object]]:
    found = shipped.read(str(path))
    assert found is not None, f"{path.name} cannot be read"
    out = {}
    for name, packed in found["entries"].items():
        entry = shipped.unpack(packed)
        assert entry is not None, f"{path.name}: {name!r} is damaged"
        out[name] = entry
    return out


def test_this_interpreter_and_pyodide_have_shipped_codecs() -> None:
    tags = {path.stem for path in SHIPPED_FILES}
    assert sys.implementation.cache_tag in tags
    assert "cpython-314" in tags  # Pyodide 314.x (tests/pyodide/run.sh)


@pytest.mark.parametrize("path", SHIPPED_FILES, ids=lambda p: p.name)
def test_a_shipped_file_is_what_the_generators_make_now(path: pathlib.Path) -> None:
    found = shipped.read(str(path))
    assert found is not None
    assert found["stamp"] == shipped.stamp(), f"{path.name} is out of date: {REGENERATE}"
    contents = _contents(path)
    expected = {name: (cls, kind) for cls, kind, name in names()}
    assert sorted(contents) == sorted(expected), f"{path.name} ships other codecs: {REGENERATE}"
    for name, (code, text, tokens) in contents.items():
        cls, kind = expected[name]
        made, constants = compile_module.generated(cls, kind)
        assert text == made, f"{path.name}: {name!r} differs from the generator's source"
        resolved = compile_module.schema_cache.resolve(cls.__schema__, tokens)
        assert resolved == constants, f"{path.name}: {name!r} has other constants"
        assert code.co_filename == compile_module.code_filename(kind, cls)  # type: ignore[attr-defined]


def test_this_interpreters_code_is_the_source_compiled() -> None:
    path = shipped.path()
    assert path is not None
    found = shipped.read(path)
    assert found is not None and found["magic"] == importlib.util.MAGIC_NUMBER
    now = entries()
    for name, (code, _, _) in _contents(pathlib.Path(path)).items():
        assert code == now[name][0], f"{name!r}: shipped code is not the source compiled: {REGENERATE}"


@pytest.mark.parametrize("change", ["none", "stamp", "magic", "damaged"])
def test_a_file_of_another_stamp_or_python_or_damaged_is_not_used(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    path = shipped.path()
    assert path is not None
    found = shipped.read(path)
    assert found is not None
    cls, kind, name = next(names())
    if change == "stamp":
        found["stamp"] = "0" * 64
    elif change == "magic":
        found["magic"] = b"\0\0\r\n"
    elif change == "damaged":
        found["entries"] = {**found["entries"], name: found["entries"][name][:-8]}
    other = tmp_path / "other.bin"
    other.write_bytes(marshal.dumps(found))
    filename = compile_module.code_filename(kind, cls)
    monkeypatch.setattr(shipped, "path", lambda: str(other))
    shipped._usable.cache_clear()
    try:
        assert (shipped.entry(name, filename) is None) == (change != "none")
        assert shipped.entry(name, "<another file name>") is None
    finally:
        monkeypatch.undo()
        shipped._usable.cache_clear()


# Decodes each item of a corpus with one kind of decoder in turn (the buffer's type chooses
# it), and encodes what it read both as read and rebuilt from its JSON form (so no byte is
# copied from the input), printing a digest of it all; "forbid": generating or compiling
# any codec raises (all must be shipped).
_SCRIPT = """
import hashlib, marshal, sys
from wirecodec.protobuf.gen import decode as gen_decode, encode as gen_encode, validate as gen_validate
from wirecodec.protobuf import compile as compile_module
if sys.argv[2] == "forbid":
    def refuse(*args, **kwargs):
        raise AssertionError("generated although shipped")
    for gen in (gen_decode.DecoderSource, gen_encode.EncoderSource, gen_validate.ValidatorSource):
        gen.source = refuse
    compile_module._code = refuse
import wirecodec
from schema_dsl import onnx
from wirecodec.protobuf.compile import defer_every_element
digest = hashlib.sha256()
with open(sys.argv[1], "rb") as file:
    corpus = marshal.load(file)
buffers = (bytes, bytearray, memoryview, lambda data: memoryview(bytearray(data)))
for i, (name, data) in enumerate(corpus):
    cls = getattr(onnx, name)
    message = wirecodec.decode(cls, buffers[i % 4](data))  # each decoder kind, in turn
    text = wirecodec.to_json(message)
    digest.update(text.encode())
    digest.update(wirecodec.encode(message))
    digest.update(wirecodec.encode(wirecodec.from_json(cls, text)))
print(len(corpus), digest.hexdigest())
"""


def _digest(corpus: pathlib.Path, shipped_codecs: bool) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_ENV: "", shipped.ENV: "1" if shipped_codecs else "0"}
    mode = "forbid" if shipped_codecs else "generate"
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(corpus), mode],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip()


@NATIVE_ONLY
def test_shipped_codecs_decode_and_encode_the_backend_corpus_as_generated_ones(
    tmp_path: pathlib.Path,
) -> None:
    from tests.support.reference import backend_corpus

    items = [(item.message, item.data) for item in backend_corpus()]
    assert len(items) > 1000 and len({name for name, _ in items}) >= 4
    corpus = tmp_path / "corpus.marshal"
    corpus.write_bytes(marshal.dumps(items))
    assert _digest(corpus, shipped_codecs=True) == _digest(corpus, shipped_codecs=False)


_OUT_OF_DATE = """
import sys
from wirecodec.protobuf import shipped
shipped.stamp = lambda: "edited generators"
from wirecodec.protobuf.gen import decode as gen_decode
made = []
source = gen_decode.DecoderSource.source
def counted(self):
    made.append(self)
    return source(self)
gen_decode.DecoderSource.source = counted
import wirecodec
from schema_dsl.onnx import ModelProto, GraphProto, NodeProto
data = wirecodec.encode(ModelProto(graph=GraphProto(node=[NodeProto(op_type="Relu")])))
assert wirecodec.encode(wirecodec.decode(ModelProto, data)) == data
print(len(made))
"""


@NATIVE_ONLY
def test_out_of_date_shipped_codecs_are_generated_instead() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_ENV: ""}
    done = subprocess.run(
        [sys.executable, "-c", _OUT_OF_DATE], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout) >= 3  # ModelProto, GraphProto, NodeProto decoders were generated
