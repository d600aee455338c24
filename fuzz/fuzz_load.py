"""atheris harness: load a model with external data from a scratch directory.

    python fuzz/fuzz_load.py -atheris_runs=20000 fuzz/seeds/

The input is split at the first 0xFF 0xFE pair into a model and a data file
(``weights.bin``), both written to a fresh directory; a ``secret.bin`` beside that
directory must never be read into any tensor.
"""

from __future__ import annotations

import pathlib
import tempfile

from _common import fuzz, instrumented

with instrumented():
    from _common import EXPECTED

    import wirecodec
    from wirecodec.files.base.walk import iter_tensors

SECRET = b"\x5e\xc7\x3e\x7b" * 8
ROOT = pathlib.Path(tempfile.mkdtemp(prefix="wirecodec-fuzz-load-"))
(ROOT / "secret.bin").write_bytes(SECRET)
MODEL_DIR = ROOT / "model"
MODEL_DIR.mkdir()


def test_one_input(data: bytes) -> None:
    model_bytes, _, weights = data.partition(b"\xff\xfe")
    (MODEL_DIR / "m.onnx").write_bytes(model_bytes)
    (MODEL_DIR / "weights.bin").write_bytes(weights)
    try:
        model = wirecodec.load(MODEL_DIR / "m.onnx")
        tensors = list(iter_tensors(model))
    except EXPECTED:
        return
    for tensor in tensors:
        if SECRET in bytes(tensor.raw_data):
            raise AssertionError("read a file outside the model directory")


if __name__ == "__main__":
    fuzz(test_one_input)
