"""Mutants of the spooled full download (issue 47, item 2): wirecodec/files/remote/http_client.py
and the reads served from the spool in wirecodec/files/remote/source.py. Written from the code,
each a plausible slip, each with the tests that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_HTTP = "wirecodec/files/remote/http_client.py"
_SOURCE = "wirecodec/files/remote/source.py"
_SPOOL = "tests/unit/files/test_remote_spool.py"
_REMOTE = (
    "tests/unit/files/test_remote.py::test_a_server_ignoring_range_is_refused_unless_a_full_download_is_allowed"
)

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "spool-read-from-current-position",
        _SOURCE,
        "                self.spool.seek(start)\n",
        "",
        (_SPOOL, _REMOTE),
        "a read from the spooled download does not seek: it reads wherever the last read ended",
    ),
    Mutant(
        "spool-read-one-short",
        _SOURCE,
        "                return self.spool.read(end - start)\n",
        "                return self.spool.read(end - start - 1)\n",
        (_SPOOL, _REMOTE),
        "a read from the spooled download returns one byte less than asked",
    ),
    Mutant(
        "spool-size-from-position-zero",
        _HTTP,
        "            whole = answer.spool.seek(0, 2)\n",
        "            whole = answer.spool.seek(0)\n",
        (_SPOOL, _REMOTE),
        "the size of a spooled download is taken as 0 (seek to the start, not the end)",
    ),
    Mutant(
        "spool-first-chunk-only",
        "wirecodec/files/base/spool.py",
        "        while data := read(piece):\n            file.write(data)\n",
        "        file.write(read(piece))\n",
        (_SPOOL,),
        "only the first MiB of a full download is spooled (the rest of the model is lost)",
    ),
    Mutant(
        "spool-held-in-memory",
        _HTTP,
        "                return _Answer(status, b\"\", None, _spooled(response))\n",
        "                return _Answer(status, response.read(), None)\n",
        (_SPOOL,),
        "an allowed full download is read whole into memory again (no spool)",
    ),
)
