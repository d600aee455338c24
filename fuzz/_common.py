"""Shared setup for the fuzz harnesses: the error contract, and a driver with or without atheris.

A harness imports this module *before* its ``instrumented()`` block and the names that
pull in wirecodec (``EXPECTED``, ``TOP_LEVEL``) *inside* it, so that atheris instruments
wirecodec's modules::

    from _common import fuzz, instrumented

    with instrumented():
        from _common import EXPECTED
        import wirecodec

``fuzz(test_one_input)`` then hands over to atheris (coverage-guided) when it is
installed (``pip install -e '.[fuzz]'``), and otherwise runs a plain mutation loop over
the same command line, so every harness runs (less cleverly) without it.
"""

from __future__ import annotations

import contextlib
import hashlib
import pathlib
import random
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

try:
    import atheris
except ImportError:  # the fallback driver below needs nothing but the standard library
    atheris = None

# EXPECTED and TOP_LEVEL are provided by __getattr__ below.
__all__ = ["EXPECTED", "ROOT", "TOP_LEVEL", "atheris", "fuzz", "instrumented", "make_all_lazy"]  # noqa: F822


def __getattr__(name: str) -> Any:
    """``EXPECTED`` and ``TOP_LEVEL`` import wirecodec on first use (inside ``instrumented()``)."""
    if name == "EXPECTED":
        from wirecodec import WireCodecError

        return WireCodecError  # the documented error contract: anything else escaping is a finding
    if name == "TOP_LEVEL":
        from tests.support.reference import TOP_LEVEL

        return TOP_LEVEL
    raise AttributeError(name)


def instrumented() -> contextlib.AbstractContextManager[Any]:
    """atheris's import instrumentation (coverage feedback), or nothing without atheris."""
    return atheris.instrument_imports() if atheris is not None else contextlib.nullcontext()


def make_all_lazy() -> None:
    """Defer every element of every repeated message field for the rest of the run, so
    inputs exercise validation and deferred decoding instead of the eager path only:
    the fuzzer's process replaces the default representation a decode uses when not
    told one (wirecodec.protobuf.representation; the library never does)."""
    from wirecodec.protobuf import representation

    representation.DEFAULT = representation.Representation(every_element_waits=True)


def fuzz(test_one_input: Callable[[bytes], None], argv: list[str] | None = None) -> None:
    """Fuzz ``test_one_input`` with atheris if installed, else with :func:`mutation_loop`."""
    argv = list(sys.argv if argv is None else argv)
    if atheris is not None:
        atheris.Setup(argv, test_one_input)
        atheris.Fuzz()
    else:
        mutation_loop(test_one_input, argv)


def _options(argv: list[str]) -> tuple[dict[str, str], list[pathlib.Path]]:
    """libFuzzer-style ``-name=value`` options, and the corpus files and folders given."""
    options: dict[str, str] = {}
    paths: list[pathlib.Path] = []
    for arg in argv[1:]:
        if arg.startswith("-") and "=" in arg:
            name, _, value = arg[1:].partition("=")
            options[name] = value
        elif not arg.startswith("-"):
            paths.append(pathlib.Path(arg))
    return options, paths


def _seeds(paths: list[pathlib.Path], max_len: int) -> Iterator[bytes]:
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            yield file.read_bytes()[:max_len]


def _mutate(data: bytes, rng: random.Random, max_len: int) -> bytes:
    """One to four random edits: bit flips, byte sets, insertions, deletions, cuts, copies."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        action = rng.randrange(6) if out else 2
        i = rng.randrange(len(out)) if out else 0
        if action == 0:
            out[i] ^= 1 << rng.randrange(8)
        elif action == 1:
            out[i] = rng.choice((0x00, 0x01, 0x7F, 0x80, 0xFF, rng.randrange(256)))
        elif action == 2:
            out[i:i] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 4)))
        elif action == 3:
            del out[i : i + rng.randint(1, 8)]
        elif action == 4:
            del out[i:]
        else:
            out[i:i] = out[i : i + rng.randint(1, 16)]
    return bytes(out[:max_len])


def mutation_loop(test_one_input: Callable[[bytes], None], argv: list[str]) -> None:
    """The fallback driver: ``-atheris_runs`` mutated inputs (default 10,000) from the corpus.

    Understands ``-atheris_runs=N``, ``-max_total_time=SECONDS``, ``-seed=N`` and
    ``-max_len=N``; corpus arguments are
    files or folders (a single file with no runs option is replayed once, as atheris
    reruns a crash file). An exception other than the harness's own return is a crash:
    the input is written to ``crash-<sha1>`` in the working directory and the run exits 1.
    """
    options, paths = _options(argv)
    max_len = int(options.get("max_len", 4096))
    seeds = list(_seeds(paths, max_len)) or [b""]
    if "atheris_runs" not in options and len(paths) == 1 and paths[0].is_file():
        runs, inputs = 1, iter(seeds)
    else:
        runs = int(options.get("atheris_runs", 10_000))
        rng = random.Random(int(options.get("seed", 0)))
        # The seeds themselves first, then mutations of them.
        inputs = (
            seeds[i] if i < len(seeds) else _mutate(rng.choice(seeds), rng, max_len) for i in range(runs)
        )
    print(f"atheris is not installed: plain mutation loop, {runs} runs from {len(seeds)} seeds", flush=True)
    deadline = time.monotonic() + float(options.get("max_total_time", "inf"))
    done = 0
    for data in inputs:
        if time.monotonic() > deadline:
            break
        try:
            test_one_input(data)
        except Exception:
            traceback.print_exc()
            crash = pathlib.Path(f"crash-{hashlib.sha1(data).hexdigest()}")
            crash.write_bytes(data)
            print(f"crash after {done} runs; input written to {crash}", file=sys.stderr, flush=True)
            sys.exit(1)
        done += 1
    print(f"done: {done} runs, no crash", flush=True)
