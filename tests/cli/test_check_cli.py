"""``wirecodec check MODEL [--full] [--json]``, run in-process: exit 0 valid, 1 violations, 2 usage."""

from __future__ import annotations

import json
import pathlib

import pytest

from schema_dsl.onnx import ModelProto, StringStringEntryProto
from tests.support import check_models
from wirecodec import decode, encode, load
from wirecodec.cli import EXAMPLE, main


def _broken_example(folder: pathlib.Path) -> pathlib.Path:
    """The bundled model with its second node reading a value nobody defines, and no graph name."""
    model = decode(ModelProto, EXAMPLE.read_bytes())
    model.graph.node[1].input[0] = "nowhere"
    model.graph.name = ""
    path = folder / "broken.onnx"
    path.write_bytes(encode(model))
    return path


def test_a_valid_model_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(EXAMPLE)]) == 0
    # It says what it checked: every node against its schema (no custom domain to skip).
    assert capsys.readouterr().out == (
        f"{EXAMPLE}: valid under the IR rules and operator schemas "
        "(every node checked against its operator schema)\n"
    )


def test_violations_are_listed_and_exit_1(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _broken_example(tmp_path)
    assert main(["check", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        "graph.node[1].input[0]: 'nowhere' is not defined before this node [undefined-input]",
        "graph.name: the graph has no name [graph-name]",
        f"{path}: 2 violations of the IR rules and operator schemas "
        "(every node checked against its operator schema)",
    ]


def test_json_lists_the_violations(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(_broken_example(tmp_path)), "--json"]) == 1
    result = json.loads(capsys.readouterr().out)
    assert (result["version"], result["valid"], result["schemas_checked"]) == (1, False, True)
    assert result["violations"] == [
        {
            "path": "graph.node[1].input[0]",
            "rule": "undefined-input",
            "message": "'nowhere' is not defined before this node",
        },
        {"path": "graph.name", "rule": "graph-name", "message": "the graph has no name"},
    ]


def test_json_of_a_valid_model_has_no_violations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json", str(EXAMPLE)]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["valid"], result["violations"]) == (True, [])


def test_external_data_is_found_next_to_the_model(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = check_models.external_model(tmp_path)
    assert main(["check", str(path)]) == 0
    (tmp_path / "model.onnx.data").unlink()
    assert main(["check", str(path), "--json"]) == 1
    listed = json.loads(capsys.readouterr().out.split("\n", 1)[1])["violations"]  # after the first run's line
    # One missing file is one violation, naming how many tensors refer to it (not one per tensor,
    # each naming the first).
    assert [v["rule"] for v in listed] == ["external-file"]
    assert "4 tensors refer to 'model.onnx.data'" in listed[0]["message"]


def test_full_verifies_checksums(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = check_models.external_model(tmp_path)
    model = load(path, load_external_data=False)
    model.graph.initializer[0].external_data.append(StringStringEntryProto(key="checksum", value="0" * 40))
    path.write_bytes(encode(model))
    assert main(["check", str(path)]) == 0
    assert main(["check", str(path), "--full"]) == 1
    assert "[external-checksum]" in capsys.readouterr().out


def test_an_unreadable_file_exits_1(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.onnx"
    path.write_bytes(b"\x3a\x05ab")
    assert main(["check", str(path)]) == 1
    assert "DecodeError" in capsys.readouterr().err
    assert main(["check", str(tmp_path / "missing.onnx")]) == 1
    assert "No such file" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["check"], ["check", str(EXAMPLE), "--colour"]])
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2  # main returns argparse's exit code instead of raising SystemExit
    assert "usage: wirecodec" in capsys.readouterr().err
