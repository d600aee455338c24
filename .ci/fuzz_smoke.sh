#!/usr/bin/env bash
# CI: a short run of every fuzz harness; fails on the first crash.
#
#   bash .ci/fuzz_smoke.sh            # after tests/run.sh (which made .venv with the test extra)
#   RUNS=20000 bash .ci/fuzz_smoke.sh # longer
#
# Installs the fuzz extra (atheris) into .venv; where atheris cannot be installed the
# harnesses run under their plain mutation loop instead (fuzz/_common.py), so the smoke
# still runs. Each harness gets RUNS inputs (default 2000) or MAX_SECONDS (default 30),
# whichever ends first, from a small sample of the seed corpus. A crashing input is
# copied to fuzz/findings/ and the script exits non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
python=${FUZZ_PYTHON:-$root/.venv/bin/python}
runs=${RUNS:-2000}
max_seconds=${MAX_SECONDS:-30}
if [ -z "${FUZZ_PYTHON:-}" ]; then
    "$python" -m pip install --quiet --disable-pip-version-check -e '.[fuzz]' \
        || echo "fuzz smoke: could not install atheris; using the plain mutation loop" >&2
fi
export PYTHONPATH="$root${PYTHONPATH:+:$PYTHONPATH}"

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
"$python" fuzz/make_seeds.py "$scratch/seeds" --sample 200
"$python" fuzz/fuzz_zip.py --make-seeds "$scratch/zip_seeds"

status=0
run() {  # run NAME [ENV=VALUE ...] -- HARNESS SEEDS
    local name=$1; shift
    local env=()
    while [ "$1" != "--" ]; do env+=("$1"); shift; done
    shift
    local work="$scratch/work-$name"
    mkdir -p "$work"
    echo "== $name: $runs runs or ${max_seconds} s"
    if (cd "$work" && env "${env[@]}" "$python" "$root/fuzz/$1" \
            -atheris_runs="$runs" -max_total_time="$max_seconds" -max_len=16384 -seed=1 \
            "$2" > "$work/log" 2>&1); then
        tail -n 2 "$work/log"
    else
        status=1
        tail -n 40 "$work/log"
        mkdir -p "$root/fuzz/findings"
        for crash in "$work"/crash-* "$work"/timeout-* "$work"/oom-*; do
            [ -e "$crash" ] && cp "$crash" "$root/fuzz/findings/$name-$(basename "$crash")"
        done
        echo "fuzz smoke: $name FAILED; inputs in fuzz/findings/" >&2
    fi
}
run decode -- fuzz_decode.py "$scratch/seeds"
run decode-all-lazy WIRECODEC_FUZZ_ALL_LAZY=1 -- fuzz_decode.py "$scratch/seeds"
run to_array -- fuzz_to_array.py "$scratch/seeds"
run load -- fuzz_load.py "$scratch/seeds"
run zip -- fuzz_zip.py "$scratch/zip_seeds"
run zip-bytes WIRECODEC_FUZZ_ZIP_BYTES=1 -- fuzz_zip.py "$scratch/zip_seeds"
exit $status
