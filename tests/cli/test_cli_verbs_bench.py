"""``bench/cli_verbs.py``, the command line against onnx (issue 48 item 7), on small inputs:
a 100-node plain chain and a 100-node graph of ``If`` subgraphs that it builds, and the
logistic regression onnxruntime ships. Every row has both libraries' figures and ratios,
the totals and the load average are printed, and ``--json`` keeps every measurement."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

pytest.importorskip("onnx", reason="the onnx side of every row runs onnx, and the inputs are built by it")
pytest.importorskip("onnxruntime", reason="the logreg-iris model comes from the onnxruntime package")

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_every_row_has_both_libraries_and_the_totals(tmp_path: pathlib.Path) -> None:
    measurements = tmp_path / "runs.json"
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "cli_verbs.py"),
            "--cache",
            str(tmp_path / "cache"),
            "--runs",
            "1",
            "--no-bytecode",
            "--installed-only",
            "--json",
            str(measurements),
            "chain-100",
            "nested-100",
            "logreg-iris",
        ],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    out = done.stdout
    assert "load average before: " in out and "; after: " in out
    rows = [line for line in out.splitlines() if line.startswith("| ") and "×" in line]
    labels = [row.split("|")[1].strip() + " " + row.split("|")[3].strip() for row in rows]
    assert labels == [
        "chain-100 inspect",
        "chain-100 check",
        "nested-100 inspect",
        "nested-100 check",
        "logreg-iris inspect",
        "logreg-iris check",
        "**total** inspect",
        "**total** check",
        "**total** all",
    ]
    # Valid models: no process failed, so no exit-code notes under the table.
    assert "exit [" not in out
    records = json.loads(measurements.read_text())
    assert len(records) == 3 * 2 * 2
    assert {(r["library"], r["code"]) for r in records} == {("wirecodec", 0), ("onnx", 0)}
    assert all(r["wall"] > 0 and r["cpu"] > 0 and r["peak_mb"] > 10 for r in records)
