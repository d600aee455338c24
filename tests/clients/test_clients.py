"""Each client task gives the same bytes on wirecodec (through the shim) as on onnx.

Skipped, with the reason, where onnx or a task's library is not installed (they are
pinned in pyproject's ``test`` extra), or where a model a task runs on cannot be fetched.
About 2 min on 2 cores (17 tasks; the four on models from PyPI wheels 79 s of it): each task
is two fresh interpreters importing scikit-learn or the library.
"""

from __future__ import annotations

import importlib.util

import pytest

from tests.clients.run import MODELS, REQUIRES, ModelUnavailableError, run_task, tasks

pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def test_every_task_declares_what_it_needs() -> None:
    assert sorted(REQUIRES) == tasks()
    assert set(MODELS) <= set(REQUIRES)


@pytest.mark.parametrize("task", tasks())
def test_task_gives_onnxs_bytes(task: str) -> None:
    for module in REQUIRES[task]:
        if importlib.util.find_spec(module) is None:
            pytest.skip(f"{module} is not installed (test extra)")
    try:
        theirs, ours = run_task(task)
    except ModelUnavailableError as exc:
        pytest.skip(str(exc))
    assert theirs.result is not None, f"the task fails on onnx itself:\n{theirs.stderr}"
    assert ours.result is not None, f"the task fails on wirecodec:\n{ours.stderr}"
    assert ours.result == theirs.result, (
        f"{task}: {len(ours.result)} bytes differ from onnx's {len(theirs.result)}"
    )
