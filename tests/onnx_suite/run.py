"""Run onnx's test modules on onnx and on wirecodec (through the shim); compare the outcomes."""

from __future__ import annotations

import dataclasses
import fnmatch
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ElementTree

from tests.onnx_suite import sdist

# What code written against onnx does: the ten modules. The 90% target is theirs.
CORE = (
    "basic",
    "serialization",
    "utils",
    "printer",
    "parser",
    "numpy_helper",
    "compose",
    "helper",
    "checker",
    "external_data",
)
# onnx's shape-inference tests: counted apart (the shape-inference work is judged by them).
SHAPE_INFERENCE = (
    "node_shape_inference",
    "model_inference",
    "data_propagation",
    "function_inference",
    "shape_inference",
)
# onnx's version-converter tests (issue 44): counted apart too. A module named here runs the
# file FILES gives it (a path under the suite folder), else ``<module>_test.py``.
VERSION_CONVERTER = ("version_converter", "automatic_upgrade", "automatic_downgrade")
FILES = {
    "automatic_upgrade": "version_converter/automatic_upgrade_test.py",
    "automatic_downgrade": "version_converter/automatic_downgrade_test.py",
}
# onnx's evaluator tests (issue 43): onnx.reference judged by its own test modules, counted apart.
EVALUATOR = (
    "reference_evaluator",
    "reference_evaluator_ml",
    "reference_evaluator_model",
    "reference_evaluator_attention",
    "model_container_refeval",
)
MODULES = CORE + SHAPE_INFERENCE + VERSION_CONVERTER + EVALUATOR
GROUPS = {
    "core": CORE,
    "shape inference": SHAPE_INFERENCE,
    "version converter": VERSION_CONVERTER,
    "evaluator": EVALUATOR,
}
EXPECTED_FAILURES = pathlib.Path(__file__).with_name("expected_failures.txt")
SHIM = pathlib.Path(__file__).with_name("shim_onnx.py")
PASS, FAIL, SKIP = "pass", "fail", "skip"


@dataclasses.dataclass(frozen=True)
class Expected:
    """One line of the expected-failure list: a test id pattern and why it fails on wirecodec."""

    pattern: str
    cause: str


def read_expected(path: pathlib.Path = EXPECTED_FAILURES) -> list[Expected]:
    """The entries of the list: ``<test id or fnmatch pattern> | <cause>``; ``#`` starts a comment."""
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, bar, cause = line.partition("|")
        if not bar or not cause.strip():
            raise ValueError(f"{path.name}:{number}: an entry is '<test id pattern> | <cause>', got {line!r}")
        entries.append(Expected(pattern.strip(), cause.strip()))
    return entries


def _outcomes(junit: pathlib.Path) -> dict[str, str]:
    """Test id (``module::Class::test``) -> pass/fail/skip, from pytest's JUnit XML."""
    outcomes: dict[str, str] = {}
    for case in ElementTree.parse(junit).iter("testcase"):
        if not case.get("classname"):  # a module that failed to import: "<module>::<import>"
            test_id = f"{case.get('name', '').rpartition('.')[2]}::<import>"
        else:
            parts = case.get("classname", "").split(".")
            # a test file in a folder (version_converter.automatic_upgrade_test.X): from the file on
            at = next((i for i, part in enumerate(parts) if part.endswith("_test")), 0)
            test_id = "::".join([*parts[at:], case.get("name", "")])
        test_id = test_id.replace("_test::", "::", 1)  # helper_test::X::y -> helper::X::y
        kinds = {child.tag for child in case}
        outcome = FAIL if kinds & {"failure", "error"} else SKIP if "skipped" in kinds else PASS
        if outcomes.get(test_id) != FAIL:  # a teardown error after a pass is a failure
            outcomes[test_id] = outcome
    return outcomes


def run_side(folder: pathlib.Path, modules: tuple[str, ...], shim: bool) -> dict[str, str]:
    """Run the modules under pytest in a subprocess: on the installed onnx, or on wirecodec."""
    folder = folder.resolve()  # a cache reached through a symlink: pytest names modules from real paths
    with tempfile.TemporaryDirectory(prefix="onnx-suite-") as scratch_name:
        scratch = pathlib.Path(scratch_name)
        paths = [str(sdist.REPO)]
        if shim:
            (scratch / "onnx").mkdir()
            shutil.copy(SHIM, scratch / "onnx" / "__init__.py")
            paths.insert(0, str(scratch))
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join([*paths, env.get("PYTHONPATH", "")])
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.setdefault("WIRECODEC_CODE_CACHE", str(scratch / "codecs"))
        (scratch / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
        junit = scratch / "junit.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-c",
            str(scratch / "pytest.ini"),
            "--rootdir",
            str(folder),
            "--continue-on-collection-errors",
            "--timeout=900",
            f"--junitxml={junit}",
            *[FILES.get(name, f"{name}_test.py") for name in modules],
        ]
        subprocess.run(command, cwd=folder, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if not junit.is_file():
            raise RuntimeError(f"pytest wrote no report ({'wirecodec' if shim else 'onnx'} side)")
        return _outcomes(junit)


@dataclasses.dataclass
class Comparison:
    """The two runs side by side."""

    onnx: dict[str, str]
    wirecodec: dict[str, str]
    expected: list[Expected]

    def passing_on_onnx(self, module: str) -> list[str]:
        return sorted(t for t, o in self.onnx.items() if o == PASS and t.split("::")[0] == module)

    def failing_on_wirecodec(self, module: str) -> list[str]:
        return [t for t in self.passing_on_onnx(module) if self.wirecodec.get(t) != PASS]

    def cause(self, test_id: str) -> str | None:
        for entry in self.expected:
            # Test ids hold brackets (parameters): an exact id is matched as such first.
            if entry.pattern == test_id or fnmatch.fnmatchcase(test_id, entry.pattern):
                return entry.cause
        return None

    def unexpected(self) -> list[str]:
        """Tests that pass on onnx, fail on wirecodec, and the list does not explain."""
        return [t for m in MODULES for t in self.failing_on_wirecodec(m) if self.cause(t) is None]

    def listed_but_passing(self) -> list[str]:
        """List entries naming one test that now passes on wirecodec: the list should lose them."""
        return [e.pattern for e in self.expected if self.wirecodec.get(e.pattern) == PASS]

    def import_errors(self) -> list[str]:
        """Modules whose import (collection) fails on wirecodec."""
        return sorted(t for t, o in self.wirecodec.items() if t.endswith("::<import>") and o == FAIL)

    def wirecodec_only(self) -> list[str]:
        """Tests that pass on wirecodec but not on onnx (should be none)."""
        return sorted(t for t, o in self.wirecodec.items() if o == PASS and self.onnx.get(t) != PASS)


def compare(modules: tuple[str, ...] = MODULES, folder: pathlib.Path | None = None) -> Comparison:
    """Fetch (if needed) and run both sides."""
    folder = folder or sdist.suite_folder()
    return Comparison(
        run_side(folder, modules, shim=False), run_side(folder, modules, shim=True), read_expected()
    )


def _line(name: str, on_onnx: int, on_wirecodec: int) -> str:
    share = f"{100 * on_wirecodec / on_onnx:5.1f}%" if on_onnx else "    -"
    return f"{name:<22} {on_onnx:>12} {on_wirecodec:>17} {share}"


def report(comparison: Comparison, modules: tuple[str, ...] = MODULES) -> str:
    """The per-module table, the totals, and what fails without a listed cause."""
    lines = [f"{'module':<22} {'pass on onnx':>12} {'pass on wirecodec':>17}  share"]
    totals = {name: [0, 0] for name, members in GROUPS.items() if set(members) & set(modules)}
    for module in modules:
        on_onnx = len(comparison.passing_on_onnx(module))
        on_wirecodec = on_onnx - len(comparison.failing_on_wirecodec(module))
        lines.append(_line(module, on_onnx, on_wirecodec))
        group = totals[next(name for name, members in GROUPS.items() if module in members)]
        group[0] += on_onnx
        group[1] += on_wirecodec
    lines.append("")
    for name, (on_onnx, on_wirecodec) in totals.items():
        lines.append(_line(f"total, {name}", on_onnx, on_wirecodec))
    lines.append(_line("total", sum(v[0] for v in totals.values()), sum(v[1] for v in totals.values())))
    causes: dict[str, int] = {}
    for module in modules:
        if module in CORE:
            for test in comparison.failing_on_wirecodec(module):
                cause = comparison.cause(test) or "(no listed cause)"
                causes[cause] = causes.get(cause, 0) + 1
    if causes:
        lines.append("\nwhy the core tests that pass on onnx fail on wirecodec:")
        lines.extend(f"{count:>5}  {cause}" for cause, count in sorted(causes.items(), key=lambda c: -c[1]))
    for title, tests in (
        ("modules that fail to import on wirecodec", comparison.import_errors()),
        ("pass on wirecodec, not on onnx", comparison.wirecodec_only()),
        ("listed as expected failures but pass now (remove them)", comparison.listed_but_passing()),
        ("FAIL on wirecodec with no listed cause", comparison.unexpected()),
    ):
        if tests:
            lines.append(f"\n{title} ({len(tests)}):")
            lines.extend(f"  {t}" for t in tests)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """``python -m tests.onnx_suite [module ...]``: print the table; 1 if a failure is unexplained."""
    modules = tuple(argv or sys.argv[1:]) or MODULES
    unknown = [m for m in modules if m not in MODULES]
    if unknown:
        print(f"unknown modules {unknown}; known: {', '.join(MODULES)}", file=sys.stderr)
        return 2
    comparison = compare(modules)
    print(report(comparison, modules))
    return 1 if comparison.unexpected() else 0
