"""The shipped schema data is what the installed onnx gives, regenerated in memory."""

from __future__ import annotations

import json
import pathlib

from tests.support.reference import require_onnx
from wirecodec.defs import _generate


def test_the_shipped_data_equals_a_fresh_generation() -> None:
    onnx = require_onnx()
    shipped = json.loads(_generate.DATA_FILE.read_text("utf-8"))
    fresh = _generate.generate()
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
    assert _generate.DATA_FILE.read_text("utf-8") == _generate.render(_generate.generate())


def test_the_generator_writes_where_it_is_told(tmp_path: pathlib.Path) -> None:
    require_onnx()
    target = tmp_path / "schemas.json"
    assert _generate.main([str(target)]) == 0
    assert target.read_text("utf-8") == _generate.DATA_FILE.read_text("utf-8")
