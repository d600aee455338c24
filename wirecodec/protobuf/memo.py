"""Repeated small sub-messages: decoded once per decode, built again from a recipe.

A graph's metadata repeats itself: an exported LLM's value_infos share a handful of
types (``[batch, seq, 4096]``), its nodes a few dozen attributes (``axis=-1``,
``block_size=32``). Parsing each occurrence again costs several times what building its
objects costs (``bench/object_floor.py``), so one decode keeps a :class:`Memo`: the
payload bytes of each small sub-message it decoded (at most ``MAX_PAYLOAD`` bytes), with
the message decoded from them (the *template*). When the same bytes come again at the
same kind of field, the message is built from a recipe taken from the template instead
of parsed.

What makes a copy the message the decoder would have built:

* **Same bytes, same class.** The generated code looks the payload up by its bytes and
  passes the class its field holds; an entry of another class is not used.
* **Nothing shared that can change.** A recipe holds only immutable values (``str``,
  ``bytes``, numbers) and sub-recipes; every message and container is built anew. A
  template holding a view of the input (``raw_data``), elements still waiting to be
  decoded (``_lazy``), unknown fields, or anything else the recipe does not know is
  refused once, and its bytes are decoded every time.
* **Spans moved with the bytes.** A template's span, and its containers', locate its
  bytes in the input; a copy at an offset ``d`` bytes further gets them moved by ``d``
  (wirecodec.protobuf.origin). A template that is not canonical (its bytes are not its
  encoding) is refused, so every copy may re-emit its bytes.
* **Limits kept.** A template decoded with ``depth`` levels left is reused only where at
  least as many are left, so ``max_depth`` fails exactly where decoding would.
* **Compiled when it pays.** A recipe used ``COMPILE_AFTER`` times in one decode is
  turned into a straight-line Python function that builds its message (the codec's
  way, wirecodec.protobuf.compile); the input's values reach that function through its
  namespace, never as source text.
* **Only where it pays.** A memo sleeps (remembers nothing, costs one truth test per
  sub-message) until the decode meets a repeated field of ``WAKE_AFTER`` elements: on
  graphs the size of the models people have, templates rarely come back often enough to
  repay the look-ups.
* **One decode only.** The memo lives for one top-level decode; templates are never
  changed during it (a merge into an already decoded message empties the memo), and no
  recipe outlives it. It holds at most ``MAX_ENTRIES`` templates.
"""

from __future__ import annotations

import itertools
import types
from collections.abc import Callable
from typing import Any, Final, Literal

from schema_dsl import Message
from schema_dsl.containers import RepeatedContainer
from schema_dsl.message import BLANK_INTERNALS, stored_fields
from wirecodec.protobuf.origin import SPAN_SHIFT, marked

__all__ = [
    "COMPILE_AFTER",
    "MAX_ENTRIES",
    "MAX_PAYLOAD",
    "ONE_BYTE",
    "WAKE_AFTER",
    "Memo",
    "forget_all",
    "new_memo",
    "offer",
    "rebuild",
    "wake",
]

# Larger payloads are rarely repeated (they carry names); a miss costs a slice and a look-up.
MAX_PAYLOAD: Final = 64
# Distinct templates kept; past this, new payloads are decoded without being remembered.
MAX_ENTRIES: Final = 4096
# Uses of a recipe in one decode before it is compiled: compiling pays back after ~160
# (a 4-dim TypeProto) to ~480 (an int attribute) builds (bench/recipe_compile.py). Tests lower it.
COMPILE_AFTER = 256

# Elements of one repeated field before the memo starts remembering. In graphs of the
# size of most models people have (a few hundred nodes, the PyPI models of
# bench/models_people_have.py), few templates come back the COMPILE_AFTER times that
# make a recipe pay, and the look-ups, offers and recipes cost more than they save; on
# long repetitive graphs (an exported LLM's value_infos, the metadata graphs) it pays.
# Compared with bench/decode_walk_trees.py, trees differing only in this value: 1024
# keeps most of the gain on the 10k metadata graph and costs nothing measurable on the
# PyPI models of 1,000-1,750 nodes.
WAKE_AFTER = 1024
# The key that wakes a memo: an empty memo is false, so a sleeping one costs a truth test.
_AWAKE: Final = object()

# A template's offset d bytes further: both offsets in a span move by d.
ONE_BYTE: Final = (1 << SPAN_SHIFT) + 1

# Recipe entry kinds.
_VALUE: Final = 0  # an immutable value, stored as it is
_MESSAGE: Final = 1  # a sub-message: its recipe
_SCALARS: Final = 2  # a repeated scalar field: (container class, span, records span, values)
_MESSAGES: Final = 3  # a repeated message field: (container class, span, records span, recipes)
_IMMUTABLE: Final = (str, bytes, int, float, bool)

# A recipe: (class, span or None, ((field name, kind, what), ...), the stored fields' bits).
Recipe = tuple[type[Message], int | None, tuple[tuple[str, int, Any], ...], int]


class _RefusedError(Exception):
    """The template holds something a recipe cannot copy safely."""


class Memo(dict[Any, list[Any]]):
    """One decode's templates, by payload bytes: ``[class, how, offset, depth, uses]``.

    ``how`` is the template until the bytes are first met again, then its recipe (None:
    refused), and after ``COMPILE_AFTER`` uses the recipe's compiled builder. A dict
    subclass, so the generated code looks payloads up directly.
    """

    __slots__ = ()


def new_memo(buf: Any, how: Literal["sleeping", "awake", "off"] = "sleeping") -> Memo | None:
    """A memo for one top-level decode of ``buf``: sleeping (see :data:`WAKE_AFTER`) or
    awake from the first sub-message; None when off, or for a ``bytearray``, whose
    slices (the keys) are not hashable (wirecodec.protobuf.representation)."""
    if how == "off" or isinstance(buf, bytearray):
        return None
    made = Memo()
    if how == "awake":
        wake(made)
    return made




def wake(memo: Memo) -> None:
    """Start remembering: the decode has met a repeated field of ``WAKE_AFTER`` elements."""
    memo[_AWAKE] = [type(None), None, 0, 0, 0]  # shaped like an entry; no payload is its key


def forget_all(memo: Memo) -> None:
    """Drop every template (a merge may have changed one), staying awake if awake."""
    awake = bool(memo)
    memo.clear()
    if awake:
        wake(memo)


def offer(memo: Memo, key: Any, template: Message, offset: int, depth: int) -> None:
    """Remember ``template``, just decoded from ``key`` at ``offset`` with ``depth`` levels left."""
    if len(memo) < MAX_ENTRIES:
        memo[key] = [type(template), template, offset, depth, 0]


def rebuild(entry: list[Any], cls: type, offset: int, depth: int) -> Any:
    """A new message equal to the entry's template as if decoded at ``offset``; None when
    the entry cannot stand in here (another class, too little depth left, refused)."""
    if entry[0] is not cls or depth < entry[3]:
        return None
    how = entry[1]
    if type(how) is types.FunctionType:
        return how((offset - entry[2]) * ONE_BYTE)
    if isinstance(how, Message):
        how = entry[1] = _recipe_of(how)
    if how is None:
        return None
    entry[4] += 1
    if entry[4] >= COMPILE_AFTER:
        entry[1] = _compiled(how)
    return _build(how, (offset - entry[2]) * ONE_BYTE)


def _recipe_of(template: Message) -> Recipe | None:
    try:
        return _recipe(template)
    except _RefusedError:
        return None


def _recipe(message: Message) -> Recipe:
    fields: list[tuple[str, int, Any]] = []
    span = message._span
    if span is not None and marked(span):
        raise _RefusedError("_span")  # not canonical: a copy could not re-emit its bytes either
    if message._x is not None:
        raise _RefusedError("_x")  # unknown fields, waiting elements, handed-out children...
    for spec, value in stored_fields(message):
        name = spec.name
        if isinstance(value, Message):
            fields.append((name, _MESSAGE, _recipe(value)))
        elif isinstance(value, RepeatedContainer):
            fields.append(_container(name, value))
        elif isinstance(value, _IMMUTABLE):
            fields.append((name, _VALUE, value))
        else:
            raise _RefusedError(name)  # a view of the input, or something unforeseen
    return type(message), span, tuple(fields), message._has


def _container(name: str, container: RepeatedContainer[Any]) -> tuple[str, int, Any]:
    # Slots a decoder may leave unset (a container it did not give a span of its own).
    span, records = getattr(container, "_span", None), getattr(container, "_records", None)
    items = tuple(container)
    if all(isinstance(item, Message) for item in items) and items:
        return name, _MESSAGES, (type(container), span, records, tuple(_recipe(item) for item in items))
    if not all(isinstance(item, _IMMUTABLE) for item in items):
        raise _RefusedError(name)
    return name, _SCALARS, (type(container), span, records, items)


_new: Final = object.__new__
_osa: Final = object.__setattr__
_newlist: Final = list.__new__
_extend: Final = list.extend


def _build(recipe: Recipe, shift: int) -> Any:
    cls, span, fields, has = recipe
    o: Any = cls.__schema__.fresh()  # on the holder: plain stores, then the class (as decoders do)
    if span is not None:
        o._span = span + shift
    o._has = has
    for name, kind, what in fields:
        if kind == _VALUE:
            _osa(o, name, what)
        elif kind == _MESSAGE:
            _osa(o, name, _build(what, shift))
        else:
            container_cls, container_span, records, items = what
            c = _newlist(container_cls)
            c._span = None if container_span is None else container_span + shift
            if records is not None:
                c._records = records + shift
            _extend(c, items if kind == _SCALARS else [_build(item, shift) for item in items])
            _osa(o, name, c)
    o.__class__ = cls
    return o


# What a builder stores before the fields (the span and the bits get values of their own).
_EMPTY_INTERNALS: Final = tuple(
    (name, value) for name, value in BLANK_INTERNALS if name not in ("_span", "_has")
)


def _compiled(recipe: Recipe) -> Callable[[int], Any]:
    """The recipe as a straight-line function of the span shift (what _build does, unrolled).

    Each message is built on its class's slotted holder and then given its class, as
    decoders do (schema_dsl.message); field names are declared identifiers, checked
    when their class was declared, and so may appear in the source."""
    names = itertools.count()
    namespace: dict[str, Any] = {"_new": _new, "_newlist": _newlist, "_extend": _extend}
    namespace["_append"] = list.append
    lines = ["def build(shift):"]

    def constant(value: Any) -> str:
        name = f"_k{next(names)}"
        namespace[name] = value  # values from the input never become source text
        return name

    def shifted(span: int | None) -> str:
        return "None" if span is None else f"{constant(span)} + shift"

    def emit(recipe: Recipe, target: str) -> None:
        cls, span, fields, has = recipe
        schema = cls.__schema__
        lines.append(f"    {target} = _new({constant(schema.holder)})")
        lines.append(f"    {target}._span = {shifted(span)}")
        set_here = {name for name, _, _ in fields}
        for name, value in (*_EMPTY_INTERNALS, *schema.defaults):
            if name not in set_here:
                lines.append(f"    {target}.{name} = {constant(value)}")
        lines.append(f"    {target}._has = {constant(has)}")
        for name, kind, what in fields:
            if kind == _VALUE:
                lines.append(f"    {target}.{name} = {constant(what)}")
            elif kind == _MESSAGE:
                child = f"m{next(names)}"
                emit(what, child)
                lines.append(f"    {target}.{name} = {child}")
            else:
                container_cls, container_span, records, items = what
                c = f"c{next(names)}"
                lines.append(f"    {c} = _newlist({constant(container_cls)})")
                lines.append(f"    {c}._span = {shifted(container_span)}")
                if records is not None:
                    lines.append(f"    {c}._records = {shifted(records)}")
                if kind == _SCALARS:
                    lines.append(f"    _extend({c}, {constant(items)})")
                else:
                    for item in items:
                        element = f"m{next(names)}"
                        emit(item, element)
                        lines.append(f"    _append({c}, {element})")
                lines.append(f"    {target}.{name} = {c}")
        lines.append(f"    {target}.__class__ = {constant(cls)}")

    emit(recipe, "o")
    lines.append("    return o")
    exec(compile("\n".join(lines) + "\n", "<wirecodec recipe>", "exec"), namespace)
    built: Callable[[int], Any] = namespace["build"]
    return built
