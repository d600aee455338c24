"""``wirecodec dump``: what onnx shows for the same model, whole or one field."""

from __future__ import annotations

import pathlib

import pytest

from tests.support.exports import Export
from wirecodec.cli import main

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
from google.protobuf import json_format  # noqa: E402  (protobuf comes with onnx)


def _dump(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["dump", *argv]) == 0
    return capsys.readouterr().out


def test_dump_shows_what_onnx_shows(
    pytorch_exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for export in pytorch_exports:
        path = tmp_path / f"{export.name}.onnx"
        path.write_bytes(export.data)
        theirs = onnx.ModelProto.FromString(export.data)
        assert _dump(capsys, str(path)) == str(theirs), export.name
        # The syntax as onnx prints it, ending in exactly one newline.
        syntax = onnx.printer.to_text(theirs).rstrip("\n") + "\n"
        assert _dump(capsys, str(path), "--format", "onnx", "--all-data") == syntax
        # By default tensors of more than 16 elements print as "..." (as --help says).
        elided = _dump(capsys, str(path), "--format", "onnx")
        assert len(elided) < len(syntax) and "= ..." in elided
        assert _dump(capsys, str(path), "--format", "json") == json_format.MessageToJson(theirs) + "\n"
        assert _dump(capsys, str(path), "graph.node[1]") == str(theirs.graph.node[1])
        assert _dump(capsys, str(path), "graph.node[-1]", "--format", "onnx") == (
            onnx.printer.to_text(theirs.graph.node[-1]).rstrip("\n") + "\n"
        )
        assert _dump(capsys, str(path), "ir_version") == f"{theirs.ir_version}\n"
        opsets = "".join(str(o) for o in theirs.opset_import)
        assert _dump(capsys, str(path), "opset_import") == opsets


@pytest.mark.parametrize(
    ("field", "message"),
    [
        ("graph.nod", "GraphProto has no field 'nod'"),
        ("graph.node[99]", "graph.node has 3 elements, so no [99]"),
        ("graph.name.x", "graph.name is not a message, so it has no field 'x'"),
        ("graph..node[", "'' is not a field name (or #number) with an optional [index]"),
    ],
)
def test_a_field_the_model_lacks_is_a_usage_error(
    field: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from wirecodec.cli.common import EXAMPLE

    assert main(["dump", str(EXAMPLE), field]) == 2
    assert message in capsys.readouterr().err


def test_onnx_syntax_only_for_what_onnx_prints(capsys: pytest.CaptureFixture[str]) -> None:
    from wirecodec.cli.common import EXAMPLE

    assert main(["dump", str(EXAMPLE), "graph.initializer[0]", "--format", "onnx"]) == 2
    assert "model, graph, function or node" in capsys.readouterr().err
