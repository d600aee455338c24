"""The ONNX schema's codecs, compiled at build time for the interpreters that need them most
(wirecodec.protobuf.shipped reads them; ``python -m wirecodec._codecs`` makes them)."""

from __future__ import annotations

import types
from collections.abc import Iterator

from schema_dsl import Message
from wirecodec.protobuf import compile as compile_module
from wirecodec.protobuf import records, schema_cache, shipped

__all__ = ["classes", "entries", "names"]


def classes(module: types.ModuleType) -> Iterator[type[Message]]:
    """The message classes declared in ``module``, each nested one after its parent."""

    def declared_in(where: object, prefix: str) -> Iterator[type[Message]]:
        for attribute, value in vars(where).items():
            if (
                isinstance(value, type)
                and issubclass(value, Message)
                and value.__module__ == module.__name__
                and value.__qualname__ == prefix + attribute  # declared here, not an alias
            ):
                yield value
                yield from declared_in(value, value.__qualname__ + ".")

    return declared_in(module, "")


def names() -> Iterator[tuple[type[Message], str, str]]:
    """Each shipped codec as (class, kind, entry name): every ONNX message class, every
    kind the loaders use, and the validator of each lazy kind."""
    from schema_dsl import onnx  # the one place the ONNX schema is chosen

    for cls in classes(onnx):
        for base in shipped.KINDS:
            if base.endswith("+records") and not records.reaches_records(cls):
                continue  # it shares "decode+lazy" (wirecodec.protobuf.compile._shared_kind)
            for kind in (base, f"{base} validator") if "+lazy" in base else (base,):
                name = schema_cache.declared_name(cls, kind, compile_module.thresholds_of(kind))
                if name is None:
                    raise RuntimeError(f"{cls.__qualname__} is not found where it is declared")
                yield cls, kind, name


def entries() -> dict[str, tuple[types.CodeType, str, object]]:
    """Every shipped codec, generated and compiled now by this interpreter."""
    out: dict[str, tuple[types.CodeType, str, object]] = {}
    for cls, kind, name in names():
        text, constants = compile_module.generated(cls, kind)
        tokens = schema_cache.tokens(cls.__schema__, constants)
        if tokens is None:
            raise RuntimeError(f"a constant of {cls.__qualname__}'s {kind} codec cannot be shipped")
        out[name] = (compile(text, compile_module.code_filename(kind, cls), "exec"), text, tokens)
    return out
