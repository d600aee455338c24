"""Field paths, the one syntax every tool prints and accepts: ``graph.node[3].attribute[0].t``.

A path is a chain of field names from a root message, each repeated field followed by
an index in brackets (negative indices count from the end, as in Python). The paths
:func:`wirecodec.protobuf.walk.walk` yields, the checker's violations, ``inspect
--json`` and decode errors print are all of this form; a decode error's path starts
with the root's class name (``ModelProto.graph.node[12]``), which :func:`resolve`
accepts too. A field the schema does not know is the step ``#<number>`` (``graph.#99``):
its raw records (tag and value), as decode errors and stream events print them.

>>> from wirecodec.examples.build_mlp import build
>>> resolve(build(), "graph.initializer[0].name")
'w1'
>>> resolve(build(), "graph.nodes")
Traceback (most recent call last):
...
wirecodec.errors.PathError: 'graph.nodes': GraphProto has no field 'nodes' (did you mean 'node'?)
"""

from __future__ import annotations

import difflib
import re
from typing import Any, Final, NamedTuple

from schema_dsl import Message
from wirecodec.errors import PathError
from wirecodec.protobuf.wire import read_tag

__all__ = ["Step", "element", "format_path", "join", "parse", "resolve"]

_STEP: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|#[1-9][0-9]*)(?:\[(-?\d+)\])?")


class Step(NamedTuple):
    """One step of a path: a field name and, for a repeated field, an index."""

    name: str
    at: int | None


def parse(path: str) -> list[Step]:
    """The steps of ``path`` (empty for ``""``, the root); PathError naming the bad step."""
    steps: list[Step] = []
    if not path:
        return steps
    for text in path.split("."):
        match = _STEP.fullmatch(text)
        if match is None:
            raise PathError(f"{path!r}: {text!r} is not a field name (or #number) with an optional [index]")
        index = match.group(2)
        steps.append(Step(match.group(1), None if index is None else int(index)))
    return steps


def format_path(steps: list[Step]) -> str:
    """The text of ``steps``: the inverse of :func:`parse`."""
    return ".".join(_text(step.name, step.at) for step in steps)


def join(parent: str, name: str, at: int | None = None) -> str:
    """The path of field ``name`` (element ``at`` of it, if given) under the path ``parent``
    (``""`` for the root): ``format_path(parse(parent) + [Step(name, at)])`` without parsing
    ``parent`` again, for the tools that build a path one step at a time.

    >>> join("graph.node[3]", "attribute", 0)
    'graph.node[3].attribute[0]'
    >>> join(join("graph.node[3].attribute[0]", "g"), "node", 1)
    'graph.node[3].attribute[0].g.node[1]'
    """
    step = name if at is None else f"{name}[{at}]"  # _text, inlined: the checker calls this per node
    return f"{parent}.{step}" if parent else step


def element(path: str, at: int) -> str:
    """The path of element ``at`` of the repeated field at ``path``.

    >>> element("graph.node", 3)
    'graph.node[3]'
    """
    return f"{path}[{at}]"


def _text(name: str, at: int | None) -> str:
    return name if at is None else f"{name}[{at}]"


def resolve(root: Message, path: str) -> Any:
    """The value at ``path`` under ``root``: a message, a list, or a scalar.

    A leading step naming ``root``'s own class (as decode errors print) is skipped.
    Every failure is a :class:`~wirecodec.errors.PathError` saying which step failed
    and why.
    """
    steps = parse(path)
    if steps and steps[0].at is None and steps[0].name == type(root).__schema__.cls.__name__:
        steps = steps[1:]
    value: Any = root
    walked = ""
    for step in steps:
        if not isinstance(value, Message):
            where = walked or "the root"
            raise PathError(f"{path!r}: {where} is not a message, so it has no field {step.name!r}")
        schema = type(value).__schema__
        if step.name.startswith("#"):
            value, walked = _unknown(value, step, walked, path)
            continue
        spec = schema.by_name.get(step.name)
        if spec is None:
            near = difflib.get_close_matches(step.name, list(schema.by_name), n=1)
            hint = f" (did you mean {near[0]!r}?)" if near else ""
            raise PathError(f"{path!r}: {schema.cls.__name__} has no field {step.name!r}{hint}")
        walked = f"{walked}.{step.name}" if walked else step.name
        if spec.repeated:
            items = getattr(value, step.name)
            if step.at is None:
                value = items
                continue
            if not -len(items) <= step.at < len(items):
                raise PathError(f"{path!r}: {walked} has {len(items)} elements, so no [{step.at}]")
            value = items[step.at]
            walked += f"[{step.at}]"
        else:
            if step.at is not None:
                raise PathError(f"{path!r}: {walked} is not a repeated field, so it takes no [{step.at}]")
            if spec.kind.name == "MESSAGE" and not value.HasField(step.name):
                raise PathError(f"{path!r}: {walked} is not set")
            value = getattr(value, step.name)
    return value


def _unknown(message: Message, step: Step, walked: str, path: str) -> tuple[Any, str]:
    """The raw records of unknown field ``#number`` (a list, or one of them with an index)."""
    number = int(step.name[1:])
    records = [record for record in message.UnknownFields() if _number_of(record) == number]
    walked = f"{walked}.{step.name}" if walked else step.name
    if not records:
        raise PathError(f"{path!r}: {walked}: {type(message).__name__} holds no unknown field {number}")
    if step.at is None:
        return records, walked
    if not -len(records) <= step.at < len(records):
        raise PathError(f"{path!r}: {walked} has {len(records)} records, so no [{step.at}]")
    return records[step.at], f"{walked}[{step.at}]"


def _number_of(record: Any) -> int:
    view = memoryview(record)
    tag, _ = read_tag(view, 0, view.nbytes)
    return int(tag) >> 3
