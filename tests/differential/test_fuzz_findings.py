"""What the fuzzing campaign of docs/fuzzing-parsers.md found, kept as reproducers (tests/data/fuzz/).

If a test here fails because onnx or onnxruntime changed, the finding is fixed upstream:
update the campaign section of docs/fuzzing-parsers.md.
"""

from __future__ import annotations

import pathlib
import signal
import subprocess
import sys

import pytest

from tests.support.reference import require_onnx
from wirecodec import load
from wirecodec.checker import violations

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "fuzz"


def test_an_undeclared_tensor_data_type_passes_onnx_check_but_full_check_raises_a_bare_value_error() -> None:
    """retype_data found it (nudenet, layout-cdla): ``check_model`` accepts an initializer of
    data type 255; ``full_check=True`` raises ``ValueError: Invalid tensor data type 255.``
    instead of the checker's ``ValidationError``."""
    onnx = require_onnx()
    path = DATA / "dtype-255-full-check.onnx"
    model = onnx.load(str(path))
    onnx.checker.check_model(model)  # no complaint
    with pytest.raises(ValueError, match="Invalid tensor data type 255") as info:
        onnx.checker.check_model(model, full_check=True)
    assert not isinstance(info.value, onnx.checker.ValidationError)
    # wirecodec's checker names the tensor and the rule.
    found = violations(load(path))
    assert [v.rule for v in found] == ["tensor-data-type"]


def test_onnx_shape_inference_aborts_on_a_constant_with_a_negative_dim_under_slice() -> None:
    """dims_vs_raw_data found it (silero-vad: a Constant's dims[0] 130 -> -1 before a Conv whose
    output a Slice reads). The reproducer (210 bytes) is a Constant of dims [-1] sliced on
    that axis: ``onnx.shape_inference.infer_shapes`` kills the process (SIGABRT: libstdc++'s
    assertion in ``std::clamp`` with hi < lo), where the checker refuses the model cleanly
    and onnxruntime refuses the session ("Out of bounds dimensions")."""
    require_onnx()
    path = DATA / "slice-negative-dim-abort.onnx"
    code = f"import onnx; onnx.shape_inference.infer_shapes(onnx.load({str(path)!r}))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120, check=False)
    assert done.returncode == -signal.SIGABRT, (done.returncode, done.stderr[-300:])
    assert b"std::clamp" in done.stderr
    # The compare runner reports it as a crash of the onnx parser, naming the signal.
    from wirecodec.fuzz.compare import run_parser

    outcome = run_parser("onnx", path, timeout=120)
    assert outcome.status == "crash" and f"signal {int(signal.SIGABRT)}" in outcome.detail
    # wirecodec reads it, and its checker names the negative dim.
    assert [v.rule for v in violations(load(path))] == ["tensor-dims"]
