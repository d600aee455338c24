"""Compiled code kept on disk, as Python keeps .pyc files: what the codecs and the record
functions the library generates compile to, cached under a hash of their source.

Compiling the generated source is most of what a codec costs (tens of milliseconds for
the types of a model), and every fresh process paid it again. The code objects are
kept, marshalled, in a cache folder, under a hash of everything they depend on: the
interpreter's bytecode format, the file name and the generated source itself. Changed
generators or schemas make new source and so new entries; nothing is ever stale.
Codecs of the library's own schema need none of it: they ship in the package as
generated source, which the import system compiles and caches (wirecodec.protobuf.shipped);
a records decode's record and build functions (wirecodec.protobuf.records) are generated
in every process and come from here.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import marshal
import os
import pathlib
import sys
import types
from typing import Any, Final

__all__ = ["CACHE_ENTRIES", "CACHE_ENV", "cache_folder", "code"]

CACHE_ENV: Final = "WIRECODEC_CODE_CACHE"
# Entries kept; past this, the oldest (by modification time) go. A process using every
# ONNX message type in every codec kind makes about 200; a generator or schema change
# makes new ones, and the old would otherwise stay for ever.
CACHE_ENTRIES: Final = 512
_DIGEST: Final = hashlib.sha256().digest_size


def cache_folder() -> pathlib.Path | None:
    """Where compiled codecs are kept, or None when the cache is off.

    ``$WIRECODEC_CODE_CACHE`` names the folder (empty turns the cache off); by default
    ``$XDG_CACHE_HOME/wirecodec/codecs``, else ``~/.cache/wirecodec/codecs`` when the home
    directory exists (without one, no cache). Off where the interpreter keeps no
    bytecode (``sys.implementation.cache_tag`` is None). Nothing is *written* while
    Python writes no bytecode (``PYTHONDONTWRITEBYTECODE``, ``-B``,
    ``sys.dont_write_bytecode``); entries already there are still read.
    """
    if sys.implementation.cache_tag is None:
        return None
    setting = os.environ.get(CACHE_ENV)
    if setting is not None:
        return pathlib.Path(setting) if setting else None
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if os.path.isabs(xdg):  # the XDG rule: a relative path is to be ignored
        return pathlib.Path(xdg) / "wirecodec" / "codecs"
    home = os.path.expanduser("~")
    if not os.path.isabs(home) or not os.path.isdir(home):
        return None  # no home: a cache would land in the current directory, or make a home
    return pathlib.Path(home) / ".cache" / "wirecodec" / "codecs"


def code(text: str, filename: str) -> types.CodeType:
    """The compiled ``text``: from the cache when it holds it, else compiled and stored.

    Compiled as the import system compiles a module (no ``__future__`` flag of this
    one), so a codec generated here has the code of its shipped module
    (wirecodec.protobuf.shipped).
    """
    folder = cache_folder()
    if folder is None:
        return compile(text, filename, "exec", dont_inherit=True)
    key = hashlib.sha256(
        b"\0".join([importlib.util.MAGIC_NUMBER, filename.encode(), text.encode("utf-8", "surrogatepass")])
    ).hexdigest()
    path = folder / f"{sys.implementation.cache_tag}-{key}.code"
    code = _read_code(folder, path, filename)
    if code is None:
        code = compile(text, filename, "exec", dont_inherit=True)
        _write_code(folder, path, marshal.dumps(code))
    return code


def _private(folder: pathlib.Path) -> bool:
    # Code from the cache is run: only from a folder no one else can write to.
    info = os.stat(folder)
    if info.st_mode & 0o022:
        return False
    return not hasattr(os, "getuid") or info.st_uid == os.getuid()


def _read_payload(folder: pathlib.Path, path: pathlib.Path) -> Any:
    """The object marshalled at ``path``, or None if missing, unreadable, damaged or not ours."""
    try:
        with open(path, "rb") as file:
            data = file.read()
        if not _private(folder):
            return None
        digest, payload = data[:_DIGEST], data[_DIGEST:]
        if hashlib.sha256(payload).digest() != digest:
            return None  # damaged (a torn write, a bad disk): compile it again
        return marshal.loads(payload)
    except (OSError, ValueError, EOFError, TypeError):
        return None


def _read_code(folder: pathlib.Path, path: pathlib.Path, filename: str) -> types.CodeType | None:
    """The cached code at ``path``, or None if missing, unreadable, damaged or not ours."""
    code = _read_payload(folder, path)
    if not isinstance(code, types.CodeType) or code.co_filename != filename:
        return None
    return code


def _write_code(folder: pathlib.Path, path: pathlib.Path, payload: bytes) -> None:
    """Store a compiled codec; a cache that cannot be written is only a slower start."""
    if sys.dont_write_bytecode:  # the user asked Python for no cache files: none of ours either
        return
    with contextlib.suppress(OSError):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(folder):
            return
        import tempfile  # here: it imports shutil, random, bz2, lzma; only a write needs it

        fd, temp = tempfile.mkstemp(dir=folder, prefix=".", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as file:
                file.write(hashlib.sha256(payload).digest() + payload)
            os.replace(temp, path)  # readers see the whole file or none
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        _evict(folder)


def _evict(folder: pathlib.Path) -> None:
    """Keep the folder at :data:`CACHE_ENTRIES` entries: the oldest go first."""
    entries: list[tuple[float, str]] = []
    with os.scandir(folder) as found:
        for entry in found:
            if entry.name.endswith(".code"):
                with contextlib.suppress(OSError):  # another process evicted it meanwhile
                    entries.append((entry.stat().st_mtime, entry.path))
    if len(entries) <= CACHE_ENTRIES:
        return
    entries.sort()
    for _, name in entries[: len(entries) - CACHE_ENTRIES]:
        with contextlib.suppress(OSError):
            os.unlink(name)
