"""Positional reads without os.pread/os.preadv (Windows, WebAssembly) and maps of files that
cannot be mapped (wirecodec/protobuf/positional.py, payloads.read_only_map): the same bytes
as the native calls, the descriptor's position left where it was."""

from __future__ import annotations

import mmap
import os
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest

from wirecodec.protobuf import payloads, positional

DATA = bytes(range(256)) * 40  # 10,240 bytes


@pytest.fixture
def fd(tmp_path: pathlib.Path) -> Iterator[int]:
    path = tmp_path / "data.bin"
    path.write_bytes(DATA)
    descriptor = os.open(path, os.O_RDONLY)
    try:
        yield descriptor
    finally:
        os.close(descriptor)


@pytest.fixture(params=["native", "emulated"])
def platform(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "emulated":
        monkeypatch.delattr(os, "pread", raising=False)
        monkeypatch.delattr(os, "preadv", raising=False)
    return str(request.param)


@pytest.mark.parametrize(("length", "offset"), [(10, 0), (100, 5000), (1000, 9800), (50, 10_240), (0, 3)])
def test_pread_reads_at_the_offset_and_leaves_the_position(
    fd: int, platform: str, length: int, offset: int
) -> None:
    os.lseek(fd, 1234, os.SEEK_SET)
    assert positional.pread(fd, length, offset) == DATA[offset : offset + length]
    assert os.lseek(fd, 0, os.SEEK_CUR) == 1234
    assert os.read(fd, 4) == DATA[1234:1238]  # what a reader of the descriptor gets next


@pytest.mark.parametrize(("size", "offset"), [(64, 0), (1000, 9800), (16, 10_240)])
def test_preadinto_fills_what_the_file_has_and_counts_it(
    fd: int, platform: str, size: int, offset: int
) -> None:
    view = memoryview(bytearray(b"\xee" * size))
    os.lseek(fd, 77, os.SEEK_SET)
    got = positional.preadinto(fd, view, offset)
    expected = DATA[offset : offset + size]
    assert got == len(expected)
    assert bytes(view[:got]) == expected and bytes(view[got:]) == b"\xee" * (size - got)
    assert os.lseek(fd, 0, os.SEEK_CUR) == 77


class _Unmappable(mmap.mmap):
    error: type[Exception] = OSError

    def __new__(cls, fileno: int, *args: Any, **kwargs: Any) -> _Unmappable:
        if fileno != -1:
            raise cls.error(19, "No such device (this file system cannot map files)")
        return super().__new__(cls, fileno, *args, **kwargs)


@pytest.mark.parametrize("error", [OSError, ValueError])
@pytest.mark.parametrize("most", [None, 1000])
def test_a_file_that_cannot_be_mapped_is_read_into_memory(
    fd: int, monkeypatch: pytest.MonkeyPatch, error: type[Exception], most: int | None
) -> None:
    # Both errors a refused file map raises (OSError: ENODEV; ValueError: some file systems
    # and WebAssembly); ``most`` makes every positional read short, as a pipe-backed or
    # network file system may.
    monkeypatch.setattr(_Unmappable, "error", error)
    monkeypatch.setattr(mmap, "mmap", _Unmappable)  # what payloads looks up at each call
    if most is not None:
        real = positional.preadinto
        monkeypatch.setattr(positional, "preadinto", lambda f, view, off: real(f, view[:most], off))
    mapped = payloads.read_only_map(fd)
    assert isinstance(mapped, mmap.mmap) and bytes(mapped) == DATA
