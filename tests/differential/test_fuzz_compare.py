"""``wirecodec fuzz``: corpora from every layout, and the compare runner's classification.

The runner starts real processes: onnx, onnxruntime and wirecodec through
wirecodec.fuzz.parse_one, and commands that crash (a signal), hang (a timeout) or
answer differently for a rewrite than for its origin (the metamorphic finding).
"""

from __future__ import annotations

import json
import pathlib
import shlex
import sys

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.reference import require_onnx
from wirecodec.cli import main
from wirecodec.fuzz.compare import MANIFEST

EXAMPLE = pathlib.Path(__file__).resolve().parents[2] / "wirecodec" / "examples" / "mlp.onnx"


def _python(code: str) -> str:
    """A parser command: this interpreter running ``code`` with the file as ``sys.argv[1]``."""
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(code)} {{}}"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    folder = tmp_path_factory.mktemp("layouts")
    made = {"single": EXAMPLE}
    for layout, name in (("external", "split.onnx"), ("zip", "model.onnxz")):
        target = folder / layout / name
        target.parent.mkdir()
        assert main(["convert", str(EXAMPLE), str(target), "--to", layout, "--size-threshold", "0"]) == 0
        made[layout] = target
    return made


@pytest.mark.parametrize("action", ["rewrite", "invalid", "mutate"])
@pytest.mark.parametrize("layout", ["single", "external", "zip"])
def test_every_action_reads_every_layout(
    action: str,
    layout: str,
    layouts: dict[str, pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "corpus"
    code, stdout, err = _run(
        ["fuzz", action, str(layouts[layout]), "-n", "3", "-o", str(out), "--json"], capsys
    )
    assert (code, err) == (0, "")
    assert json.loads(stdout)["written"] == 3
    manifest = json.loads((out / MANIFEST).read_text())
    origin = next(name for name in manifest if name.endswith(".orig.onnx"))
    # Whatever the layout, the origin is the model with every tensor's data read in.
    expected = wirecodec.load(layouts[layout])
    assert ModelProto.FromString((out / origin).read_bytes()) == expected
    assert all(t.HasField("raw_data") for t in expected.graph.initializer)
    assert len(manifest) == 4


def test_rewrites_agree_across_onnx_onnxruntime_and_wirecodec(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_onnx()
    pytest.importorskip("onnxruntime")
    out = tmp_path / "corpus"
    kinds = ["--kinds", "unknown_fields", "reorder", "split_message"]
    assert _run(["fuzz", "rewrite", str(EXAMPLE), "-n", "3", "-o", str(out), *kinds], capsys)[0] == 0
    argv = [
        "fuzz",
        "compare",
        str(out),
        "--parser",
        "onnx",
        "--parser",
        "onnxruntime",
        "--parser",
        "wirecodec",
    ]
    code, stdout, _ = _run([*argv, "--json"], capsys)
    result = json.loads(stdout)
    assert (code, result["findings"]) == (0, []), result["findings"]
    assert result["counts"]["onnx"]["accept"] == 4 and result["counts"]["onnxruntime"]["accept"] == 4
    digests = {(o["parser"], o["digest"]) for o in result["outcomes"] if o["digest"]}
    assert len({d for _, d in digests}) == 4  # with unknown fields, each rewrite is another message...
    known = {o["known_digest"] for o in result["outcomes"] if o["known_digest"]}
    assert len(known) == 1  # ...but as the same model once those are dropped


def test_invalid_files_are_refused_by_every_parser(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    require_onnx()
    out = tmp_path / "corpus"
    assert _run(["fuzz", "invalid", str(EXAMPLE), "-n", "4", "-o", str(out)], capsys)[0] == 0
    code, stdout, _ = _run(
        ["fuzz", "compare", str(out), "--parser", "onnx", "--parser", "wirecodec", "--json"], capsys
    )
    result = json.loads(stdout)
    assert code == 0, result["findings"]
    assert result["counts"]["onnx"] == {"accept": 1, "reject": 4, "crash": 0, "timeout": 0}
    assert result["counts"]["wirecodec"] == result["counts"]["onnx"]


def test_a_crash_exits_1_and_names_the_file(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "corpus"
    _run(["fuzz", "rewrite", str(EXAMPLE), "-n", "1", "-o", str(out)], capsys)
    crash = _python("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    code, stdout, err = _run(["fuzz", "compare", str(out), "--parser", crash], capsys)
    assert code == 1
    assert "crash" in stdout and "signal 11" in stdout
    assert "mlp.orig.onnx" in err and "mlp.rewrite-0.onnx" in err


def test_a_hang_is_a_timeout(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "corpus"
    _run(["fuzz", "invalid", str(EXAMPLE), "-n", "1", "-o", str(out)], capsys)
    hang = _python("import time; time.sleep(30)")
    code, stdout, _ = _run(
        ["fuzz", "compare", str(out), "--parser", hang, "--time-limit", "0.5", "--json"], capsys
    )
    result = json.loads(stdout)
    assert code == 1
    assert {f["kind"] for f in result["findings"]} == {"timeout"}
    assert len(result["findings"]) == 2


def test_a_parser_that_changes_its_answer_for_a_rewrite_is_a_finding(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "corpus"
    _run(["fuzz", "rewrite", str(EXAMPLE), "-n", "2", "-o", str(out)], capsys)
    picky = _python("import sys; sys.exit('rewrite' in sys.argv[1])")  # rejects rewrites only
    code, stdout, _ = _run(["fuzz", "compare", str(out), "--parser", picky, "--json"], capsys)
    result = json.loads(stdout)
    assert code == 1
    changed = [f for f in result["findings"] if f["kind"] == "rewrite_changed_result"]
    assert sorted(f["file"] for f in changed) == ["mlp.rewrite-0.onnx", "mlp.rewrite-1.onnx"]


def test_parsers_disagreeing_on_a_file_is_a_finding(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "corpus"
    _run(["fuzz", "invalid", str(EXAMPLE), "-n", "1", "-o", str(out)], capsys)
    accepts_all = _python("pass")
    code, stdout, _ = _run(
        ["fuzz", "compare", str(out), "--parser", "wirecodec", "--parser", accepts_all], capsys
    )
    assert code == 1
    assert "mlp.invalid-0.onnx: parse_disagreement" in stdout


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["fuzz", "compare", "nowhere"], "at least one --parser"),
        (["fuzz", "rewrite", str(EXAMPLE)], "needs -o DIR"),
        (["fuzz", "rewrite", str(EXAMPLE), "-o", "x", "--kinds", "shuffle"], "unknown kind shuffle"),
    ],
)
def test_usage_errors_are_one_line(
    argv: list[str],
    message: str,
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(argv, capsys)
    assert code == 2 and message in err and err.count("\n") == 1, err
