"""What the decode memo keeps, and when compiling a recipe pays: ``python bench/recipe_compile.py [MODEL]``.

Decodes the model (default ``bench/.cache/meta-100000``) keeping its memo
(wirecodec.protobuf.memo) and reports how many distinct small sub-messages it held and
what became of them: still a template (met once), a recipe, a compiled builder, or
refused. Then, for the recipes of the first value's type and the first node's first
attribute, times compiling the recipe against building by it, interpreted and compiled:
the figures behind ``memo.COMPILE_AFTER``. Best of ``--repeat`` rounds, one process.
"""

from __future__ import annotations

import collections
import sys
import time
import types
from collections.abc import Callable
from typing import Any

import inputs


def _state_of(how: Any, message: type) -> str:
    """What a memo entry's second item says became of its template (wirecodec.protobuf.memo)."""
    if isinstance(how, message):
        return "met once (still a template)"
    if how is None:
        return "refused"
    if isinstance(how, types.FunctionType):
        return "compiled builder"
    return "recipe"


def best(repeat: int, times: int, step: Callable[[], Any]) -> float:
    """The fastest of ``repeat`` rounds of ``times`` calls of ``step``, per call."""
    rounds = []
    for _ in range(repeat):
        started = time.perf_counter()
        for _ in range(times):
            step()
        rounds.append((time.perf_counter() - started) / times)
    return min(rounds)


def main(argv: list[str] | None = None) -> int:
    path, repeat = inputs.model_and_repeat(__doc__, 5, argv)
    data = path.read_bytes()

    import wirecodec
    from schema_dsl import Message
    from schema_dsl.onnx import ModelProto
    from wirecodec.protobuf import codec, memo

    kept: list[memo.Memo] = []

    def keep(buf: Any) -> memo.Memo | None:
        made = memo.new_memo(buf)
        if made is not None:
            memo.wake(made)  # remembering from the start, as on a graph long enough to wake it
            kept.append(made)
        return made

    codec.new_memo = keep  # type: ignore[assignment]  # this process only: see what one decode keeps
    root = wirecodec.decode(ModelProto, data)
    states: collections.Counter[str] = collections.Counter()
    classes: dict[str, set[str]] = collections.defaultdict(set)
    for key, entry in kept[0].items():
        if not isinstance(key, bytes):
            continue  # the key that woke the memo
        state = _state_of(entry[1], Message)
        states[state] += 1
        classes[state].add(entry[0].__qualname__)
    print(f"`{path.parent.name}`: {len(kept[0]):,} distinct sub-messages of at most {memo.MAX_PAYLOAD} bytes")
    for state, count in states.most_common():
        print(f"- {state}: {count:,} ({', '.join(sorted(classes[state]))})")

    print(f"\nbest of {repeat} rounds, one process\n")
    print("| recipe | compile | build, interpreted | build, compiled | compiling pays after |")
    print("|---|---|---|---|---|")
    samples = [
        ("the first value's type", root.graph.value_info[0].type),
        ("the first node's first attribute", root.graph.node[0].attribute[0]),
    ]
    for label, template in samples:
        recipe = memo._recipe_of(template)
        assert recipe is not None, label
        compile_cost = best(repeat, 50, lambda recipe=recipe: memo._compiled(recipe))
        built = memo._compiled(recipe)
        interpreted = best(repeat, 5000, lambda recipe=recipe: memo._build(recipe, 0))
        compiled = best(repeat, 5000, lambda built=built: built(0))
        pays = f"{compile_cost / (interpreted - compiled):,.0f} builds" if interpreted > compiled else "never"
        cells = [f"{seconds * 1e6:.2f} µs" for seconds in (compile_cost, interpreted, compiled)]
        print(f"| {label} ({type(template).__name__}) | {' | '.join(cells)} | {pays} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
