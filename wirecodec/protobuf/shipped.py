"""Codecs of the library's own schema, made at build time and shipped inside the package.

Where no code cache can be written or kept (Pyodide: every process starts with an empty
in-memory file system), every process would generate and compile the codecs of the
ONNX schema again, and compiling is most of that cost. ``wirecodec/_codecs/`` holds, per
interpreter (``sys.implementation.cache_tag``: marshalled code is not portable across
Python versions), one file with the compiled code, the source and the constant tokens
(wirecodec.protobuf.schema_cache) of every codec the loaders use, made by
``python -m wirecodec._codecs``.

A file is used only when its interpreter's magic number and its *stamp* match: a hash
of the contents of every file the generated source depends on (the generators, the
constants they take from the runtime modules, and the schema layer). Anything else (an
edited generator or schema, another Python) generates as if nothing were shipped, so
shipped codecs can make a process faster, never different.
``$WIRECODEC_SHIPPED_CODECS=0`` turns them off (to see the generators at work).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
import os
import sys
import types
import zlib
from typing import Any, Final

import schema_dsl

__all__ = ["ENV", "FOLDER", "KINDS", "blob", "entry", "path", "read", "stamp"]

ENV: Final = "WIRECODEC_SHIPPED_CODECS"
_PROTOBUF: Final = os.path.dirname(os.path.abspath(__file__))
FOLDER: Final = os.path.join(os.path.dirname(_PROTOBUF), "_codecs")
_SCHEMA_DSL: Final = os.path.dirname(os.path.abspath(schema_dsl.__file__))

# The codec kinds (wirecodec.protobuf.compile) the loaders and writers use (a lazy decode
# of a class that can meet records keeps them: wirecodec.protobuf.records; the others
# decode with "decode+lazy"); the "lazy-all" kinds exist for tests and fuzzing only. A
# lazy kind's validator is shipped as the kind followed by " validator".
KINDS: Final = ("encode", "decode", "str", "decode+lazy", "decode+lazy+records", "str+lazy")

# What generated source depends on: the generators, the runtime modules whose constants
# they write into it (wirecodec/protobuf/gen imports), and the schema layer.
_STAMPED: Final = (
    (_PROTOBUF, ("gen/decode.py", "gen/encode.py", "gen/source.py", "gen/validate.py")),
    (_PROTOBUF, ("lazy.py", "memo.py", "origin.py", "records.py", "wire.py")),
)


def _stamped_files() -> list[tuple[str, str]]:
    files = [(f"protobuf/{name}", os.path.join(folder, name)) for folder, names in _STAMPED for name in names]
    with os.scandir(_SCHEMA_DSL) as found:
        names = sorted(entry.name for entry in found if entry.name.endswith(".py"))
    files += [(f"schema_dsl/{name}", os.path.join(_SCHEMA_DSL, name)) for name in names]
    return files


@functools.cache
def stamp() -> str:
    """A hash of the contents of every file the generated codecs depend on."""
    digest = hashlib.sha256()
    for name, file_path in _stamped_files():
        with open(file_path, "rb") as file:
            data = file.read()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def path(cache_tag: str | None = None) -> str | None:
    """The shipped file of the interpreter ``cache_tag`` (default: this one), or None if it has none."""
    tag = sys.implementation.cache_tag if cache_tag is None else cache_tag
    return None if tag is None else os.path.join(FOLDER, f"{tag}.bin")


def blob(entries: dict[str, tuple[types.CodeType, str, Any]]) -> bytes:
    """The shipped file of this interpreter holding ``entries`` (by :func:`entry` name)."""
    packed = {name: zlib.compress(marshal.dumps(value), 9) for name, value in sorted(entries.items())}
    return marshal.dumps({"magic": importlib.util.MAGIC_NUMBER, "stamp": stamp(), "entries": packed})


def read(file_path: str) -> dict[str, Any] | None:
    """A shipped file's contents (``magic``, ``stamp``, ``entries``), or None if unreadable."""
    try:
        with open(file_path, "rb") as file:
            found = marshal.loads(file.read())
    except (OSError, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(found, dict) and isinstance(found.get("entries"), dict)):
        return None
    return found


@functools.cache
def _usable() -> dict[str, bytes]:
    """This interpreter's shipped entries, or none when off, absent or out of date."""
    if os.environ.get(ENV, "1") == "0":
        return {}
    file_path = path()
    found = None if file_path is None else read(file_path)
    if found is None or found.get("magic") != importlib.util.MAGIC_NUMBER:
        return {}
    try:
        current = stamp()
    except OSError:  # the library's files cannot be read (imported from a zip file): generate
        return {}
    if found.get("stamp") != current:
        return {}
    entries: dict[str, bytes] = found["entries"]
    return entries


def unpack(packed: bytes) -> tuple[types.CodeType, str, Any] | None:
    """One packed entry as (code, source, constant tokens), or None if damaged."""
    try:
        value = marshal.loads(zlib.decompress(packed))
    except (zlib.error, ValueError, EOFError, TypeError):
        return None
    if not (isinstance(value, tuple) and len(value) == 3):
        return None
    code, text, tokens = value
    if not isinstance(code, types.CodeType) or not isinstance(text, str):
        return None
    return code, text, tokens


def entry(name: str, filename: str) -> tuple[types.CodeType, str, Any] | None:
    """The shipped (code, source, constant tokens) of the codec ``name``
    (wirecodec.protobuf.schema_cache.declared_name) compiled as ``filename``, or None."""
    packed = _usable().get(name)
    found = None if packed is None else unpack(packed)
    if found is None or found[0].co_filename != filename:
        return None
    return found
