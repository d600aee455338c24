"""Every verb, byte-exact, where something a Linux CPython has is missing (docs/platforms.md).

Each test runs :mod:`tests.unit.portability.scenario` in a fresh interpreter whose
environment has been made poorer before wirecodec is imported: numpy unimportable, the
POSIX-only calls removed and file maps failing, or threads that cannot start. The
scenario itself fails (exit status 1) if any verb fails or any result is not what it
must be.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]

# Run before wirecodec is imported; then the scenario, as ``python -m`` would.
_RUN_SCENARIO = """
import runpy, sys
sys.argv = ["scenario", {work!r}]
runpy.run_module("tests.unit.portability.scenario", run_name="__main__", alter_sys=True)
"""

_NO_POSIX = """
import mmap, os, stat
# Windows has none of these, WebAssembly lacks preadv: wirecodec must not need them.
for name in ("pread", "preadv", "pwrite", "posix_fadvise", "copy_file_range", "sendfile"):
    if hasattr(os, name):
        delattr(os, name)
# Some file systems cannot map files: every map of a file fails (anonymous memory still maps).
class _NoFileMaps(mmap.mmap):
    def __new__(cls, fileno, *args, **kwargs):
        if fileno != -1:
            raise OSError(19, "No such device (this file system cannot map files)")
        return super().__new__(cls, fileno, *args, **kwargs)
mmap.mmap = _NoFileMaps
# Directories cannot be synced on Windows and some file systems.
_fsync = os.fsync
def _fsync_files_only(fd):
    if stat.S_ISDIR(os.fstat(fd).st_mode):
        raise OSError(22, "Invalid argument (fsync of a directory)")
    _fsync(fd)
os.fsync = _fsync_files_only
"""

_NO_THREADS = """
import threading
def _refuse(self):
    raise RuntimeError("a thread was started (WebAssembly has none; nothing may start one unasked)")
threading.Thread.start = _refuse
"""


def _run(tmp_path: pathlib.Path, prelude: str, extra_path: list[str] | None = None) -> str:
    script = textwrap.dedent(prelude) + _RUN_SCENARIO.format(work=str(tmp_path / "work"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*(extra_path or []), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _cases() -> list[str]:
    from tests.unit.portability.scenario import CASES

    return list(CASES)


def test_without_numpy(tmp_path: pathlib.Path) -> None:
    # A numpy package first on the path that cannot be imported, as where numpy is not installed.
    stub = tmp_path / "stub" / "numpy"
    stub.mkdir(parents=True)
    (stub / "__init__.py").write_text(
        'raise ModuleNotFoundError("No module named \'numpy\'", name="numpy")\n'
    )
    check = "import sys\nimport wirecodec\nassert 'numpy' not in sys.modules\n"
    out = _run(tmp_path, check, extra_path=[str(stub.parent)])
    assert out.splitlines() == [f"ok {name}" for name in _cases()]


def test_without_posix_calls_or_file_maps(tmp_path: pathlib.Path) -> None:
    out = _run(tmp_path, _NO_POSIX)
    assert out.splitlines() == [f"ok {name}" for name in _cases()]


def test_without_threads(tmp_path: pathlib.Path) -> None:
    out = _run(tmp_path, _NO_THREADS)
    assert out.splitlines() == [f"ok {name}" for name in _cases()]


@pytest.mark.parametrize("prelude", [_NO_POSIX, _NO_THREADS], ids=["no-posix", "no-threads"])
def test_the_preludes_bite(tmp_path: pathlib.Path, prelude: str) -> None:
    """The poorer environments are real: what they remove is gone, what they refuse fails."""
    probe = prelude + textwrap.dedent("""
        import mmap, os, tempfile, threading
        assert not hasattr(os, "pread") or "pread" not in {prelude_names}
        try:
            threading.Thread(target=print).start()
            started = True
        except RuntimeError:
            started = False
        with tempfile.TemporaryFile() as f:
            f.write(b"x")
            f.flush()
            try:
                mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
                mapped = True
            except OSError:
                mapped = False
        print(hasattr(os, "pread"), hasattr(os, "preadv"), started, mapped)
        """).replace("{prelude_names}", repr("pread" if "pread" in prelude else ""))
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    native = f"{hasattr(os, 'pread')} {hasattr(os, 'preadv')}"
    expected = "False False True False" if prelude is _NO_POSIX else f"{native} False True"
    assert done.stdout.split() == expected.split()
