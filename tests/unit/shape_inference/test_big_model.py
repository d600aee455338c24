"""Inference on a single-file model past 2 GiB (onnx refuses to serialize one): the weights are
never read, so the process stays small. The model is a sparse file (tests/support/big_sparse.py)."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

from tests.support.big_sparse import MIB, write_big_model

ROOT = pathlib.Path(__file__).resolve().parents[3]

_CHILD = textwrap.dedent(
    """
    import json, resource, sys
    from wirecodec.files.opener import open_model
    from wirecodec.shape_inference import infer_shapes

    opened = open_model(sys.argv[1])
    model = infer_shapes(opened.model, strict_mode=True)
    last = model.graph.output[0].type.tensor_type.shape.dim[0].dim_value
    # VmHWM is this process's own peak: ru_maxrss after fork + exec can report the parent's.
    try:
        status = open("/proc/self/status").read()
        peak_kb = int(status.split("VmHWM:")[1].split()[0])
    except OSError:
        peak_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"typed": len(model.graph.value_info), "last": last, "peak_mb": peak_kb / 1024}))
    """
)


def test_model_past_2_gib_in_bounded_memory(tmp_path: pathlib.Path) -> None:
    big = write_big_model(tmp_path / "big.onnx", count=72, each=32 * MIB)
    assert big.size > 2 << 30
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, str(big.path)], env=env, capture_output=True, text=True, check=True
    )
    result = json.loads(done.stdout)
    assert result["typed"] == 71  # h1 .. h71: every Add between the input and the output
    assert result["last"] == big.each // 4
    # Measured 35 MB (the interpreter and the codec); the weights alone would take 2304 MB.
    assert result["peak_mb"] < 200, result
