"""Codecs of the library's own schema, shipped inside the package as generated Python source.

Every process would otherwise generate and compile the codecs of the ONNX schema again
(and where no code cache can be kept, as in Pyodide, every process does). So, as protobuf
ships ``_pb2.py`` modules, ``wirecodec/_codecs/`` holds one module per codec kind with the
source the generators make for every ONNX message class (wirecodec._codecs._generate,
``python -m wirecodec._codecs``), which the import system compiles and keeps as bytecode
like any module: in ``__pycache__``, or compiled into a wheel, for every interpreter.

A module is imported on the first use of its kind; a codec is taken from it by its name
(wirecodec.protobuf.schema_cache.declared_name), which includes the lazy thresholds, so
one asked for with other thresholds is generated instead. That the modules are what the
generators make now is checked by a test that regenerates them (as a ``_pb2.py`` is
checked against its ``.proto``), not at run time: a shipped module is used as it is.
``$WIRECODEC_SHIPPED_CODECS=0`` turns them off (to see the generators at work).
"""

from __future__ import annotations

import builtins
import functools
import importlib
import os
import types
from typing import Any, Final

__all__ = ["ENV", "FOLDER", "KINDS", "entry", "file_name", "module_name", "run"]

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


def module_name(kind: str) -> str:
    """The module (under ``wirecodec._codecs``) holding the codecs of ``kind``."""
    return "onnx_" + kind.replace("+", "_").replace(" ", "_")


def file_name(kind: str) -> str:
    """The file of :func:`module_name`."""
    return module_name(kind) + ".py"


@functools.cache
def _table(kind: str) -> dict[str, Any]:
    """The shipped codecs of ``kind`` by name; empty when off or not shipped."""
    if kind not in KINDS or os.environ.get(ENV, "1") == "0":
        return {}
    try:
        module = importlib.import_module(f"{_PACKAGE}.{module_name(kind)}")
    except ImportError:  # a package trimmed of its codecs still works: it generates them
        return {}
    table = getattr(module, "CODECS", None)
    return table if isinstance(table, dict) else {}


def entry(kind: str, name: str) -> tuple[types.FunctionType, Any] | None:
    """The shipped codec ``name`` of ``kind``: the function that runs its source in the
    namespace it is called with as globals (see :func:`run`) and its constant tokens
    (wirecodec.protobuf.schema_cache.tokens); or None."""
    found = _table(kind).get(name)
    if not (isinstance(found, tuple) and len(found) == 2 and isinstance(found[0], types.FunctionType)):
        return None
    return found[0], found[1]


def run(function: types.FunctionType, namespace: dict[str, Any]) -> None:
    """Run a shipped codec's source in ``namespace``, as ``exec`` of the source would."""
    namespace.setdefault("__builtins__", builtins.__dict__)  # what exec adds
    types.FunctionType(function.__code__, namespace, function.__name__)()
