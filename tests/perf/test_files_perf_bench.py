"""The save-floor script (bench/save_floor.py) runs end to end on a tiny model: it must not rot.

Asserts what it prints and that it leaves nothing behind, never a speed.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import wirecodec
from wirecodec.examples.build_mlp import build

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_save_floor_reports_every_step_and_cleans_up(tmp_path: pathlib.Path) -> None:
    folder = tmp_path / "input"
    folder.mkdir()
    model_path = folder / "model.onnx"
    wirecodec.save(build(), model_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "save_floor.py"), "--repeat", "2", str(model_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert f"({model_path.stat().st_size:,} bytes), 2 runs each" in lines[0]
    steps = [re.match(r"^  (.+?) +median (\d+\.\d{3}) s +\((\S+) (\S+)\)$", line) for line in lines[1:]]
    assert [m.group(1) for m in steps if m] == ["write (no fsync)", "write + fsync", "wirecodec.save"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["input"]  # every scratch folder removed
    assert sorted(p.name for p in folder.iterdir()) == ["model.onnx"]
