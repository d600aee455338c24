"""What a type checker sees of the ONNX messages: each field's type and the keyword constructor.

The stub ``schema_dsl/onnx.pyi`` is generated from the classes (``python -m schema_dsl.stubgen``);
these tests fail when it is stale and run mypy on a snippet to read what it infers.
"""

from __future__ import annotations

import pathlib
import re

import pytest

from schema_dsl.stubgen import stub_text

ROOT = pathlib.Path(__file__).resolve().parents[3]

SNIPPET = """
from schema_dsl.onnx import AttributeProto, GraphProto, ModelProto, NodeProto, TensorProto

node = NodeProto(name="n", input=("a", "b"), attribute=[AttributeProto(name="x", i=1)])
reveal_type(node.name)
reveal_type(node.input)
reveal_type(node.attribute[0])
reveal_type(node.attribute.add(name="y"))
reveal_type(AttributeProto().s)
reveal_type(TensorProto().raw_data)
reveal_type(TensorProto().dims)
reveal_type(ModelProto().graph)
reveal_type(TensorProto.FLOAT)
reveal_type(TensorProto.DataType.Name(1))
attribute = AttributeProto(type="INTS", ints=range(3))
NodeProto(name=3)
NodeProto(nme="n")
GraphProto(node=[AttributeProto()])
node.name = 4
"""

EXPECTED_TYPES = [
    "str",
    "schema_dsl.containers.RepeatedScalarFieldContainer[str]",
    "schema_dsl.onnx.AttributeProto",
    "schema_dsl.onnx.AttributeProto",
    "bytes",
    "bytes | memoryview[int]",
    "schema_dsl.containers.RepeatedScalarFieldContainer[int]",
    "schema_dsl.onnx.GraphProto",
    "int",
    "str",
]


def test_the_stub_is_generated_from_the_current_schema() -> None:
    committed = (ROOT / "schema_dsl" / "onnx.pyi").read_text(encoding="utf-8")
    assert committed == stub_text("schema_dsl.onnx"), "run: python -m schema_dsl.stubgen schema_dsl.onnx"


def test_mypy_sees_field_types_and_checks_the_keyword_constructor(tmp_path: pathlib.Path) -> None:
    api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(SNIPPET, encoding="utf-8")
    out, _, _ = api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(snippet)]
    )
    revealed = re.findall(r'Revealed type is "([^"]+)"', out)
    assert revealed == EXPECTED_TYPES, out
    errors = [line for line in out.splitlines() if ": error:" in line]
    lines_with_errors = sorted({int(line.split(":")[1]) for line in errors})
    source = SNIPPET.splitlines()
    flagged = [source[n - 1] for n in lines_with_errors]
    # Exactly the four wrong lines are flagged; the enum given by name is fine.
    assert flagged == [
        "NodeProto(name=3)",
        'NodeProto(nme="n")',
        "GraphProto(node=[AttributeProto()])",
        "node.name = 4",
    ], out
