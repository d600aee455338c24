"""The library's own schema's codecs come from the code cache without generating their source
(wirecodec.protobuf.schema_cache); any other class keeps the key by source."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from schema_dsl import STRING, Message, optional
from schema_dsl.onnx import NodeProto, TensorProto
from wirecodec.protobuf import schema_cache
from wirecodec.protobuf.compile import CACHE_ENV
from wirecodec.protobuf.shipped import ENV as SHIPPED_ENV

ROOT = pathlib.Path(__file__).resolve().parents[3]

# Decodes a model, reads it, prints what it read and the generated source of two codecs.
# With "forbid", generating any source raises: everything must come from the cache.
_SCRIPT = """
import sys

import pytest
from wirecodec.protobuf.gen import decode as gen_decode
from wirecodec.protobuf.gen import encode as gen_encode
from wirecodec.protobuf.gen import validate as gen_validate
if sys.argv[1] == "forbid":
    def refuse(self):
        raise AssertionError("generated although the cache holds the codec")
    for gen in (gen_decode.DecoderSource, gen_encode.EncoderSource, gen_validate.ValidatorSource):
        gen.source = refuse
from wirecodec.protobuf import compile as compile_module, schema_cache
if sys.argv[1] == "source-keys":  # as a library whose schema entries are not there
    schema_cache.key = lambda *args: None
if sys.argv[1] == "no-compile":  # as under python -B: nothing written, nothing compiled
    sys.dont_write_bytecode = True
    def refuse(*args, **kwargs):
        raise AssertionError("compiled although the cache holds the code")
    compile_module.compile = refuse
import wirecodec
from wirecodec.protobuf.compile import defer_every_element, source
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
nodes = [NodeProto(op_type="Conv", input=["x", "w"], output=[f"y{i}"],
                   attribute=[AttributeProto(name="k", type=7, ints=[3, 3])]) for i in range(30)]
weights = TensorProto(name="w", dims=[64], data_type=1, float_data=[i / 3 for i in range(64)])
data = wirecodec.encode(ModelProto(graph=GraphProto(node=nodes, initializer=[weights])))
with defer_every_element():
    waiting = wirecodec.decode(ModelProto, data)
model = wirecodec.decode(ModelProto, data)
assert waiting == model and wirecodec.encode(model) == data
print(sum(len(n.attribute[0].ints) for n in model.graph.node), model.graph.initializer[0].float_data[-1])
print(hash(source(NodeProto, "decode+lazy")), hash(source(TensorProto, "encode")))
"""


def _run(cache: pathlib.Path, mode: str) -> str:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    # The cache is what is tested: the codecs shipped in the package would stand in for it.
    env.update({CACHE_ENV: str(cache), SHIPPED_ENV: "0", "PYTHONPATH": str(ROOT), "PYTHONHASHSEED": "0"})
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT, mode],
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_second_process_generates_no_source(tmp_path: pathlib.Path) -> None:
    cache = tmp_path / "codecs"
    first = _run(cache, "generate")
    entries = sorted(path.name for path in cache.iterdir())
    assert entries and all("-schema-" in name for name in entries)
    assert _run(cache, "forbid") == first  # same values, same source shown
    assert sorted(path.name for path in cache.iterdir()) == entries


def test_without_its_schema_entry_a_codec_is_still_found_by_its_source(tmp_path: pathlib.Path) -> None:
    # A cache written by a library that kept only entries keyed by source, read by a
    # process that may write nothing: the source is generated, but not compiled again.
    cache = tmp_path / "codecs"
    first = _run(cache, "source-keys")
    assert not any("-schema-" in path.name for path in cache.iterdir())
    assert _run(cache, "no-compile") == first
    assert not any("-schema-" in path.name for path in cache.iterdir())


class Local(Message):
    name: str = optional(1, STRING)


def test_only_classes_declared_in_the_library_get_a_schema_key() -> None:
    assert schema_cache.key(NodeProto, "decode+lazy", None) is not None
    assert schema_cache.key(Local, "decode+lazy", None) is None
    made = type("NodeProto", (Message,), {"__module__": "schema_dsl.onnx", "__annotations__": {}})
    assert schema_cache.key(made, "decode+lazy", None) is None  # not what the module declares


def test_keys_differ_by_class_kind_and_thresholds() -> None:
    keys = {
        schema_cache.key(NodeProto, "decode+lazy", 1),
        schema_cache.key(NodeProto, "decode+lazy", 2),
        schema_cache.key(NodeProto, "str+lazy", 1),
        schema_cache.key(TensorProto, "decode+lazy", 1),
    }
    assert len(keys) == 4


def test_tokens_name_the_schema_and_resolve_only_against_it() -> None:
    schema = TensorProto.__schema__
    from schema_dsl.containers import container_class

    constants = {"_R_float_data": container_class(schema.by_name["float_data"]), "_K": (b"\x08",)}
    tokens = schema_cache.tokens(schema, constants)
    assert tokens == (("_R_float_data", True, None), ("_K", False, (b"\x08",)))
    assert schema_cache.resolve(schema, tokens) == constants
    assert schema_cache.resolve(NodeProto.__schema__, tokens) is None  # NodeProto has no float_data
    assert schema_cache.tokens(schema, {"_X": object()}) is None  # neither named nor marshallable


def test_a_change_to_the_generators_changes_every_key(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An entry written by older generators must not be taken as current: the key holds
    # the library's stamp (each generator file's name, size and mtime, gen/ included).
    # A copy of wirecodec/protobuf stands in for the library: the real files stay as they are.
    folder = tmp_path / "protobuf"
    shutil.copytree(schema_cache._PROTOBUF, folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(schema_cache, "_PROTOBUF", str(folder))
    schema_cache._stamp.cache_clear()
    try:
        before = schema_cache.key(NodeProto, "decode+lazy", None)
        for changed in ("runtime.py", "gen/decode.py", "gen/validate.py"):
            with (folder / changed).open("a") as source:
                source.write("# a newer version\n")
            schema_cache._stamp.cache_clear()
            after = schema_cache.key(NodeProto, "decode+lazy", None)
            assert after is not None and after != before, changed
            before = after
    finally:
        schema_cache._stamp.cache_clear()  # the next test sees the real library's stamp again
