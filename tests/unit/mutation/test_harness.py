"""The mutation harness's own checks (tests/mutation/run.py): a mutant whose old text does not
name exactly one place in the package is a harness error, before anything runs."""

from __future__ import annotations

import pathlib

import pytest

from tests.mutation.mutants import MUTANTS, Mutant
from tests.mutation.run import (
    ONNX_SUITE,
    ROOT,
    HarnessError,
    Result,
    apply,
    check_applies,
    discount_skipped,
    main,
    onnx_suite_cache,
    outcomes_of,
    ran_and_passed,
    restore,
    run_pytest,
    selection,
)

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
        for named in mutant.tests:
            assert (ROOT / named.split("::")[0]).is_file(), (mutant.name, named)
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


# -- skipped killers and onnx's own tests (issue 46) ---------------------------------------------


def test_outcomes_rank_a_failure_over_a_skip_over_a_pass() -> None:
    lines = ["passed\ta::t1", "failed\ta::t1", "skipped\ta::t2", "passed\ta::t3", "skipped\ta::t3", "junk"]
    assert outcomes_of(lines) == {"a::t1": "failed", "a::t2": "skipped", "a::t3": "skipped"}


def test_a_killer_counts_only_if_it_ran_and_passed_unmutated() -> None:
    seen = {"tests/a.py::t1": "passed", "tests/a.py::t2": "skipped", "tests/b.py::t": "skipped"}
    assert ran_and_passed("tests/a.py::t1", seen)
    assert not ran_and_passed("tests/a.py::t2", seen)
    assert not ran_and_passed("tests/a.py::t9", seen)  # never reported: it did not run
    assert ran_and_passed("tests/a.py", seen)  # a collection kill: one of its tests passed
    assert not ran_and_passed("tests/b.py", seen)  # every test of the module skipped


def _result(verdict: str, killers: tuple[str, ...] = (), tests: tuple[str, ...] = ("tests/a.py",)) -> Result:
    return Result(_mutant(), verdict, 1.0, tests, "", killers)


def test_a_kill_whose_killer_skips_unmutated_is_not_counted() -> None:
    seen = {"tests/a.py::ok": "passed", "tests/a.py::skips": "skipped"}
    results = discount_skipped(
        [
            _result("killed", ("tests/a.py::ok",)),
            _result("killed", ("tests/a.py::skips",)),
            _result("killed (collection)"),
            _result("survived"),
        ],
        seen,
    )
    assert [r.verdict for r in results] == [
        "killed",
        "survived (killer skipped)",
        "killed (collection)",
        "survived",
    ]


def test_onnx_suite_runs_last_where_cached_and_not_at_all_otherwise(tmp_path: pathlib.Path) -> None:
    named = ("tests/a.py", ONNX_SUITE, "tests/b.py::t")
    assert selection(named, None) == ("tests/a.py", "tests/b.py::t")
    assert selection(named, tmp_path) == ("tests/a.py", "tests/b.py::t", ONNX_SUITE)
    assert selection(("tests/a.py",), tmp_path) == ("tests/a.py", ONNX_SUITE)


def test_the_onnx_suite_cache_is_found_where_the_sdist_is_extracted(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnx", reason="the suite is onnx's own tests")
    from tests.onnx_suite import sdist

    monkeypatch.delenv("WIRECODEC_ONNX_SUITE_CACHE", raising=False)
    assert onnx_suite_cache(tmp_path) is None
    (tmp_path / ".onnx_suite_cache" / f"onnx-{sdist.installed_onnx_version()}-tests").mkdir(parents=True)
    assert onnx_suite_cache(tmp_path) == tmp_path / ".onnx_suite_cache"


def test_the_plugin_reports_passed_skipped_and_failed_tests(tmp_path: pathlib.Path) -> None:
    # A tree of its own: the plugin (copied), and a test module with one of each outcome.
    plugin = (ROOT / "tests/mutation/failures_plugin.py").read_text()
    root = _tree(
        tmp_path / "tree",
        {
            "tests/__init__.py": "",
            "tests/mutation/__init__.py": "",
            "tests/mutation/failures_plugin.py": plugin,
            "tests/test_three.py": (
                "import pytest\n"
                "def test_passes(): pass\n"
                "def test_skips(): pytest.skip('no reference here')\n"
                "def test_fails(): assert False\n"
            ),
            "tests/test_skipped_module.py": "import pytest\npytest.importorskip('no_such_module_46')\n",
        },
    )
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    code, _, failed, seen = run_pytest(
        root, ["tests/test_three.py", "tests/test_skipped_module.py"], 120, scratch, stop_first=False
    )
    assert code == 1
    assert failed == ("tests/test_three.py::test_fails",)
    assert seen == {
        "tests/test_three.py::test_passes": "passed",
        "tests/test_three.py::test_skips": "skipped",
        "tests/test_three.py::test_fails": "failed",
        "tests/test_skipped_module.py": "skipped",
    }
