"""What the message representation costs: an instance ``__dict__`` against slotted holders.

The question behind ``schema_dsl.message`` (docs/performance.md): a message either keeps
its set fields in an instance dict, with class attributes as defaults and every store
a decoder makes going through ``object.__setattr__`` (the class checks user assignments
in its own ``__setattr__``), or - the representation in use - its fields live in the
``__slots__`` of a private holder class whose subclass is the declared class: a decoder
fills a holder with plain stores and then gives it the declared class, every scalar
slot is filled with its default so an unset scalar reads as a plain slot, and a
``__getattr__`` hands out what an unset message or repeated field reads as. The price
of that ``__getattr__`` is that CPython no longer specializes attribute reads on the
class. This times reads, building an object the way a decoder does, and bytes per object,
for both layouts, on this interpreter, with the shape of ``TensorShapeProto.Dimension``
(three scalar fields, one set) and of a message with ten fields of which three are set.

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
    __slots__ = ("_span", "_has", "_x")

    def __getattr__(self, name: str) -> Any:  # unset message and repeated fields come here
        raise AttributeError(name)


def _slot_classes(fields: tuple[str, ...]) -> tuple[type, type]:
    """The design in use: a slotted holder and the checked class on top of it."""
    holder = type("Holder", (_Base,), {"__slots__": fields})
    checked = type("Checked", (holder,), {"__slots__": (), "__setattr__": _refuse})
    return holder, checked


def _build_dict(cls: type, values: dict[str, Any]) -> Any:
    o = _new(cls)
    _osa(o, "_span", 1 << 90)
    for name, value in values.items():
        _osa(o, name, value)
    return o


def _build_slots(classes: tuple[type, type], fields: tuple[str, ...], values: dict[str, Any]) -> Any:
    holder, checked = classes
    o = _new(holder)
    o._span = 1 << 90
    o._x = None
    for name in fields:
        setattr(o, name, 0)  # every scalar slot holds its default
    for name, value in values.items():
        setattr(o, name, value)
    o._has = 5
    o.__class__ = checked
    return o


def _per_call(statement: str, namespace: dict[str, Any], number: int = 1_000_000) -> float:
    return min(timeit.repeat(statement, globals=namespace, number=number, repeat=5)) / number


def _bytes_per_object(build: Any) -> float:
    tracemalloc.start()
    kept = [build() for _ in range(100_000)]
    size = tracemalloc.get_traced_memory()[0] / len(kept)
    tracemalloc.stop()
    return size


def main() -> int:
    shapes = {
        "3 fields, 1 set": (("dim_value", "dim_param", "denotation"), {"dim_param": "batch"}),
        "10 fields, 3 set": (tuple(f"f{i}" for i in range(10)), {"f0": "name", "f3": 7, "f5": 1.5}),
    }
    print("| | shape | instance dict | slotted holder |")
    print("|---|---|---|---|")
    for shape, (fields, values) in shapes.items():
        dict_cls, slot_classes = _dict_class(fields), _slot_classes(fields)
        set_name = next(iter(values))
        unset_name = next(name for name in fields if name not in values)

        def make_dict(dict_cls: type = dict_cls, values: dict[str, Any] = values) -> Any:
            return _build_dict(dict_cls, values)

        def make_slots(
            classes: tuple[type, type] = slot_classes,
            fields: tuple[str, ...] = fields,
            values: dict[str, Any] = values,
        ) -> Any:
            return _build_slots(classes, fields, values)

        made = (make_dict(), make_slots())
        for label, name in (("read of a set field", set_name), ("read of an unset field", unset_name)):
            cells = [f"{_per_call(f'o.{name}', {'o': o}) * 1e9:.0f} ns" for o in made]
            print(f"| {label} | {shape} | {cells[0]} | {cells[1]} |")
        cells = [f"{_per_call('m()', {'m': m}, 200_000) * 1e9:.0f} ns" for m in (make_dict, make_slots)]
        print(f"| build as a decoder does | {shape} | {cells[0]} | {cells[1]} |")
        cells = [f"{_bytes_per_object(m):.0f} B" for m in (make_dict, make_slots)]
        print(f"| bytes per object | {shape} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
