"""The shipped schema data is what the installed onnx gives, regenerated in a fresh process.

A fresh process: onnx's schema registry is global to a process, and tests elsewhere
register schemas in onnx (to compare ``onnx_compat.defs.register_schema`` with it); onnx
keeps a domain's version range after a deregistration, so in a process that ran them the
generation would see domains onnx does not ship. The suite runs test files side by side
in a few processes (tests/run.sh), so which files share a process is not fixed.
"""

from __future__ import annotations

import functools
import json
import os
import pathlib
import subprocess
import sys

from tests.support.reference import require_onnx
from wirecodec.defs import _generate

_ROOT = pathlib.Path(__file__).resolve().parents[3]


def _child(*args: str) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_ROOT), env.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, encoding="utf-8", env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@functools.cache
def _fresh_render() -> str:
    """What the generator renders from the installed onnx, in a process no test touched."""
    code = "import sys; from wirecodec.defs import _generate as g; sys.stdout.write(g.render(g.generate()))"
    return _child("-c", code)


def test_the_shipped_data_equals_a_fresh_generation() -> None:
    onnx = require_onnx()
    shipped = json.loads(_generate.DATA_FILE.read_text("utf-8"))
    fresh = json.loads(_fresh_render())
    note = f"shipped from onnx {shipped['onnx_version']}, installed {onnx.__version__}"
    for key in ("domain_versions", "experimental_ops"):
        assert shipped[key] == fresh[key], f"{key} differ ({note}): run python -m wirecodec.defs._generate"
    ours = {(s["domain"], s["name"], s["since_version"]): s for s in shipped["schemas"]}
    theirs = {(s["domain"], s["name"], s["since_version"]): s for s in fresh["schemas"]}
    assert ours.keys() == theirs.keys(), f"{ours.keys() ^ theirs.keys()} ({note})"
    changed = [key for key in ours if ours[key] != theirs[key]]
    assert not changed, f"{len(changed)} schemas differ, e.g. {changed[:5]} ({note})"


def test_the_file_is_exactly_what_the_generator_writes() -> None:
    require_onnx()
    # Byte for byte: a hand edit to the file fails here even if it parses the same.
    assert _generate.DATA_FILE.read_text("utf-8") == _fresh_render()


def test_the_generator_writes_where_it_is_told(tmp_path: pathlib.Path) -> None:
    require_onnx()
    target = tmp_path / "schemas.json"
    _child("-m", "wirecodec.defs._generate", str(target))
    assert target.read_text("utf-8") == _generate.DATA_FILE.read_text("utf-8")
