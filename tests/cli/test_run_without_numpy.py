"""``wirecodec run`` where numpy is not installed: one line naming numpy and how to get it,
exit code 2, no traceback (numpy hidden as tests/unit/portability/test_numpy_missing.py
hides it); the verb's help and the other verbs load without it."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]

_SCRIPT = """
import sys
sys.modules["numpy"] = None  # import numpy now fails, as where it is not installed
from wirecodec.cli import main, EXAMPLE
code = main([*sys.argv[1:], str(EXAMPLE)])
print("numpy loaded:", sys.modules.get("numpy") is not None, file=sys.stderr)
sys.exit(code)
"""


def _without_numpy(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _SCRIPT, *argv],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )


@pytest.mark.quick
@pytest.mark.parametrize("engine", [[], ["--engine", "reference"], ["--engine", "onnxruntime"]])
def test_run_without_numpy_says_so_in_one_line(engine: list[str]) -> None:
    done = _without_numpy("run", *engine)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.splitlines()
    assert lines == [
        "wirecodec run: running a model needs numpy, which is not installed: pip install numpy",
        "numpy loaded: False",
    ]
    assert done.stdout == ""


def test_run_without_numpy_in_json_too() -> None:
    done = _without_numpy("run", "--json")
    assert done.returncode == 2
    report = json.loads(done.stdout)
    assert report["error"] == "running a model needs numpy, which is not installed: pip install numpy"
    assert report["exit_code"] == 2
    assert "Traceback" not in done.stderr


def test_other_verbs_and_the_help_of_run_need_no_numpy() -> None:
    done = _without_numpy("inspect")
    assert done.returncode == 0, done.stderr
    helped = subprocess.run(
        [sys.executable, "-c", _SCRIPT.replace("str(EXAMPLE)]", "]"), "run", "--help"],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert helped.returncode == 0, helped.stderr
    assert "--engine" in helped.stdout
