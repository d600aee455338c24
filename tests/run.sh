#!/usr/bin/env bash
# The whole test suite, from a fresh clone: a venv with the test extra (the reference
# packages onnx, protobuf, onnxruntime come from the registry), static checks, pytest.
# Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
fi
pip="-m pip install --quiet --disable-pip-version-check"
# PyTorch exports real models for the tests; the pin takes the CPU build this machine kind carries.
.venv/bin/python $pip torch==2.13.0
.venv/bin/python $pip -e '.[test]'
.venv/bin/python -m mypy --strict wirecodec schema_dsl
.venv/bin/python -m ruff check .
exec .venv/bin/python -m pytest "$@"
