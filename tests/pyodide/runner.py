"""The Python side of the Pyodide job (tests/pyodide/run.mjs): what runs inside WebAssembly.

1. numpy is absent, and wirecodec imports without it;
2. every item of onnx's backend corpus (written natively by make_corpus.py) decodes and
   encodes back to its exact bytes;
3. the portability scenario: load/save/convert between one file, external data and
   .onnxz in the WebAssembly file system, stream, check, text format, JSON, the printer
   and parser, every CLI verb that needs no onnxruntime (tests/unit/portability);
4. pytest itself (from wheels on the mounted folder) on the test modules that need
   neither numpy, onnx nor subprocesses.

Returns the exit status: 1 if anything failed.
"""

from __future__ import annotations

import pathlib
import sys
import time

# Test modules of the suite that run in WebAssembly (no numpy, onnx, protobuf, subprocess).
PYTEST_MODULES = (
    "tests/unit/protobuf/test_lazy.py",
    "tests/unit/protobuf/test_malformed.py",
    "tests/unit/protobuf/test_pending_runs.py",
    "tests/unit/protobuf/test_rarely_read.py",
    "tests/unit/protobuf/test_shipped_codecs.py",  # the shipped codecs, compiled by Pyodide
    "tests/unit/reference/test_reference_without_numpy.py",  # the evaluator names numpy (issue 43)
)

_PYTEST_INI = """[pytest]
filterwarnings = error
markers =
    slow: long-running differential or corpus tests
    quick: the inner loop's subset
"""


def _corpus(folder: pathlib.Path) -> list[str]:
    from schema_dsl import onnx as schema
    from wirecodec import decode, encode

    failed = []
    lines = (folder / "manifest.tsv").read_text().splitlines()
    for line in lines:
        message, name = line.split("\t")
        data = (folder / name).read_bytes()
        try:
            same = encode(decode(getattr(schema, message), data)) == data
        except Exception as error:  # any failure is reported by name
            same = False
            print(f"  {name}: {error!r}", file=sys.stderr)
        if not same:
            failed.append(name)
    print(f"corpus: {len(lines) - len(failed)} of {len(lines)} byte-identical")
    return failed


def _pytest(wheels: pathlib.Path, args: list[str]) -> int:
    for wheel in sorted(wheels.glob("*.whl")):
        sys.path.append(str(wheel))  # pure-Python wheels import as zip files
    import pytest

    # The project's settings less what needs plugins absent here (pytest-timeout, the
    # conftest's hypothesis and onnx fixtures) and the doctests (numpy in their examples).
    config = pathlib.Path("/tmp/pytest.ini")
    config.write_text(_PYTEST_INI)
    return int(
        pytest.main(
            [
                "-q",
                "-p",
                "no:cacheprovider",
                "--noconftest",
                "-p",
                "tests.support.decode_modes",  # the decode-mode fixture the conftest would give
                # WebAssembly has no threads: the concurrent-reader tests run natively only.
                "-k",
                "not concurrent",
                "-c",
                str(config),
                "--rootdir=/src",
                *[f"/src/{module}" for module in PYTEST_MODULES],
                *args,
            ]
        )
    )


def main(corpus: str, wheels: str, work: str, pytest_args: list[str]) -> int:
    """Run every part; 1 if any failed."""
    ok = True
    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    else:
        print("numpy is importable here: this job must prove the core without it", file=sys.stderr)
        ok = False
    started = time.perf_counter()
    import wirecodec  # noqa: F401

    took = time.perf_counter() - started
    print(f"{sys.version.split()[0]} on {sys.platform}; import wirecodec {took:.2f} s")
    if _corpus(pathlib.Path(corpus)):
        ok = False
    from tests.unit.portability.scenario import run_all

    if run_all(pathlib.Path(work)):
        ok = False
    if _pytest(pathlib.Path(wheels), pytest_args) != 0:
        ok = False
    return 0 if ok else 1
