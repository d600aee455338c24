"""A saving process killed at random moments never leaves a broken file under the target name."""

from __future__ import annotations

import os
import pathlib
import random
import signal
import subprocess
import sys
import textwrap
import time

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto

SAVER = textwrap.dedent(
    """
    import sys
    import numpy as np
    import wirecodec
    from schema_dsl.onnx import GraphProto, ModelProto

    path, external, durable = sys.argv[1], sys.argv[2] == "1", sys.argv[3] == "1"
    generation = 0
    while True:  # keep saving new versions until killed
        generation += 1
        weights = np.full(5_000_000, generation, dtype=np.float32)  # 20 MB
        model = ModelProto(ir_version=9, producer_version=str(generation),
                           graph=GraphProto(name="g", initializer=[wirecodec.from_array(weights, "w")]))
        wirecodec.save(model, path, external_data=external, durable=durable)
        print(generation, flush=True)
    """
)


def _check(path: pathlib.Path, external: bool) -> int:
    """The file under the target name is a complete model; returns its generation."""
    model = wirecodec.load(path, lazy=False)
    assert isinstance(model, ModelProto)
    generation = int(model.producer_version)
    weights = wirecodec.to_array(model.graph.initializer[0])
    assert weights.shape == (5_000_000,)
    assert float(weights[0]) == float(weights[-1]) == generation
    return generation


@pytest.mark.parametrize("durable", [True, False], ids=["durable", "not-durable"])
@pytest.mark.parametrize("external", [False, True], ids=["single-file", "external-data"])
def test_sigkill_at_random_points_never_corrupts_the_target(
    tmp_path: pathlib.Path, external: bool, durable: bool
) -> None:
    # Without fsync only a power cut can lose the new version; a killed process cannot.
    path = tmp_path / "model.onnx"
    rng = random.Random(20261122)
    seen = set()
    env = {**os.environ, "PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[3])}
    for _trial in range(10):
        saver = subprocess.Popen(
            [sys.executable, "-c", SAVER, str(path), "1" if external else "0", "1" if durable else "0"],
            stdout=subprocess.PIPE,
            env=env,
        )
        assert saver.stdout is not None
        saver.stdout.readline()  # at least one complete save exists
        time.sleep(rng.uniform(0.0, 0.6))
        saver.send_signal(signal.SIGKILL)
        saver.wait()
        saver.stdout.close()
        seen.add(_check(path, external))
        referenced = {
            entry.value
            for tensor in wirecodec.load(path, load_external_data=False, lazy=False).graph.initializer
            for entry in tensor.external_data
            if entry.key == "location"
        }
        leftovers = {p.name for p in tmp_path.iterdir()}
        assert {"model.onnx", *referenced} <= leftovers
        for name in leftovers - {"model.onnx", *referenced}:
            # Temporaries of an interrupted save, or the previous version's data file when
            # the kill came between the model's rename and the clean-up: never a target name.
            assert (name.startswith(".") and name.endswith(".tmp")) or name.endswith(".data"), name
    assert len(seen) > 1  # the kills really landed at different points of the saving loop
