"""Codecs of the library's own schema, shipped inside the package as generated Python source.

Every process would otherwise generate and compile the codecs of the ONNX schema again
(and where no code cache can be kept, as in Pyodide, every process does). So, as protobuf
ships ``_pb2.py`` modules, ``wirecodec/_codecs/`` holds a package per codec kind with, per
ONNX message class, a module whose text is the source the generators make for it
(wirecodec._codecs._generate, ``python -m wirecodec._codecs``). The import system compiles
each and keeps its bytecode like any module's: in ``__pycache__``, or compiled into a
wheel, for every interpreter.

A kind's table is imported on the first use of the kind, a codec's code on the first use
of the codec (a model uses about half of the classes); a codec is found by its name
(wirecodec.protobuf.schema_cache.declared_name), which includes the lazy thresholds, so
one asked for with other thresholds is generated instead. That the modules are what the
generators make now is checked by a test that regenerates them (as a ``_pb2.py`` is
checked against its ``.proto``), not at run time: a shipped module is used as it is.
``$WIRECODEC_SHIPPED_CODECS=0`` turns them off (to see the generators at work).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import os
import types
from typing import Any, Final

__all__ = ["ENV", "FOLDER", "KINDS", "entry", "package_name"]

ENV: Final = "WIRECODEC_SHIPPED_CODECS"
FOLDER: Final = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_codecs")
_PACKAGE: Final = "wirecodec._codecs"

# The codec kinds (wirecodec.protobuf.compile) the loaders and writers use (a lazy decode
# of a class that can meet records keeps them: wirecodec.protobuf.records; the others
# decode with "decode+lazy"), each lazy one followed by its validators; the "lazy-all"
# kinds exist for tests and fuzzing only.
KINDS: Final = (
    "encode",
    "decode",
    "str",
    "decode+lazy",
    "decode+lazy validator",
    "decode+lazy+records",
    "decode+lazy+records validator",
    "str+lazy",
    "str+lazy validator",
)


def package_name(kind: str) -> str:
    """The package (under ``wirecodec._codecs``) holding the codecs of ``kind``."""
    return kind.replace("+", "_").replace(" ", "_")


@functools.cache
def _table(kind: str) -> dict[str, Any]:
    """The shipped codecs of ``kind`` by name; empty when off or not shipped."""
    if kind not in KINDS or os.environ.get(ENV, "1") == "0":
        return {}
    try:
        package = importlib.import_module(f"{_PACKAGE}.{package_name(kind)}")
    except ImportError:  # a package trimmed of its codecs still works: it generates them
        return {}
    table = getattr(package, "CODECS", None)
    return table if isinstance(table, dict) else {}


def entry(kind: str, name: str) -> tuple[types.CodeType, Any] | None:
    """The shipped codec ``name`` of ``kind`` as (the code of its module, its constant
    tokens: wirecodec.protobuf.schema_cache.tokens), or None.

    The code comes from the import system's loader, which compiles the module's source
    or reads its bytecode (``__pycache__``, a wheel's ``.pyc``) as for any module; the
    module itself is not imported: its code runs in the codec's namespace.
    """
    found = _table(kind).get(name)
    if not (isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], str)):
        return None
    try:
        spec = importlib.util.find_spec(f"{_PACKAGE}.{package_name(kind)}.{found[0]}")
        get_code = getattr(None if spec is None else spec.loader, "get_code", None)
        code = None if spec is None or get_code is None else get_code(spec.name)
    except (ImportError, OSError, SyntaxError, ValueError, EOFError):
        return None
    return (code, found[1]) if isinstance(code, types.CodeType) else None
