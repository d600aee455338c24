"""Fragments: the small sub-messages a records decode met more than once, kept once.

A graph repeats its metadata: the 100k-node bench graph holds 43 distinct sub-messages of
at most 64 bytes (value types, dims, attributes). A records decode (wirecodec.protobuf.records)
keeps the record atoms of each such payload once, as a *fragment* in the decode's
:class:`FragmentTable`, and writes two atoms where they would go: ``~fid`` (a negative
int, where a record's presence bits would be, so a builder tells the two apart) and the
sub-message's start relative to its parent's. Records stay flat tuples of atoms
(untracked by the collector, see schema_dsl.views).

Building a view from a fragment runs the class's generic builder over it until the
fragment has been built :data:`COMPILE_AFTER` times; then a straight-line builder made
for that fragment alone (every value a constant, every span an offset from the start)
takes over. Tables are read by many threads: the worst a race does is compile one
builder twice.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from schema_dsl import Kind, Message, MessageSchema
from schema_dsl.containers import container_class
from wirecodec.protobuf import origin

__all__ = ["COMPILE_AFTER", "FragmentTable", "RecordMemo"]

# Builds of one fragment before its own builder is compiled: compiling a value type's
# builder costs about what a hundred interpreted builds do.
COMPILE_AFTER = 128
# Builds before a builder compiled for the same fragment in an earlier decode is looked
# for (kept by class and payload bytes, at most MAX_COMPILED of them: a module's cache,
# as the codecs are).
LOOK_AFTER = 8
MAX_COMPILED: Final = 4096

# (the span of an empty message at the fragment's start, that start, the family link,
# the input) -> the message
Builder = Callable[[int, int, Any, memoryview], Any]


class FragmentTable:
    """One decode's fragments: ``classes[fid]``, ``atoms[fid]``, and the compiled builders."""

    __slots__ = ("atoms", "builders", "classes", "generic", "mv", "payloads", "uses")

    def __init__(self, mv: memoryview) -> None:
        self.mv = mv  # the input: fields kept as views are views of it
        self.classes: list[type[Message]] = []
        self.payloads: list[bytes] = []
        self.atoms: list[tuple[Any, ...]] = []
        self.generic: list[Callable[..., tuple[Any, int]]] = []
        self.builders: list[Builder | None] = []
        self.uses: list[int] = []

    def add(
        self,
        cls: type[Message],
        generic: Callable[..., tuple[Any, int]],
        payload: bytes,
        atoms: tuple[Any, ...],
    ) -> int:
        """Keep ``atoms``, the record of ``payload`` as a ``cls`` (its head's start 0, built
        by ``generic``); its id."""
        self.classes.append(cls)
        self.payloads.append(payload)
        self.generic.append(generic)
        self.atoms.append(atoms)
        self.builders.append(None)
        self.uses.append(0)
        return len(self.atoms) - 1

    def build(self, fid: int, start: int, src: Any, x: Any) -> Any:
        """The message fragment ``fid`` stands for at ``start`` (absolute) of ``src``."""
        built = self.builders[fid]
        if built is not None and src is not None:
            return built(src | start << _SHIFT | start, start, x, self.mv)
        uses = self.uses[fid] = self.uses[fid] + 1
        if uses in (LOOK_AFTER, COMPILE_AFTER) and src is not None:
            # By the bytes, not the atoms: those name fragments inside by this table's ids.
            key = (self.classes[fid], self.payloads[fid])
            built = _COMPILED.get(key)
            if built is None and uses == COMPILE_AFTER:
                built = compile_builder(self, fid)
                if len(_COMPILED) >= MAX_COMPILED:
                    _COMPILED.clear()
                _COMPILED[key] = built
            if built is not None:
                self.builders[fid] = built
                return built(src | start << _SHIFT | start, start, x, self.mv)
        return self.generic[fid](self.atoms[fid], 0, start, src, x, self)[0]


class RecordMemo(dict[Any, tuple[type[Message], int]]):
    """A records decode's memo: payload bytes -> (class, fragment id) in ``table``."""

    __slots__ = ("table",)

    def __init__(self, mv: memoryview) -> None:
        super().__init__()
        self.table = FragmentTable(mv)


_SHIFT: Final = origin.SPAN_SHIFT
_COMPILED: Final[dict[tuple[type[Message], bytes], Builder]] = {}


def compile_builder(table: FragmentTable, fid: int) -> Builder:
    """A function ``(s, start, x, mv) -> message`` building fragment ``fid`` as the generic
    builder does (wirecodec.protobuf.records.build_source) for an input with an id,
    unrolled over its values; ``s`` is the span of an empty message at the fragment's
    ``start``, ``mv`` the input."""
    lines: list[str] = []
    names: dict[str, Any] = {"_new": object.__new__, "_newlist": list.__new__, "_lext": list.extend}
    counter = [0]

    def constant(value: Any) -> str:
        if type(value) in (int, bool) or value is None:
            return repr(value)
        name = f"_k{len(names)}"
        names[name] = value
        return name

    def emit(schema: MessageSchema, r: tuple[Any, ...], i: int, rel: int) -> tuple[str, int]:
        """Lines building the message at ``r[i]`` whose start is ``rel`` bytes past the fragment's."""
        h = r[i]
        if h < 0:  # a fragment inside the fragment
            var, _ = emit(schema, table.atoms[~h], 0, rel + r[i + 1])
            return var, i + 2
        counter[0] += 1
        o = f"o{counter[0]}"
        a = rel + r[i + 1]
        holder, cls = constant(schema.holder), constant(schema.cls)
        lines.append(f"{o} = _new({holder})")
        # A span is the input's id | start << SHIFT | end: ``s`` plus the offsets (no carry:
        # an end fits below the shift).
        lines.append(f"{o}._span = s + {a << _SHIFT | (a + r[i + 2])}")
        lines.append(f"{o}._x = x\n{o}._has = {h}")
        i += 3
        for spec in schema.fields:
            bit = schema.bit[spec.name]
            if not spec.repeated and spec.kind is not Kind.MESSAGE:
                if h & bit and spec.view:  # a view of the input where the record says
                    lines.append(f"{o}.{spec.name} = mv[start + {a + r[i]} : start + {a + r[i] + r[i + 1]}]")
                    i += 2
                elif h & bit:
                    lines.append(f"{o}.{spec.name} = {constant(r[i])}")
                    i += 1
                else:
                    lines.append(f"{o}.{spec.name} = {constant(spec.default)}")
            elif not spec.repeated:
                if h & bit:
                    child, i = emit(spec.message_type.__schema__, r, i, a)
                    lines.append(f"{o}.{spec.name} = {child}")
            elif h & bit:
                n = r[i]
                c = f"c{counter[0]}_{spec.number}"
                lines.append(f"{c} = _newlist({constant(container_class(spec))})")
                lines.append(f"{c}._home = x")
                if spec.kind is Kind.MESSAGE and n > 1:
                    own = (a + r[i + 1]) << _SHIFT | (a + r[i + 2])
                    lines.append(f"{c}._span = {c}._records = s + {own}")
                else:
                    lines.append(f"{c}._span = {o}._span")
                if spec.kind is Kind.MESSAGE:
                    i += 3
                    elements = []
                    for _ in range(n):
                        child, i = emit(spec.message_type.__schema__, r, i, a)
                        elements.append(child)
                    lines.append(f"_lext({c}, ({', '.join(elements)},))")
                else:
                    lines.append(f"_lext({c}, {constant(tuple(r[i + 1 : i + 1 + n]))})")
                    i += 1 + n
                lines.append(f"{o}.{spec.name} = {c}")
        lines.append(f"{o}.__class__ = {cls}")
        return o, i

    root, _ = emit(table.classes[fid].__schema__, table.atoms[fid], 0, 0)
    body = "\n".join("    " + line.replace("\n", "\n    ") for line in lines)
    text = f"def build_fragment(s, start, x, mv):\n{body}\n    return {root}\n"
    exec(compile(text, f"<wirecodec fragment {table.classes[fid].__schema__.full_name}>", "exec"), names)
    built: Builder = names["build_fragment"]
    return built
