"""The code cache writes only where it may, as a fresh process meets it (a fake home).

Each case runs a decode and an encode in a subprocess whose ``HOME`` is a temporary
folder and whose environment names no cache folder, so the default location is what
is tested: under the home, unless Python was asked to write no bytecode, the home is
missing, or it cannot be written. The folder stays bounded. (In-process behaviour of
the cache: tests/perf/test_files_perf_compile.py.)
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import tempfile

import pytest

from wirecodec.protobuf.compile import CACHE_ENTRIES, CACHE_ENV
from wirecodec.protobuf.shipped import ENV

ROOT = pathlib.Path(__file__).resolve().parents[3]
SCRIPT = """
import wirecodec
from schema_dsl.onnx import ModelProto, NodeProto, GraphProto
data = wirecodec.encode(ModelProto(graph=GraphProto(node=[NodeProto(op_type="Relu")])))
assert wirecodec.decode(ModelProto, data).graph.node[0].op_type == "Relu"
"""


def run(home: pathlib.Path, *flags: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in (CACHE_ENV, "XDG_CACHE_HOME", "PYTHONDONTWRITEBYTECODE")
    }
    # The cache is what is tested: the codecs shipped in the package would stand in for it.
    environment.update({ENV: "0"}, HOME=str(home), PYTHONPATH=str(ROOT), **env)
    return subprocess.run(
        [sys.executable, *flags, "-c", SCRIPT],
        env=environment,
        cwd=home.parent,
        capture_output=True,
        text=True,
        check=False,
    )


def files_under(folder: pathlib.Path) -> list[pathlib.Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())


def test_a_fresh_home_gets_the_cache_under_dot_cache(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = run(home)
    assert done.returncode == 0 and done.stderr == ""
    written = files_under(home)
    assert written and all(path.parent == home / ".cache" / "wirecodec" / "codecs" for path in written)


@pytest.mark.parametrize(("flags", "env"), [((), {"PYTHONDONTWRITEBYTECODE": "1"}), (("-B",), {})])
def test_no_bytecode_means_no_files(
    tmp_path: pathlib.Path, flags: tuple[str, ...], env: dict[str, str]
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    done = run(home, *flags, **env)
    assert done.returncode == 0 and done.stderr == ""
    assert list(home.rglob("*")) == []


def test_a_missing_home_is_neither_made_nor_replaced(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "gone"
    done = run(home)
    assert done.returncode == 0 and done.stderr == ""
    assert not home.exists()
    assert sorted(tmp_path.iterdir()) == []  # nothing in the current directory either ("~")


def test_a_cache_folder_that_cannot_be_made_is_silent(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".cache").write_bytes(b"a file where the folder would go")
    done = run(home)
    assert done.returncode == 0 and done.stderr == ""
    assert files_under(home) == [home / ".cache"]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root writes anywhere")
def test_a_read_only_home_is_silent(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o500)
    try:
        done = run(home)
    finally:
        home.chmod(0o700)
    assert done.returncode == 0 and done.stderr == ""
    assert files_under(home) == []


def test_the_cache_stays_bounded_and_evicts_the_oldest(tmp_path: pathlib.Path) -> None:
    home = tmp_path / "home"
    folder = home / ".cache" / "wirecodec" / "codecs"
    folder.mkdir(parents=True, mode=0o700)
    home.chmod(0o700)
    stale = [folder / f"stale-{i:04}.code" for i in range(CACHE_ENTRIES)]
    for age, path in enumerate(stale):
        path.write_bytes(b"old")
        os.utime(path, (1_000_000 + age, 1_000_000 + age))
    done = run(home)
    assert done.returncode == 0 and done.stderr == ""
    left = {path.name for path in folder.glob("*.code")}
    assert len(left) == CACHE_ENTRIES
    fresh = left - {path.name for path in stale}
    assert fresh  # this run's entries are kept...
    gone = [path for path in stale if path.name not in left]
    assert len(gone) == len(fresh)
    assert gone == stale[: len(gone)]  # ...and the oldest made room


def test_the_suite_never_writes_the_real_home() -> None:
    # tests/conftest.py points the cache at a temporary folder for the whole session.
    folder = pathlib.Path(os.environ[CACHE_ENV])
    assert pathlib.Path(tempfile.gettempdir()) in folder.parents
