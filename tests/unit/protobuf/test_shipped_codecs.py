"""The codecs shipped in the package as generated source (wirecodec/_codecs,
wirecodec.protobuf.shipped) are, byte for byte, what the generators make now; each runs
the very functions its source compiles to; and a process using them decodes and encodes
exactly as one that generates its own. A codec the package lacks is generated."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import types
from typing import Any

import pytest

from schema_dsl.onnx import GraphProto, NodeProto, TensorProto
from wirecodec._codecs import _generate
from wirecodec.protobuf import code_cache, schema_cache, shipped
from wirecodec.protobuf import compile as compile_module
from wirecodec.protobuf.compile import CACHE_ENV

ROOT = pathlib.Path(__file__).resolve().parents[3]
# In WebAssembly (the Pyodide job, tests/pyodide/runner.py) what needs no subprocess runs too.
NATIVE_ONLY = pytest.mark.skipif(sys.platform == "emscripten", reason="no subprocesses in WebAssembly")
REGENERATE = "run `python -m wirecodec._codecs` and commit the diff"


@pytest.mark.parametrize("kind", shipped.KINDS)
def test_a_shipped_package_is_what_the_generators_make_now(kind: str) -> None:
    folder = pathlib.Path(shipped.FOLDER) / shipped.package_name(kind)
    made = _generate.files(kind)
    found = {path.name for path in folder.glob("*.py")}
    assert found == set(made), f"{folder.name} holds other modules: {REGENERATE}"
    for name, text in made.items():
        assert (folder / name).read_bytes() == text.encode("utf-8"), f"{folder.name}/{name}: {REGENERATE}"


@pytest.mark.quick
def test_the_package_ships_a_package_per_kind_and_no_blob() -> None:
    found = {path.name for path in pathlib.Path(shipped.FOLDER).iterdir() if path.name != "__pycache__"}
    expected = {shipped.package_name(kind) for kind in shipped.KINDS}
    assert found == expected | {"__init__.py", "__main__.py", "_generate.py"}
    assert len(expected) == len(shipped.KINDS)


@pytest.mark.quick
def test_a_codec_module_is_the_generated_source_after_its_header() -> None:
    text = (pathlib.Path(shipped.FOLDER) / "decode_lazy" / "NodeProto.py").read_text("utf-8")
    generated, _ = compile_module.generated(NodeProto, "decode+lazy")
    assert text.endswith(generated)
    assert all(line.startswith("#") for line in text.removesuffix(generated).splitlines())


def _code_shape(code: types.CodeType) -> tuple[Any, ...]:
    """What a function's code does and is called, wherever it was compiled: file and lines
    aside."""
    consts = tuple(_code_shape(c) if isinstance(c, types.CodeType) else (type(c), c) for c in code.co_consts)
    return (
        code.co_code,
        consts,
        code.co_names,
        code.co_varnames,
        code.co_freevars,
        code.co_cellvars,
        code.co_name,
        code.co_qualname,
        code.co_argcount,
        code.co_flags,
    )


def _functions(namespace: dict[str, Any]) -> dict[str, types.FunctionType]:
    return {key: value for key, value in namespace.items() if isinstance(value, types.FunctionType)}


@pytest.mark.parametrize("kind", shipped.KINDS)
def test_each_shipped_codec_defines_what_its_source_defines(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, "")  # compiled here, as a codec the package lacks is
    expected = {name: (cls, found) for cls, found, name in _generate.names() if found == kind}
    assert expected
    table = shipped._table(kind)
    assert sorted(table) == sorted(expected), f"the shipped {kind!r} codecs are others: {REGENERATE}"
    for name, (cls, _) in expected.items():
        found = shipped.entry(kind, name)
        assert found is not None
        text, constants = compile_module.generated(cls, kind)
        assert schema_cache.resolve(cls.__schema__, found[1]) == constants
        assert found[0].co_filename == str(
            pathlib.Path(shipped.FOLDER, shipped.package_name(kind), _generate.module_name(cls) + ".py")
        )
        ours: dict[str, Any] = {}
        exec(found[0], ours)
        theirs: dict[str, Any] = {}
        exec(code_cache.code(text, compile_module.code_filename(kind, cls)), theirs)
        assert sorted(_functions(ours)) == sorted(_functions(theirs))
        for key, function in _functions(ours).items():
            assert function.__globals__ is ours  # its globals are the codec's namespace
            assert _code_shape(function.__code__) == _code_shape(theirs[key].__code__), f"{name!r}: {key}"


def test_a_codec_asked_for_with_other_thresholds_or_another_kind_is_not_shipped() -> None:
    name = schema_cache.declared_name(NodeProto, "decode+lazy", compile_module.thresholds_of("decode+lazy"))
    assert name is not None
    assert shipped.entry("decode+lazy", name) is not None
    assert shipped.entry("decode+lazy", name.replace("Thresholds(small=", "Thresholds(small=9")) is None
    assert shipped.entry("decode+lazy-all", name) is None  # for tests and fuzzing: never shipped
    assert shipped.entry("str+lazy", name) is None


def test_a_shipped_codec_is_not_generated_until_its_source_is_asked_for() -> None:
    compiled = compile_module._compiled(TensorProto, "encode")
    assert compiled.source is None
    assert compiled.function.__code__.co_filename == os.path.join(shipped.FOLDER, "encode", "TensorProto.py")
    text = compile_module.source(TensorProto, "encode")
    assert text == compile_module.generated(TensorProto, "encode")[0]
    lazy = compile_module.source(GraphProto, "decode+lazy")
    assert lazy == "\n\n".join(
        compile_module.generated(GraphProto, kind)[0] for kind in ("decode+lazy", "decode+lazy validator")
    )


def test_a_package_without_a_kinds_module_generates_that_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    module = f"wirecodec._codecs.{shipped.package_name('str')}"
    monkeypatch.setitem(sys.modules, module, None)  # as if trimmed from the package: ImportError
    shipped._table.cache_clear()
    try:
        name = schema_cache.declared_name(NodeProto, "str", None)
        assert name is not None
        assert shipped.entry("str", name) is None
        assert shipped.entry("decode", name.replace("\0str\0", "\0decode\0")) is not None
    finally:
        monkeypatch.undo()
        shipped._table.cache_clear()


# Decodes each item of a corpus with one kind of decoder in turn (the buffer's type chooses
# it), and encodes what it read both as read and rebuilt from its JSON form (so no byte is
# copied from the input), printing a digest of it all; "forbid": generating or compiling
# any codec raises (all must be shipped).
_SCRIPT = """
import hashlib, marshal, sys
from wirecodec.protobuf.gen import decode as gen_decode, encode as gen_encode, validate as gen_validate
from wirecodec.protobuf import code_cache
if sys.argv[2] == "forbid":
    def refuse(*args, **kwargs):
        raise AssertionError("generated although shipped")
    for gen in (gen_decode.DecoderSource, gen_encode.EncoderSource, gen_validate.ValidatorSource):
        gen.source = refuse
    code_cache.code = refuse  # what compile.py compiles a generated codec with
import wirecodec
from schema_dsl import onnx
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
    import marshal

    from tests.support.reference import backend_corpus

    items = [(item.message, item.data) for item in backend_corpus()]
    assert len(items) > 1000 and len({name for name, _ in items}) >= 4
    corpus = tmp_path / "corpus.marshal"
    corpus.write_bytes(marshal.dumps(items))
    assert _digest(corpus, shipped_codecs=True) == _digest(corpus, shipped_codecs=False)


# A model decoded and encoded where the package holds none of its codecs: all generated.
_TRIMMED = """
import sys
from wirecodec.protobuf import shipped
for kind in shipped.KINDS:
    sys.modules["wirecodec._codecs." + shipped.package_name(kind)] = None
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
def test_a_package_without_shipped_codecs_generates_them() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT), CACHE_ENV: ""}
    done = subprocess.run(
        [sys.executable, "-c", _TRIMMED], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert int(done.stdout) >= 3  # ModelProto, GraphProto, NodeProto decoders were generated


def test_the_switch_turns_shipped_codecs_off(monkeypatch: pytest.MonkeyPatch) -> None:
    name = schema_cache.declared_name(NodeProto, "encode", None)
    assert name is not None
    monkeypatch.setenv(shipped.ENV, "0")
    shipped._table.cache_clear()
    try:
        assert shipped.entry("encode", name) is None
    finally:
        monkeypatch.undo()
        shipped._table.cache_clear()
    assert shipped.entry("encode", name) is not None


def test_regenerating_writes_every_package_and_removes_what_is_no_longer_made(tmp_path: pathlib.Path) -> None:
    stale = tmp_path / "decode" / "RemovedProto.py"
    stale.parent.mkdir()
    stale.write_text("# a message type since removed from the schema\n")
    written = _generate.write(str(tmp_path))
    assert [pathlib.Path(folder).name for folder, _ in written] == [
        shipped.package_name(k) for k in shipped.KINDS
    ]
    assert not stale.exists()
    for kind in ("decode", "str+lazy validator"):
        folder = tmp_path / shipped.package_name(kind)
        made = {path.name: path.read_text("utf-8") for path in folder.glob("*.py")}
        assert made == _generate.files(kind)
