"""What the message representation costs: an instance ``__dict__`` against slotted holders.

The question behind ``schema_dsl.message`` (docs/performance.md): a message either keeps
its set fields in an instance dict, with class attributes as defaults and every store
a decoder makes going through ``object.__setattr__`` (the class checks user assignments
in its own ``__setattr__``), or its fields live in the ``__slots__`` of a private holder
class whose subclass is the declared class: a decoder fills a holder with plain stores
and then gives it the declared class, and every scalar slot holds its default, so a
scalar read is a slot read, set or not. An unset message or repeated field leaves its
slot empty, and something must give what it reads as then. Two ways were measured:

* ``__getattr__`` on the class (in use): reached only for an empty slot, but its mere
  presence stops CPython 3.11 from specializing any attribute read of the class;
* a descriptor per message or repeated field on the declared class (a ``property``
  whose getter tries the slot): scalar reads stay specialized, those fields' reads
  become a Python call.

This times reads, building an object the way a decoder does, and bytes per object, on
this interpreter, with the shape of ``TensorShapeProto.Dimension`` (three scalar fields,
one set) and of a message with ten fields, three of them set, one a message field.

    python bench/representation.py
"""

from __future__ import annotations

import timeit
import tracemalloc
from typing import Any

_osa = object.__setattr__
_new = object.__new__


def _refuse(self: Any, name: str, value: Any) -> None:
    raise TypeError("user assignments are checked")


def _dict_class(fields: tuple[str, ...]) -> type:
    """The design before: defaults as class attributes, a checking ``__setattr__``."""
    namespace: dict[str, Any] = dict.fromkeys(fields, 0)
    namespace["_span"] = None
    namespace["__setattr__"] = _refuse
    return type("WithDict", (), namespace)


class _Base:
    __slots__ = ("_has", "_span", "_x")


class _WithGetattr(_Base):
    __slots__ = ()

    def __getattr__(self, name: str) -> Any:
        return None  # (schema_dsl hands out a detached child or an empty container here)


def _property(member: Any) -> property:
    get = member.__get__

    def read(obj: Any) -> Any:
        try:
            return get(obj)
        except AttributeError:
            return None  # (as above)

    return property(read, member.__set__)


def _slot_classes(
    fields: tuple[str, ...], messages: tuple[str, ...], getattr_hook: bool
) -> tuple[type, type]:
    """A slotted holder and the checked class on top of it, with either way for empty slots."""
    holder = type("Holder", (_WithGetattr if getattr_hook else _Base,), {"__slots__": fields})
    namespace: dict[str, Any] = {"__slots__": (), "__setattr__": _refuse}
    if not getattr_hook:
        namespace |= {name: _property(holder.__dict__[name]) for name in messages}
    return holder, type("Checked", (holder,), namespace)


def _dict_builder(cls: type, values: dict[str, Any]) -> Any:
    """A straight-line builder, as the generated decoders are."""
    lines = ["def build():", "    o = new(cls)", "    osa(o, '_span', span)"]
    lines += [f"    osa(o, {name!r}, values[{name!r}])" for name in values]
    namespace = {"new": _new, "osa": _osa, "cls": cls, "span": 1 << 90, "values": values}
    exec("\n".join([*lines, "    return o"]), namespace)
    return namespace["build"]


def _slots_builder(
    classes: tuple[type, type], fields: tuple[str, ...], messages: tuple[str, ...], values: dict[str, Any]
) -> Any:
    holder, checked = classes
    lines = ["def build():", "    o = new(holder)", "    o._span = span", "    o._x = None"]
    lines += [f"    o.{name} = 0" for name in fields if name not in messages]  # the scalar defaults
    lines += [f"    o.{name} = values[{name!r}]" for name in values]
    lines += ["    o._has = 5", "    o.__class__ = checked"]
    namespace = {"new": _new, "holder": holder, "checked": checked, "span": 1 << 90, "values": values}
    exec("\n".join([*lines, "    return o"]), namespace)
    return namespace["build"]


def _per_call(statement: str, namespace: dict[str, Any], number: int = 1_000_000) -> float:
    return min(timeit.repeat(statement, globals=namespace, number=number, repeat=5)) / number


def _bytes_per_object(build: Any) -> float:
    tracemalloc.start()
    kept = [build() for _ in range(100_000)]
    size = tracemalloc.get_traced_memory()[0] / len(kept)
    tracemalloc.stop()
    return size


def main() -> int:
    tens = tuple(f"f{i}" for i in range(10))
    shapes: dict[str, tuple[tuple[str, ...], tuple[str, ...], dict[str, Any]]] = {
        "3 fields, 1 set": (("dim_value", "dim_param", "denotation"), (), {"dim_param": "batch"}),
        "10 fields, 3 set": (tens, ("f9",), {"f0": "name", "f3": 7, "f9": object()}),
    }
    columns = (
        "instance dict (before)",
        "slots + `__getattr__` (in use)",
        "slots + a property per message field",
    )
    print(f"| | shape | {' | '.join(columns)} |")
    print("|---|---|---|---|---|")
    for shape, (fields, messages, values) in shapes.items():
        makers = (
            _dict_builder(_dict_class(fields), values),
            _slots_builder(_slot_classes(fields, messages, True), fields, messages, values),
            _slots_builder(_slot_classes(fields, messages, False), fields, messages, values),
        )
        made = [m() for m in makers]
        reads = [("read of a set scalar", next(iter(values)))]
        reads.append(
            ("read of an unset scalar", next(n for n in fields if n not in values and n not in messages))
        )
        if messages:
            reads.append(("read of a set message field", messages[0]))
        for label, name in reads:
            cells = [f"{_per_call(f'o.{name}', {'o': o}) * 1e9:.0f} ns" for o in made]
            print(f"| {label} | {shape} | {' | '.join(cells)} |")
        cells = [f"{_per_call('m()', {'m': m}, 200_000) * 1e9:.0f} ns" for m in makers]
        print(f"| build as a decoder does | {shape} | {' | '.join(cells)} |")
        cells = [f"{_bytes_per_object(m):.0f} B" for m in makers]
        print(f"| bytes per object | {shape} | {' | '.join(cells)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
