"""The mutation harness's own checks (tests/mutation/run.py): a mutant whose old text does not
name exactly one place in the package is a harness error, before anything runs."""

from __future__ import annotations

import pathlib

import pytest

from tests.mutation.mutants import MUTANTS, Mutant
from tests.mutation.run import ROOT, HarnessError, apply, check_applies, main, restore

_GUARD = "if entry is None or entry.name == MODEL_ENTRY:\n    raise ValueError\n"


def _tree(tmp_path: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path


def _mutant(old: str = "entry.name == MODEL_ENTRY") -> Mutant:
    return Mutant("guard", "wirecodec/zip.py", old, "False", ("tests/x.py",), "the guard dropped")


def test_a_guard_written_once_applies(tmp_path: pathlib.Path) -> None:
    root = _tree(tmp_path, {"wirecodec/zip.py": _GUARD, "tests/test_zip.py": _GUARD, "docs/zip.md": _GUARD})
    check_applies(_mutant(), root)  # tests and docs may quote the code


@pytest.mark.parametrize("copy", ["wirecodec/files/data.py", "schema_dsl/guards.py"])
def test_a_guard_copied_elsewhere_in_the_package_is_a_harness_error(
    tmp_path: pathlib.Path, copy: str
) -> None:
    root = _tree(tmp_path, {"wirecodec/zip.py": _GUARD, copy: "x = 1\n" + _GUARD})
    with pytest.raises(
        HarnessError, match=rf"guard: the old text .* of wirecodec/zip.py is copied in {copy} \(1x\)"
    ):
        check_applies(_mutant(), root)


def test_twice_in_its_own_file_or_nowhere_is_a_harness_error(tmp_path: pathlib.Path) -> None:
    root = _tree(tmp_path, {"wirecodec/zip.py": _GUARD * 2})
    with pytest.raises(HarnessError, match=r"occurs 2 times in wirecodec/zip\.py"):
        check_applies(_mutant(), root)
    with pytest.raises(HarnessError, match=r"is not found in wirecodec/zip\.py"):
        check_applies(_mutant("entry.name != MODEL_ENTRY"), root)


def test_every_named_mutant_names_one_place_in_the_package() -> None:
    for mutant in MUTANTS:
        check_applies(mutant, ROOT)
        assert mutant.old != mutant.new, mutant.name
        for selection in mutant.tests:
            assert (ROOT / selection.split("::")[0]).is_file(), (mutant.name, selection)
    assert len({m.name for m in MUTANTS}) == len(MUTANTS)


def test_the_command_line_lists_and_refuses_unknown_names(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == len(MUTANTS)
    assert main(["--only", "no-such-mutant"]) == 2
    assert "no mutant named no-such-mutant" in capsys.readouterr().err


def test_a_worker_copy_is_given_back_as_it_was(tmp_path: pathlib.Path) -> None:
    # One copy per worker takes mutant after mutant: each is planted, then put back.
    root = _tree(tmp_path, {"wirecodec/zip.py": _GUARD})
    original = apply(_mutant(), root)
    assert (root / "wirecodec/zip.py").read_text() == _GUARD.replace("entry.name == MODEL_ENTRY", "False")
    restore(_mutant(), root, original)
    assert (root / "wirecodec/zip.py").read_text() == _GUARD
