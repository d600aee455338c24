"""Schema → specialised Python functions, generated once per message class and kind.

Each message class gets, per *kind* of codec (an encoder, a decoder per buffer flavour,
eager or lazy), its own namespace holding its generated function and the functions of
the message types it contains, bound as globals (``_d_<field>``, ``_e_<field>``,
``_v_<field>``), so mutually recursive messages (GraphProto → NodeProto →
AttributeProto → GraphProto) call each other directly. The namespaces live in the
class's schema (``MessageSchema.codecs``) and go away with the class; generated
names depend only on the class and field names, never on compile order; the source is
registered with :mod:`linecache`, so a traceback through generated code shows its
lines. :func:`source` shows what was generated.
"""

from __future__ import annotations

import linecache
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from schema_dsl import Kind, Message
from schema_dsl.message import dropped, extras
from wirecodec.errors import DecodeError, LimitError
from wirecodec.protobuf import code_cache, lazy, notes, origin, paths, records, schema_cache, shipped
from wirecodec.protobuf import runtime as rt
from wirecodec.protobuf.code_cache import CACHE_ENTRIES, CACHE_ENV, cache_folder
from wirecodec.protobuf.gen.decode import DecoderSource, function_name
from wirecodec.protobuf.gen.encode import EncoderSource
from wirecodec.protobuf.gen.validate import ValidatorSource
from wirecodec.protobuf.representation import DEFAULT, Representation
from wirecodec.protobuf.wire import (
    encode_varint,
    pack_f64,
    pack_i32,
    pack_i64,
    pack_u32,
    pack_u64,
    read_tag,
    read_varint,
    skip_field,
    unpack_f32,
    unpack_f64,
    unpack_i32,
    unpack_i64,
    unpack_u32,
    unpack_u64,
    zigzag_decode,
)

__all__ = [
    "CACHE_ENTRIES",
    "CACHE_ENV",
    "Flavor",
    "cache_folder",
    "decoder",
    "encoder",
    "code_filename",
    "generated",
    "source",
    "thresholds_of",
]

# "decode": the buffer's slices have .decode (bytes, bytearray, mmap);
# "str": they don't (memoryview), so strings are built with str(slice, ...).
Flavor = Literal["decode", "str"]

Decoder = Callable[[Any, memoryview, int, int, int, Any], Message]
Encoder = Callable[[Message, list[Any]], int]

_MISSING: Final = object()


def _wrong_type(value: object, expected: type) -> None:
    raise TypeError(f"expected {expected.__qualname__}, got {type(value).__qualname__}")


def _not_a_list(value: object) -> None:
    raise TypeError(f"a repeated field needs a list, got {type(value).__name__}")


# What generated code may call, by the names it uses.
_HELPERS: Final[dict[str, Any]] = {
    "_new": object.__new__,
    "_dropped": dropped,
    "_extras": extras,
    "_newlist": list.__new__,
    "_lapp": list.append,
    "_lext": list.extend,
    "_rv": read_varint,
    "_read_tag": read_tag,
    "_skip": skip_field,
    "_DecodeError": DecodeError,
    "_LimitError": LimitError,
    "_trunc": rt.truncated,
    "_lenerr": rt.length_error,
    "_to_i64": rt.to_int64,
    "_to_i32": rt.to_int32,
    "_to_u32": rt.to_uint32,
    "_to_sint": zigzag_decode,
    "_uf32": unpack_f32,
    "_uf64": unpack_f64,
    "_ui32": unpack_i32,
    "_uu32": unpack_u32,
    "_ui64": unpack_i64,
    "_uu64": unpack_u64,
    "_nan32": rt.nan32,
    "_f32run": rt.unpack_f32_run,
    "_run": rt.unpack_run,
    "_rpv": rt.read_packed_varints,
    "_enum_unknown": rt.enum_unknown,
    "_where": paths.where,
    # canonical records (wirecodec.protobuf.origin)
    "_cv": rt.canonical_varint,
    "_pcv": rt.canonical_packed_varints,
    "_touch": origin.touch,
    "_reuse": origin.reusable,
    "_reuse_field": origin.reuse_field,
    "_fspan": origin.field_span,
    # lazy repeated sub-messages
    "_pending": lazy.pending,
    "_pending_run": lazy.pending_run,
    # noted fields (wirecodec.protobuf.notes)
    "_note": notes.note,
    "_vwhere": paths.validator_where,
    # encoding
    "_MISSING": _MISSING,
    "_ev": encode_varint,
    "_v_i64": rt.int64_varint,
    "_v_i32": rt.int32_varint,
    "_v_u64": rt.uint64_varint,
    "_v_u32": rt.uint32_varint,
    "_v_s64": rt.sint64_varint,
    "_v_s32": rt.sint32_varint,
    "_v_bool": rt.bool_varint,
    "_chk_int": rt.check_int,
    "_vrun": rt.varint_run,
    "_f32b": rt.f32_bytes,
    "_f32pack": rt.f32_run,
    "_pf64": pack_f64,
    "_pi32": pack_i32,
    "_pu32": pack_u32,
    "_pi64": pack_i64,
    "_pu64": pack_u64,
    "_pack": struct.pack,
    "_bview": rt.bytes_view,
    "_wrong_type": _wrong_type,
    "_not_a_list": _not_a_list,
}

# kind -> (decoder flavour or None for the encoder, lazy thresholds or None)
_KINDS: Final[dict[str, tuple[Flavor | None, lazy.Thresholds | None]]] = {
    "encode": (None, None),
    "decode": ("decode", None),
    "str": ("str", None),
    "decode+lazy": ("decode", lazy.DEFAULT),
    "str+lazy": ("str", lazy.DEFAULT),
    "decode+lazy-all": ("decode", lazy.EVERY_ELEMENT),
    "str+lazy-all": ("str", lazy.EVERY_ELEMENT),
    # ``records`` fields kept as records (wirecodec.protobuf.records): read-only bytes only
    "decode+lazy+records": ("decode", lazy.DEFAULT),
    # Variants (after "|"): the base kind's code, some of its helpers bound otherwise.
    "decode+lazy+records|records-always": ("decode", lazy.DEFAULT),
    "encode|full": (None, None),
}


def _never(*args: Any) -> None:
    return None  # "no source bytes to re-emit": the encoder walks every field


def _always(*args: Any) -> bool:
    return True  # "this graph keeps records", however short


# What a variant binds in place of its base kind's helpers (see Representation).
_VARIANTS: Final[dict[str, dict[str, Any]]] = {
    "records-always": {"_keeps_records": _always},
    "full": {"_reuse": _never, "_reuse_field": _never},
}


def _base_kind(kind: str) -> str:
    """``kind`` without its variant (a validator's suffix kept): the code it runs."""
    base, _, rest = kind.partition("|")
    return base + (" validator" if rest.endswith(" validator") else "")


_LOCK: Final = threading.RLock()


@dataclass
class _Compiled:
    """What one kind of codec generated for one class: its namespace, function and source."""

    namespace: dict[str, Any]
    function: Callable[..., Any]
    source: str | None  # None: shipped, generated again only when asked (:func:`source`)
    validator: Callable[..., bool] | None = None
    validator_source: str | None = field(default=None)


def _register(filename: str, text: str) -> None:
    # As dataclasses and attrs do: tracebacks and inspect can then show generated lines.
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)


def code_filename(what: str, cls: type[Message]) -> str:
    """The name generated code of kind ``what`` for ``cls`` is compiled under (tracebacks show it)."""
    return f"<wirecodec {what} {cls.__module__}.{cls.__qualname__}>"


def _build(cls: type[Message], kind: str) -> _Compiled:
    flavor, thresholds = _KINDS[kind]
    schema = cls.__schema__
    namespace = dict(_HELPERS)
    namespace["_C"] = cls
    namespace["_H"] = schema.holder

    base = _base_kind(kind)
    if base.endswith("+records"):
        records.install(namespace, cls)
    name = function_name("encode" if flavor is None else "decode", schema)
    text = _run_generated(cls, base, thresholds, namespace, lambda: generated(cls, base))
    _, _, variant = kind.partition("|")
    if variant:
        namespace.update((key, fn) for key, fn in _VARIANTS[variant].items() if key in namespace)
    return _Compiled(namespace, namespace[name], text)


def generated(cls: type[Message], kind: str) -> tuple[str, dict[str, object]]:
    """The source and constants the generators make for ``cls``'s codec of ``kind``
    (a lazy kind followed by ``" validator"``: its validator), compiled as :func:`code_filename`."""
    schema = cls.__schema__
    if kind.endswith(" validator"):
        validator = ValidatorSource(schema)
        return validator.source(), validator.constants
    kind = _base_kind(kind)
    flavor, thresholds = _KINDS[kind]
    keeps_records = kind.endswith("+records")
    gen = (
        EncoderSource(schema)
        if flavor is None
        else DecoderSource(schema, flavor, thresholds, records=keeps_records)
    )
    return gen.source(), gen.constants


def thresholds_of(kind: str) -> lazy.Thresholds | None:
    """The lazy thresholds of a codec kind (a validator's are its decoder's)."""
    return _KINDS[kind.removesuffix(" validator")][1]


def _run_generated(
    cls: type[Message],
    kind: str,
    thresholds: object,
    namespace: dict[str, Any],
    generate: Callable[[], tuple[str, dict[str, object]]],
) -> str | None:
    """Run ``cls``'s codec of ``kind`` in ``namespace`` (its constants added); its source,
    or None when it was not generated (:func:`source` generates it when asked).

    A class of the library's own schema runs the codec shipped in the package
    (wirecodec.protobuf.shipped), generating nothing; any other class (or one the
    package lacks) generates its source, whose compiled code the cache keys by it.
    """
    schema = cls.__schema__
    name = schema_cache.declared_name(cls, kind, thresholds)
    shipped_codec = None if name is None else shipped.entry(kind, name)
    resolved = None if shipped_codec is None else schema_cache.resolve(schema, shipped_codec[1])
    if shipped_codec is not None and resolved is not None:
        namespace.update(resolved)
        exec(shipped_codec[0], namespace)
        return None
    filename = code_filename(kind, cls)
    text, constants = generate()
    namespace.update(constants)
    _register(filename, text)
    exec(code_cache.code(text, filename), namespace)
    return text


def _link(cls: type[Message], compiled: _Compiled, kind: str) -> None:
    """Bind the functions of the message types ``cls`` contains into its namespace.

    A contained type whose codec exists already is bound directly; any other gets a
    stand-in that generates it on first call (see :func:`_codec_stub`).
    """
    flavor, thresholds = _KINDS[kind]
    prefix = "_e_" if flavor is None else "_d_"
    for spec in cls.__schema__.fields:
        if spec.kind is not Kind.MESSAGE:
            continue
        target = spec.message_type
        key = prefix + spec.name
        if target is cls:
            compiled.namespace[key] = compiled.function
        else:
            other: _Compiled | None = target.__schema__.codecs.get(kind)
            compiled.namespace[key] = (
                other.function if other is not None else _codec_stub(compiled.namespace, key, target, kind)
            )
        if thresholds is not None:
            key = f"_v_{spec.name}"
            compiled.namespace[key] = _validator_stub(compiled.namespace, key, target, kind)


def _shared_kind(cls: type[Message], kind: str) -> str:
    """The kind whose codec ``cls`` uses for ``kind``: a class with no records below it (a
    tensor inside a model) decodes the same with records on or off, so it shares the
    lazy decoder (generated, cached and shipped once)."""
    if _base_kind(kind) == "decode+lazy+records" and not records.reaches_records(cls):
        return "decode+lazy"
    return kind


def _compiled(cls: type[Message], kind: str) -> _Compiled:
    """The codec of ``kind`` for ``cls``, generated now if this is its first use.

    Only ``cls`` itself is generated here: the types it contains get theirs when a
    message of that type is first met. A model uses about half of the ONNX schema's 28
    message types, and a process pays for each codec it generates (docs/performance.md).
    """
    found: _Compiled | None = cls.__schema__.codecs.get(kind)
    if found is not None:
        return found
    shared = _shared_kind(cls, kind)
    if shared != kind:
        found = _compiled(cls, shared)
        cls.__schema__.codecs[kind] = found
        return found
    # A schema's classes share its codecs, generated for the declared class: their
    # checks of nested fields name it.
    cls = cls.__schema__.cls
    with _LOCK:
        found = cls.__schema__.codecs.get(kind)
        if found is None:
            found = _build(cls, kind)
            _link(cls, found, kind)
            # Published only once linked: readers take the cache without the lock.
            cls.__schema__.codecs[kind] = found
    return found


def _codec_stub(namespace: dict[str, Any], key: str, target: type[Message], kind: str) -> Callable[..., Any]:
    """Stands in for ``target``'s codec: generates it on first call, then steps aside.

    Generated code looks the name up in its namespace on every call, so once replaced
    the stub is no longer called from there; a reference taken earlier (a waiting
    field's decoder, wirecodec.protobuf.lazy) still works and goes straight through.
    """
    resolved: list[Callable[..., Any]] = []

    def first_call(*args: Any) -> Any:
        if not resolved:
            fn = _compiled(target, kind).function
            namespace[key] = fn
            resolved.append(fn)
        return resolved[0](*args)

    return first_call


def _validator_stub(
    namespace: dict[str, Any], key: str, target: type[Message], kind: str
) -> Callable[..., bool]:
    """Stands in for ``target``'s validator: generates it on first call, then steps aside.

    Validators run only where small elements wait, and most models need few of them.
    """

    def first_call(buf: Any, pos: int, end: int, depth: int) -> bool:
        fn = _validator(target, kind)
        namespace[key] = fn
        return fn(buf, pos, end, depth)

    return first_call


def _validator(cls: type[Message], kind: str) -> Callable[..., bool]:
    kind = _shared_kind(cls, kind)
    compiled = _compiled(cls, kind)
    with _LOCK:
        if compiled.validator is None:
            which = f"{kind} validator"
            base = _base_kind(which)
            text = _run_generated(
                cls, base, thresholds_of(which), compiled.namespace, lambda: generated(cls, base)
            )
            compiled.validator = compiled.namespace[function_name("validate", cls.__schema__)]
            compiled.validator_source = text
    return compiled.validator


def decoder(
    cls: type[Message],
    flavor: Flavor = "decode",
    *,
    lazy: bool = False,
    keep_records: bool = True,
    representation: Representation = DEFAULT,
) -> Decoder:
    """The compiled decoder of ``cls`` for buffers of the given flavour.

    A ``lazy`` decoder keeps small elements of repeated sub-message fields as validated
    offsets into the buffer (wirecodec.protobuf.lazy); use it only on buffers that will
    not change. With ``keep_records`` it keeps the elements of long graphs as records
    (wirecodec.protobuf.records). ``representation`` asks for what the thresholds would
    not choose on a small input (every element waiting, records in every graph).
    """
    kind: str = flavor
    if lazy:
        kind += "+lazy-all" if representation.every_element_waits else "+lazy"
        if kind == "decode+lazy" and keep_records and records.reaches_records(cls):
            kind += "+records|records-always" if representation.records_always else "+records"
    fn: Decoder = _compiled(cls, kind).function
    return fn


def encoder(cls: type[Message], *, reuse_source: bool = True) -> Encoder:
    """The compiled encoder of ``cls``; without ``reuse_source`` it walks every field even
    of unchanged decoded messages, where it would re-emit their source bytes."""
    fn: Encoder = _compiled(cls, "encode" if reuse_source else "encode|full").function
    return fn


def source(cls: type[Message], which: Literal["decode", "decode+lazy", "encode"] = "decode") -> str:
    """The generated Python source of ``cls``'s decoder or encoder, for reading.

    ``"decode+lazy"`` shows the lazy decoder followed by its validator.
    """
    compiled = _compiled(cls, which)
    text = compiled.source
    if text is None:
        text = compiled.source = generated(compiled.namespace["_C"], which)[0]
    if which.endswith("+lazy"):
        _validator(cls, which)
        validator_text = compiled.validator_source
        if validator_text is None:
            validator_text = generated(compiled.namespace["_C"], f"{which} validator")[0]
            compiled.validator_source = validator_text
        return text + "\n\n" + validator_text
    return text
