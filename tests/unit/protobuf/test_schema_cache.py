"""The library's own schema's codecs are named by their declaration and their constants
shipped as tokens (wirecodec.protobuf.schema_cache); any other class generates its codecs,
whose compiled code the code cache keys by their source."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from schema_dsl import STRING, Message, optional
from schema_dsl.onnx import NodeProto, TensorProto
from wirecodec.protobuf import schema_cache
from wirecodec.protobuf.compile import CACHE_ENV
from wirecodec.protobuf.shipped import ENV as SHIPPED_ENV

ROOT = pathlib.Path(__file__).resolve().parents[3]

# Decodes a model, reads it, prints what it read and the generated source of two codecs.
# With "no-compile", compiling any source raises: the code must come from the cache.
_SCRIPT = """
import sys

from wirecodec.protobuf import compile as compile_module
if sys.argv[1] == "no-compile":  # as under python -B: nothing written, nothing compiled
    sys.dont_write_bytecode = True
    def refuse(*args, **kwargs):
        raise AssertionError("compiled although the cache holds the code")
    compile_module.compile = refuse
import wirecodec
from wirecodec.protobuf.compile import source
from wirecodec.protobuf.representation import Representation
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto
nodes = [NodeProto(op_type="Conv", input=["x", "w"], output=[f"y{i}"],
                   attribute=[AttributeProto(name="k", type=7, ints=[3, 3])]) for i in range(30)]
weights = TensorProto(name="w", dims=[64], data_type=1, float_data=[i / 3 for i in range(64)])
data = wirecodec.encode(ModelProto(graph=GraphProto(node=nodes, initializer=[weights])))
waiting = wirecodec.decode(ModelProto, data, representation=Representation(every_element_waits=True))
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


def test_without_shipped_codecs_a_second_process_compiles_nothing(tmp_path: pathlib.Path) -> None:
    # The source is generated again, and finds its code in the cache by it.
    cache = tmp_path / "codecs"
    first = _run(cache, "generate")
    entries = sorted(path.name for path in cache.iterdir())
    assert entries and not any("-schema-" in name for name in entries)  # no key but the source
    assert _run(cache, "no-compile") == first
    assert sorted(path.name for path in cache.iterdir()) == entries


class Local(Message):
    name: str = optional(1, STRING)


def test_only_classes_declared_in_the_library_have_a_name() -> None:
    assert schema_cache.declared_name(NodeProto, "decode+lazy", None) is not None
    assert schema_cache.declared_name(Local, "decode+lazy", None) is None
    made = type("NodeProto", (Message,), {"__module__": "schema_dsl.onnx", "__annotations__": {}})
    assert schema_cache.declared_name(made, "decode+lazy", None) is None  # not what the module declares


def test_names_differ_by_class_kind_and_thresholds() -> None:
    names = {
        schema_cache.declared_name(NodeProto, "decode+lazy", 1),
        schema_cache.declared_name(NodeProto, "decode+lazy", 2),
        schema_cache.declared_name(NodeProto, "str+lazy", 1),
        schema_cache.declared_name(TensorProto, "decode+lazy", 1),
    }
    assert len(names) == 4


def test_tokens_name_the_schema_and_resolve_only_against_it() -> None:
    schema = TensorProto.__schema__
    from schema_dsl.containers import container_class

    constants = {"_R_float_data": container_class(schema.by_name["float_data"]), "_K": (b"\x08",)}
    tokens = schema_cache.tokens(schema, constants)
    assert tokens == (("_R_float_data", True, None), ("_K", False, (b"\x08",)))
    assert schema_cache.resolve(schema, tokens) == constants
    assert schema_cache.resolve(NodeProto.__schema__, tokens) is None  # NodeProto has no float_data
    assert schema_cache.tokens(schema, {"_X": object()}) is None  # neither named nor marshallable
