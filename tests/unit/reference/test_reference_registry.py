"""The operator index: each operator names the one family that registers it, so building an
evaluator imports only the families its model's operators need."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


@pytest.mark.quick
def test_the_index_names_the_family_of_every_registration() -> None:
    from wirecodec.reference import _registry

    _registry.load_all()
    assert set(_registry._FAMILY_OF) == set(_registry._TABLE)
    for key, versions in _registry._TABLE.items():
        families = {impl.__module__.removeprefix("wirecodec.reference.ops.") for _, impl in versions}
        assert families == {_registry._FAMILY_OF[key]}, key


_SCRIPT = """
import sys
import numpy as np
from wirecodec import helper
from wirecodec.reference import ReferenceEvaluator
nodes = [helper.make_node("Relu", ["X"], ["H"]), helper.make_node("Conv", ["H", "W"], ["Y"])]
io = [helper.make_tensor_value_info(n, 1, None) for n in ("X", "W", "Y")]
graph = helper.make_graph(nodes, "g", io[:2], io[2:])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
feeds = {"X": np.ones((1, 1, 3, 3), np.float32), "W": np.ones((1, 1, 2, 2), np.float32)}
y = ReferenceEvaluator(model).run(None, feeds)
families = [m.rpartition(".")[2] for m in sys.modules if m.startswith("wirecodec.reference.ops.")]
print(float(y[0].sum()), sorted(families))
"""


def test_a_model_imports_only_the_families_it_uses() -> None:
    done = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["16.0", "['conv',", "'elementwise']"]
