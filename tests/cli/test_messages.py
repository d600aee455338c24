"""Issue 35, item 11: merge's name clash in one short line naming real flags, diff's
counts and --max-lines, help texts that mention URLs and safetensors, dump's FIELD."""

from __future__ import annotations

import json
import pathlib

import pytest

from tests.support import odd_models
from wirecodec import save
from wirecodec.cli import main


def test_merge_name_clash_is_short_and_names_the_flags(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    save(odd_models.weights_model(layers=40), path)
    assert main(["merge", str(path), str(path), str(tmp_path / "o.onnx"), "--io-map", "y:x"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 400, err
    assert "--prefix1" in err and "--prefix2" in err and "and 75 more" in err
    assert (
        main(["merge", str(path), str(path), str(tmp_path / "o.onnx"), "--io-map", "y:x", "--prefix2", "b/"])
        == 0
    )


def test_diff_counts_in_words_and_limits_its_lines(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    model = odd_models.weights_model(layers=3)
    save(model, a)
    model.producer_name = "another tool"
    save(model, b)
    assert main(["diff", str(a), str(b)]) == 1
    assert "differ in 1 place:" in capsys.readouterr().out
    model.graph.name = "renamed"
    model.doc_string = "now documented"
    save(model, b)
    assert main(["diff", str(a), str(b), "--max-lines", "1"]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert "differ in 3 places" in lines[0] and len(lines) == 3 and lines[2].startswith("... and 2 more")
    assert main(["diff", str(a), str(b), "--max-lines", "1", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["count"] == 3 and len(report["differences"]) == 1


@pytest.mark.parametrize("verb", [None, "convert", "run", "draw", "merge", "extract"])
def test_help_mentions_urls(verb: str | None, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([verb, "--help"] if verb else ["--help"]) == 0
    # The MODEL argument's own help (not the "models by URL" options group every verb has).
    assert "https:// URL" in " ".join(capsys.readouterr().out.split())


def test_dump_usage_and_text_agree_on_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["dump", "--help"]) == 0
    text = capsys.readouterr().out
    usage = text.split("\n\n")[0]
    assert "[FIELD]" in usage and "field" not in usage.replace("FIELD", "")
