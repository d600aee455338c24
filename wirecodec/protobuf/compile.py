"""Schema → specialised Python functions, generated once per message class and cached.

All decoders of one buffer flavour live in one namespace, so mutually recursive
messages (GraphProto → NodeProto → AttributeProto → GraphProto) call each other
directly as globals. :func:`source` shows what was generated, for debugging.
"""

from __future__ import annotations

import contextlib
import struct
import threading
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Final, Literal

from schema_dsl import Kind, Message
from wirecodec.errors import DecodeError, LimitError
from wirecodec.protobuf import lazy as _lazy
from wirecodec.protobuf import runtime as rt
from wirecodec.protobuf.gen_decode import DecoderSource
from wirecodec.protobuf.gen_encode import EncoderSource
from wirecodec.protobuf.gen_validate import ValidatorSource
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
)

__all__ = ["Flavor", "decoder", "defer_every_element", "encoder", "source"]

# "decode": the buffer's slices have .decode (bytes, bytearray, mmap);
# "str": they don't (memoryview), so strings are built with str(slice, ...).
Flavor = Literal["decode", "str"]

Decoder = Callable[[Any, memoryview, int, int, int], Message]
Encoder = Callable[[Message, list[Any]], int]

_MISSING: Final = object()


def _wrong_type(value: object, expected: type) -> None:
    raise TypeError(f"expected {expected.__qualname__}, got {type(value).__qualname__}")


def _not_a_list(value: object) -> None:
    raise TypeError(f"a repeated field needs a list, got {type(value).__name__}")


_HELPERS: Final[dict[str, Any]] = {
    "_new": object.__new__,
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
    "_to_sint": rt.to_sint,
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
    "_where": rt.where,
    # lazy repeated sub-messages
    "_SMALL": _lazy.SMALL,
    "_EAGER_FIRST": _lazy.EAGER_FIRST,
    "_CHECKED": _lazy.CHECKED,
    "_pending": _lazy.pending,
    "_vpv": _lazy.check_packed_varints,
    "_vwhere": _lazy.validator_where,
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
    "_f32b": rt.f32_bytes,
    "_f32pack_exact": rt.f32_run_exact,
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


class _Namespace:
    """One exec namespace holding generated functions for many message classes."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.globals: dict[str, Any] = dict(_HELPERS)
        self.sources: dict[type, str] = {}
        self.validator_sources: dict[type, str] = {}


_LOCK: Final = threading.RLock()
_NAMES: Final[dict[type, str]] = {}
_SPACES: Final[dict[str, _Namespace]] = {}


def _name_of(cls: type) -> str:
    name = _NAMES.get(cls)
    if name is None:
        safe = "".join(ch if ch.isalnum() else "_" for ch in cls.__qualname__)
        name = _NAMES[cls] = f"{safe}_{len(_NAMES)}"
    return name


def _reachable(root: type[Message]) -> list[type[Message]]:
    seen: dict[type[Message], None] = {}
    todo = deque([root])
    while todo:
        cls = todo.popleft()
        if cls in seen:
            continue
        seen[cls] = None
        for spec in cls.__schema__.fields:
            if spec.kind is Kind.MESSAGE:
                todo.append(spec.message_type)
    return list(seen)


def _space(kind: str) -> _Namespace:
    space = _SPACES.get(kind)
    if space is None:
        space = _SPACES[kind] = _Namespace(kind)
    return space


def _ensure(cls: type[Message], kind: str) -> dict[str, Any]:
    space = _space(kind)
    if cls in space.sources:
        return space.globals
    with _LOCK:
        for member in _reachable(cls):
            if member in space.sources:
                continue
            name = _name_of(member)
            for other in _reachable(member):
                _name_of(other)
            gen: DecoderSource | EncoderSource
            if kind == "encode":
                gen = EncoderSource(member.__schema__, _NAMES)
            else:
                flavor, _, lazy = kind.partition("+")
                gen = DecoderSource(member.__schema__, _NAMES, flavor, lazy=bool(lazy))
            text = gen.source()
            if kind.endswith("+lazy"):
                # Validators run only where small elements wait; most models need few.
                space.globals[f"_v_{name}"] = _validator_stub(space, member)
            space.globals.update(gen.constants)
            space.globals[f"_C_{name}"] = member
            space.globals[f"_D_{name}"] = member.__schema__.detached
            code = compile(text, f"<wirecodec {kind} {member.__qualname__}>", "exec")
            exec(code, space.globals)
            space.sources[member] = text
    return space.globals


def _validator_stub(space: _Namespace, cls: type[Message]) -> Callable[..., None]:
    """Stands in for ``cls``'s validator: generates it on first call, then steps aside."""

    def first_call(buf: Any, pos: int, end: int, depth: int) -> None:
        _validator(space, cls)(buf, pos, end, depth)

    return first_call


def _validator(space: _Namespace, cls: type[Message]) -> Callable[..., None]:
    name = _name_of(cls)
    with _LOCK:
        if cls not in space.validator_sources:
            text = ValidatorSource(cls.__schema__, _NAMES).source()
            code = compile(text, f"<wirecodec {space.kind} validator {cls.__qualname__}>", "exec")
            exec(code, space.globals)  # replaces the stub
            space.validator_sources[cls] = text
    fn: Callable[..., None] = space.globals[f"_v_{name}"]
    return fn


def decoder(cls: type[Message], flavor: Flavor = "decode", *, lazy: bool = False) -> Decoder:
    """The compiled decoder of ``cls`` for buffers of the given flavour.

    A ``lazy`` decoder keeps small elements of repeated sub-message fields as validated
    offsets into the buffer (wirecodec.protobuf.lazy); use it only on buffers that will not change.
    """
    fn: Decoder = _ensure(cls, f"{flavor}+lazy" if lazy else flavor)[f"_d_{_name_of(cls)}"]
    return fn


def encoder(cls: type[Message]) -> Encoder:
    """The compiled encoder of ``cls``."""
    fn: Encoder = _ensure(cls, "encode")[f"_e_{_name_of(cls)}"]
    return fn


def source(cls: type[Message], which: Literal["decode", "decode+lazy", "encode"] = "decode") -> str:
    """The generated Python source of ``cls``'s decoder or encoder, for reading.

    ``"decode+lazy"`` shows the lazy decoder followed by its validator.
    """
    _ensure(cls, which)
    space = _space(which)
    if which.endswith("+lazy"):
        _validator(space, cls)
        return space.sources[cls] + "\n\n" + space.validator_sources[cls]
    return space.sources[cls]


@contextlib.contextmanager
def defer_every_element() -> Iterator[None]:
    """For tests and fuzzing: defer every element of every repeated message field.

    Normally only small elements past the first few of a field wait
    (wirecodec.protobuf.lazy), which small test inputs rarely reach; inside this block every
    element takes the validate-now, decode-on-first-read path. Not thread-safe: it
    changes the shared lazy decoders while it lasts.
    """
    from schema_dsl.onnx import ModelProto

    saved = []
    for flavor in ("decode", "str"):
        space = _ensure(ModelProto, f"{flavor}+lazy")
        saved.append((space, space["_SMALL"], space["_EAGER_FIRST"]))
        space["_SMALL"], space["_EAGER_FIRST"] = 1 << 62, 0
    try:
        yield
    finally:
        for space, small, first in saved:
            space["_SMALL"], space["_EAGER_FIRST"] = small, first
