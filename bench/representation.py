"""What the message representation costs: instance ``__dict__`` with class defaults vs ``__slots__``.

The question behind ``schema_dsl.message`` keeping an instance dict (docs/performance.md):
with ``__slots__`` an unset field can fall back to its default only through
``__getattr__``, which also changes how every attribute of the class is looked up. This
times reads (set and unset), building an object with three stores, and the bytes per
object, for both layouts, on this interpreter.

    python bench/representation.py
"""

from __future__ import annotations

import timeit
import tracemalloc
from typing import Any

_DEFAULTS = {"a": 0, "b": ""}
_osa = object.__setattr__
_new = object.__new__


class WithDict:
    """Defaults are class attributes; set fields live in the instance (inline values on 3.11+)."""

    a = 0
    b = ""


class WithSlots:
    """Ten slots; an unset slot reads its default through ``__getattr__``."""

    __slots__ = ("a", "b", "c", "d", "e", "f", "g", "h", "i", "j")

    def __getattr__(self, name: str) -> Any:
        return _DEFAULTS[name]


def _build(cls: type) -> Any:
    obj = _new(cls)
    _osa(obj, "b", "x")
    _osa(obj, "c", 1)
    _osa(obj, "d", 2)
    return obj


def _per_call(statement: str, namespace: dict[str, Any], number: int = 1_000_000) -> float:
    return min(timeit.repeat(statement, globals=namespace, number=number, repeat=5)) / number


def main() -> int:
    print("| | instance dict | slots + __getattr__ |")
    print("|---|---|---|")
    objects = {cls: _build(cls) for cls in (WithDict, WithSlots)}
    rows = [("read of a set field", "o.b"), ("read of an unset field", "o.a")]
    for label, statement in rows:
        cells = [f"{_per_call(statement, {'o': objects[cls]}) * 1e9:.0f} ns" for cls in (WithDict, WithSlots)]
        print(f"| {label} | {cells[0]} | {cells[1]} |")
    build = [
        f"{_per_call('b(c)', {'b': _build, 'c': cls}, 200_000) * 1e9:.0f} ns" for cls in (WithDict, WithSlots)
    ]
    print(f"| new object + 3 stores | {build[0]} | {build[1]} |")
    sizes = []
    for cls in (WithDict, WithSlots):
        tracemalloc.start()
        kept = [_build(cls) for _ in range(100_000)]
        sizes.append(tracemalloc.get_traced_memory()[0] / len(kept))
        tracemalloc.stop()
    print(f"| bytes per object (3 fields set) | {sizes[0]:.0f} B | {sizes[1]:.0f} B |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
