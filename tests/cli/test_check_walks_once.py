"""``wirecodec check`` walks the model once: the rules, the skipped domains and the operator
counts come from the same walk (wirecodec.checker.examine)."""

from __future__ import annotations

import pytest

import wirecodec.checker as checker
from wirecodec.cli import EXAMPLE, main


@pytest.mark.parametrize("extra", [[], ["--ir-only"], ["--json"]])
def test_check_walks_the_model_once(
    extra: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    calls: list[object] = []
    real = checker.walk

    def counted(model: object, rules: object = None) -> object:
        calls.append(model)
        return real(model, rules)  # type: ignore[arg-type]

    monkeypatch.setattr(checker, "walk", counted)
    assert main(["check", str(EXAMPLE), *extra]) == 0
    assert len(calls) == 1
    out = capsys.readouterr().out
    assert "operator" in out or "valid" in out
