"""Hostile zip containers, judged record by record: the named table, then the structure-aware sweep.

The named cases (``tests/support/zip_cases.py``, one row each in docs/zip-container.md) say for
each lie whether the reader refuses it (a ContainerError naming what is wrong) or may
accept it (and then every tensor holds exactly its entry's bytes). The sweep
(``tests/support/zip_mutator.py``) rewrites every field of every record of several valid
archives, plants lookalike signatures, reorders, duplicates and retargets, and holds
each result to the general rule: only wirecodec's errors escape, and whatever loads
agrees with :mod:`zipfile` about every entry a tensor reads.
"""

from __future__ import annotations

import io
import pathlib
import re
import zipfile

import pytest

import wirecodec
from tests.support import zip_mutator
from tests.support.zip_cases import CASES, Case, V, W
from wirecodec import ContainerError, WireCodecError
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.zip.container import load_zip
from wirecodec.files.zip.records import read_archive
from wirecodec.tensors import to_array

ROOT = pathlib.Path(__file__).resolve().parents[3]
BY_NAME = {case.name: case for case in CASES}


def _tensors(model: wirecodec.ModelProto) -> dict[str, bytes]:
    return {t.name: bytes(t.raw_data) for t in iter_tensors(model)}


def _loaders(data: bytes, path: pathlib.Path, sniffed: bool = True) -> list[tuple[str, object]]:
    """Every way in: load_zip from bytes (eager too) and from a path, and load, which
    recognises a zip by its first bytes (``sniffed``)."""
    path.write_bytes(data)
    loaders: list[tuple[str, object]] = [
        ("load_zip(bytes)", lambda: load_zip(data)),
        ("load_zip(bytes, lazy=False)", lambda: load_zip(data, lazy=False)),
        ("load_zip(path)", lambda: load_zip(path)),
    ]
    if sniffed:
        loaders.append(("wirecodec.load(path)", lambda: wirecodec.load(path)))
    return loaders


def test_case_names_are_unique() -> None:
    assert len(BY_NAME) == len(CASES)


def test_the_base_archive_loads_and_zipfile_agrees(tmp_path: pathlib.Path) -> None:
    from tests.support.zip_cases import base
    from tests.support.zip_forge import Forge

    data = Forge(base()).build()
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.testzip() is None
        assert archive.read("w") == W and archive.read("v") == V
    for _, load in _loaders(data, tmp_path / "base.onnxz"):
        assert _tensors(load()) == {"weight": W, "bias": V}  # type: ignore[operator]


@pytest.mark.parametrize("name", [case.name for case in CASES])
def test_hostile_archive(name: str, tmp_path: pathlib.Path) -> None:
    case: Case = BY_NAME[name]
    data = case.build()
    if not case.zip_first:  # load() does not take it for a zip: it is refused as a ModelProto
        with pytest.raises(WireCodecError):
            wirecodec.load(data)
    for how, load in _loaders(data, tmp_path / "hostile.onnxz", case.zip_first):
        if case.refused is not None:
            with pytest.raises(ContainerError, match=case.refused):
                load()  # type: ignore[operator]
            continue
        model = load()  # type: ignore[operator]
        expected = {"weight": W, "bias": V, **(case.expect or {})}
        assert _tensors(model) == expected, how
        for tensor in iter_tensors(model):
            to_array(tensor)


def test_accepted_cases_are_archives_zipfile_reads_alike() -> None:
    """A second opinion on every case we accept: zipfile lists the same entries with the same bytes."""
    for case in CASES:
        if case.refused is not None:
            continue
        data = case.build()
        if b"PK\x05\x06" in read_archive(data).comment:
            continue  # zipfile misreads these (zip_mutator.judge says why); we check the rest
        model = load_zip(data, load_external_data=False)
        refs = {t.name: {e.key: e.value for e in t.external_data} for t in iter_tensors(model)}
        loaded = _tensors(load_zip(data))
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            for tensor, ref in refs.items():
                start = int(ref.get("offset", 0))
                assert zip_mutator.zipfile_bytes(archive, ref["location"])[start:] == loaded[tensor], (
                    case.name
                )


def test_every_case_is_a_row_of_the_docs_table() -> None:
    """docs/zip-container.md's hostile-archive table: one row per case, in the same order."""
    text = (ROOT / "docs" / "zip-container.md").read_text(encoding="utf-8")
    section = text.split("### The hostile-archive table", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+?) \| (refused|accepted)", section, flags=re.MULTILINE)
    assert [
        (name, "refused" if BY_NAME[name].refused else "accepted") for name, _ in rows if name in BY_NAME
    ] == [(name, verdict) for name, verdict in rows], "a row names no case"
    assert [name for name, _ in rows] == [case.name for case in CASES]
    for name, verdict in rows:
        assert verdict == ("refused" if BY_NAME[name].refused else "accepted"), name


# -- the structure-aware sweep --------------------------------------------------------------------


def test_the_sweep_is_big_and_not_vacuous() -> None:
    counts = zip_mutator.sweep_counts()
    assert counts.total >= 2000, counts
    # Each family refuses some of its archives and lets others through: the rule is exercised.
    for family, (_accepted, refused) in counts.by_family.items():
        assert refused > 0, family
    assert sum(accepted for accepted, _ in counts.by_family.values()) > 50, counts


@pytest.mark.parametrize("family", zip_mutator.FAMILIES)
def test_sweep(family: str) -> None:
    for label, data in zip_mutator.sweep(family):
        try:
            zip_mutator.judge(data)
        except WireCodecError as exc:
            assert zip_mutator.MUST_LOAD not in label, f"{label}: refused ({exc})"
            continue
        except AssertionError as exc:
            raise AssertionError(f"{label}: {exc}") from exc


def test_fuzz_harness_runs_structured_inputs() -> None:
    """fuzz/fuzz_zip.py drives the same mutator from the fuzzer's bytes (atheris or not)."""
    import random
    import sys

    sys.path.insert(0, str(ROOT / "fuzz"))
    try:
        import fuzz_zip  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(ROOT / "fuzz"))
    rng = random.Random(5)
    for _ in range(300):
        fuzz_zip.test_one_input(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))))
