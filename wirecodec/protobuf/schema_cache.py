"""Cache keys for the codecs of schemas that ship inside the library, found without generating them.

The code cache (wirecodec.protobuf.compile) keys an entry by the generated source, so
each fresh process generated every codec's source again only to look its code up:
about a third of a millisecond per message type, 3-5 ms of the first decode of a
model. For a class declared in a module of ``schema_dsl`` (the ONNX schema), all
that source depends on is the class and kind, the lazy thresholds, and the library's
own files: the generators (``wirecodec/protobuf``) and the schema layer
(``schema_dsl``). Such an entry is keyed by those, the files by name, size and
modification time (the rule CPython uses for its ``.pyc`` files), and holds the code,
its source (for tracebacks and :func:`wirecodec.protobuf.compile.source`) and the
generated constants as *tokens* naming what they are, resolved again against the
class. Any other class (declared by a user, in a test, at run time) keeps the key by
source.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import marshal
import os
import sys
from typing import Any, Final

import schema_dsl
from schema_dsl import Message
from schema_dsl.containers import container_class
from schema_dsl.layout import MessageSchema

__all__ = ["declared_name", "key", "resolve", "tokens"]

_PROTOBUF: Final = os.path.dirname(os.path.abspath(__file__))
_SCHEMA_DSL: Final = os.path.dirname(os.path.abspath(schema_dsl.__file__))


@functools.cache
def _stamp() -> bytes:
    """What the library's generators and schema layer are: each file's name, size and mtime.

    Subfolders included: the generators live in ``protobuf/gen``, and a stamp of the
    top folder alone would take a cache written by older generators as current.
    """
    digest = hashlib.sha256(importlib.util.MAGIC_NUMBER)
    for folder in (_PROTOBUF, _SCHEMA_DSL):
        files = sorted(
            (os.path.relpath(os.path.join(where, name), folder), os.stat(os.path.join(where, name)))
            for where, _, names in os.walk(folder)
            for name in names
            if name.endswith((".py", ".pyi"))
        )
        for name, info in files:
            digest.update(f"{folder}\0{name}\0{info.st_size}\0{info.st_mtime_ns}\n".encode())
    return digest.digest()


@functools.cache
def _in_the_library(module_name: str) -> bool:
    path = getattr(sys.modules.get(module_name), "__file__", None)
    return path is not None and os.path.dirname(os.path.abspath(path)) == _SCHEMA_DSL


def declared_name(cls: type[Message], kind: str, thresholds: object) -> str | None:
    """What names ``cls``'s codec of ``kind`` (module, class, kind, lazy thresholds), or
    None for a class not declared in the library."""
    if not _in_the_library(cls.__module__):
        return None
    module = sys.modules[cls.__module__]
    found: Any = module
    for part in cls.__qualname__.split("."):
        found = getattr(found, part, None)
    if found is not cls:  # made at run time, or replaced: its declaration is not the file's
        return None
    return f"{cls.__module__}\0{cls.__qualname__}\0{kind}\0{thresholds!r}"


def key(cls: type[Message], kind: str, thresholds: object) -> str | None:
    """The cache key of ``cls``'s codec of ``kind``, or None for a class not declared in the library."""
    text = declared_name(cls, kind, thresholds)
    return None if text is None else hashlib.sha256(_stamp() + text.encode()).hexdigest()


# Tokens: what each generated constant is, by its name's prefix (wirecodec.protobuf.gen.decode).
_CONTAINER: Final = "_R_"  # a repeated field's container class
_TARGET: Final = "_T_"  # a message field's class
_ENUM: Final = "_E_"  # an enum field's values, by field number
_DEFAULT: Final = "_Z_"  # a scalar field's default


def _value_of(schema: MessageSchema, name: str) -> tuple[bool, Any]:
    """The value a constant named ``name`` stands for in ``schema``; (False, None) if none."""
    prefix, rest = name[:3], name[3:]
    if prefix == _CONTAINER and rest in schema.by_name:
        return True, container_class(schema.by_name[rest])
    if prefix == _TARGET and rest in schema.by_name:
        return True, schema.by_name[rest].message_type
    if prefix == _ENUM and rest.isdigit() and int(rest) in schema.by_number:
        return True, schema.by_number[int(rest)].enum_values
    if prefix == _DEFAULT:
        defaults = _defaults_of(schema)
        if rest in defaults:
            return True, defaults[rest]
    return False, None


@functools.cache
def _defaults_of(schema: MessageSchema) -> dict[str, Any]:
    # A codec names most of its message's defaults: one dict, not a search per name.
    return dict(schema.defaults)


def tokens(schema: MessageSchema, constants: dict[str, object]) -> tuple[tuple[str, bool, Any], ...] | None:
    """``constants`` as ``(name, named, value)``: named ones are found again from the schema,
    the others kept (marshalled) as they are; None if one is neither."""
    out: list[tuple[str, bool, Any]] = []
    for name, value in constants.items():
        named, found = _value_of(schema, name)
        if named and found is value:
            out.append((name, True, None))
            continue
        try:
            marshal.dumps(value)  # type: ignore[arg-type]  # whether it can is the question
        except ValueError:
            return None
        out.append((name, False, value))
    return tuple(out)


def resolve(schema: MessageSchema, entry: Any) -> dict[str, object] | None:
    """The constants an entry's tokens stand for, or None if the entry does not fit."""
    out: dict[str, object] = {}
    try:
        for name, named, value in entry:
            if named:
                ok, value = _value_of(schema, name)
                if not ok:
                    return None
            out[name] = value
    except (TypeError, ValueError):
        return None
    return out
