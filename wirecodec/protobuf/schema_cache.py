"""Names and constants of the codecs of the schema that ships inside the library.

A codec of a class declared in a module of ``schema_dsl`` (the ONNX schema) is shipped
as generated source (wirecodec.protobuf.shipped) and found by a name made of its module,
class, kind and lazy thresholds (:func:`declared_name`); any other class (declared by a
user, in a test, at run time) has none and generates its codecs. The constants
generated source takes (a field's container class, an enum's values, defaults) are
shipped as *tokens* naming what they are (:func:`tokens`), resolved again against the
class when the codec is used (:func:`resolve`).
"""

from __future__ import annotations

import functools
import marshal
import os
import sys
from typing import Any, Final

import schema_dsl
from schema_dsl import Message
from schema_dsl.containers import container_class
from schema_dsl.layout import MessageSchema

__all__ = ["declared_name", "resolve", "tokens"]

_SCHEMA_DSL: Final = os.path.dirname(os.path.abspath(schema_dsl.__file__))


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
