"""files.base.spool's contract: every byte of the stream, in order, in a file that is
flushed and rewound (a caller reads it from the start, or maps it), whatever the piece."""

from __future__ import annotations

import io
import os

import pytest

from wirecodec.files.base.spool import spool


@pytest.mark.quick
@pytest.mark.parametrize("piece", [1, 7, 1 << 20])
def test_the_spooled_file_holds_the_stream_and_starts_at_its_beginning(piece: int) -> None:
    data = bytes(range(256)) * 41
    with spool(io.BytesIO(data).read, piece) as file:
        assert file.tell() == 0
        assert os.fstat(file.fileno()).st_size == len(data)  # flushed: a map sees it all
        assert file.read() == data


def test_an_empty_stream_gives_an_empty_file() -> None:
    with spool(io.BytesIO(b"").read) as file:
        assert file.read() == b"" and file.seek(0, 2) == 0


def test_a_failing_read_closes_the_file_and_raises() -> None:
    calls = []

    def read(size: int) -> bytes:
        calls.append(size)
        if len(calls) > 2:
            raise OSError("the pipe broke")
        return b"x" * size

    with pytest.raises(OSError, match="the pipe broke"):
        spool(read, 4)
