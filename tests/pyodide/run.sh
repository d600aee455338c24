#!/usr/bin/env bash
# The Pyodide job: part of the test suite inside WebAssembly (tests/pyodide/runner.py says
# which), under node, without numpy. Everything it fetches goes to .ci/pyodide/ (ignored
# by git): the npm package pyodide at a pinned version, pytest's pure-Python wheels, and
# onnx's backend corpus written by the native venv. Exit status 1 if a test failed inside.
#
#   bash tests/run.sh --pyodide [pytest args]
set -euo pipefail
cd "$(dirname "$0")/../.."
PYODIDE_VERSION=314.0.7  # CPython 3.14.2 compiled to wasm32 (emscripten)
here=.ci/pyodide
mkdir -p "$here"
if ! command -v node >/dev/null; then
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm; } >/dev/null
fi
if [ "$(node -p "require('./$here/node_modules/pyodide/package.json').version" 2>/dev/null)" != "$PYODIDE_VERSION" ]; then
    (cd "$here" && npm install --no-save --no-audit --no-fund --silent "pyodide@$PYODIDE_VERSION")
fi
# pytest and what it imports, as wheels: pure Python, so they import from the zip files.
if [ ! -f "$here/wheels/.complete" ]; then
    .venv/bin/python -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
        -d "$here/wheels" pytest==9.2.0 pluggy==1.7.0 iniconfig==2.3.1 packaging==26.4 pygments==2.21.0
    touch "$here/wheels/.complete"
fi
PYTHONPATH=$PWD .venv/bin/python -m tests.pyodide.make_corpus "$here/corpus"
exec node tests/pyodide/run.mjs "$here/node_modules/pyodide" . "$here/corpus" "$here/wheels" "$@"
