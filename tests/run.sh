#!/usr/bin/env bash
# The whole test suite, from a fresh clone: a venv with the test extra (the reference
# packages onnx, protobuf, onnxruntime come from the registry), static checks, pytest.
# Extra arguments go to pytest.
#
#   bash tests/run.sh            everything (what CI runs)
#   bash tests/run.sh --quick    the inner loop: reuses .venv as it is (no installs once it
#                                exists), ruff, and the tests marked quick (under a minute)
#   bash tests/run.sh --pyodide  part of the suite inside WebAssembly (Pyodide under node,
#                                no numpy): tests/pyodide/run.sh; needs .venv (onnx writes
#                                the backend corpus it reads)
#   bash tests/run.sh --records  the suite with every graph keeping records (views of every
#                                element, docs/testing.md), but for the tests of the lazy
#                                decoder's own representation (tests/support/records_off.txt);
#                                needs .venv
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--pyodide" ]; then
    shift
    exec bash tests/pyodide/run.sh "$@"
fi
# The full runs spread test files over the cores (pytest-xdist; a file's tests stay in one
# process, so module fixtures and servers are not shared across processes).
parallel=(--numprocesses=auto --maxprocesses=4 --dist=loadfile)
if [ "${1:-}" = "--records" ]; then
    shift
    deselect=()
    while read -r test _; do
        deselect+=("--deselect=$test")
    done < <(grep -v -e '^#' -e '^[[:space:]]*$' tests/support/records_off.txt)
    # The switch reaches this process only (tests/conftest.py): tiers that run the library in
    # child processes (onnx's own tests, the client libraries, the memory and speed probes)
    # would run exactly as in the ordinary suite, so they are left to it.
    subprocess_tiers=(--ignore=tests/onnx_suite --ignore=tests/clients --ignore=tests/perf)
    WIRECODEC_TEST_RECORDS_FROM_START=1 exec .venv/bin/python -m pytest -q -p no:cacheprovider \
        "${parallel[@]}" "${subprocess_tiers[@]}" "${deselect[@]}" "$@"
fi
python=${PYTHON:-python3}
quick=0
if [ "${1:-}" = "--quick" ]; then
    quick=1
    shift
fi
if [ ! -x .venv/bin/python ]; then
    "$python" -m venv .venv
    quick=0  # a new venv needs its packages
fi
if [ "$quick" = 1 ]; then
    .venv/bin/python -m ruff check .
    exec .venv/bin/python -m pytest -q -p no:cacheprovider -m quick -x "$@"
fi
pip="-m pip install --quiet --disable-pip-version-check"
# PyTorch exports real models for the tests; the pin takes the CPU build this machine kind carries.
.venv/bin/python $pip torch==2.13.0
.venv/bin/python $pip -e '.[test]'
.venv/bin/python -m mypy --strict wirecodec schema_dsl
.venv/bin/python -m ruff check .
exec .venv/bin/python -m pytest "${parallel[@]}" "$@"
