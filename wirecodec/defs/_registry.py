"""The schema data file, read on first use, and the lookups onnx's registry answers."""

from __future__ import annotations

import base64
import bisect
import functools
import json
import os
from collections.abc import Iterator, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from wirecodec.defs._types import (
    Attribute,
    AttributeValue,
    FormalParameter,
    FormalParameterOption,
    OpSchema,
    TypeConstraint,
)

__all__ = ["Registry", "deregister", "register", "registry"]

_STRING, _STRINGS = 3, 8  # AttributeProto.AttributeType: defaults held as text in the file


_Key = tuple[str, str]


class _Schemas(MutableMapping[_Key, tuple[OpSchema, ...]]):
    """(domain, name) -> that operator's schemas, versions ascending, each operator's made
    from the file's entries on its first lookup (a process that checks a few operators
    does not build the 659 schemas; building one twice from two threads keeps the first).
    An entry is a JSON value, or its line of the file still unparsed (``_lines``)."""

    def __init__(self, raw: dict[_Key, list[Any]], since: dict[_Key, list[int]] | None = None) -> None:
        self._raw = raw
        self._known_since = since
        self._built: dict[_Key, tuple[OpSchema, ...]] = {}

    def since_versions(self) -> dict[_Key, list[int]]:
        """Each operator's since_versions, ascending, read without building a schema."""
        if self._known_since is not None:
            return {key: sorted(versions) for key, versions in self._known_since.items()}
        return {key: sorted(r["since_version"] for r in entries) for key, entries in self._raw.items()}

    def __getitem__(self, key: _Key) -> tuple[OpSchema, ...]:
        found = self._built.get(key)
        if found is None:
            entries = [json.loads(r) if type(r) is str else r for r in self._raw[key]]
            made = tuple(sorted((_schema(r) for r in entries), key=lambda s: s.since_version))
            found = self._built.setdefault(key, made)
        return found

    def __setitem__(self, key: _Key, value: tuple[OpSchema, ...]) -> None:
        self._raw.setdefault(key, [])
        self._built[key] = value

    def __delitem__(self, key: _Key) -> None:
        del self._raw[key]
        self._built.pop(key, None)

    def __iter__(self) -> Iterator[_Key]:
        return iter(self._raw)

    def __len__(self) -> int:
        return len(self._raw)


@dataclass(frozen=True)
class Registry:
    """Every schema by (domain, name), versions ascending, and what onnx says of its domains."""

    onnx_version: str
    domain_versions: dict[str, tuple[int, int]]
    experimental_ops: frozenset[str]
    by_op: MutableMapping[_Key, tuple[OpSchema, ...]]
    _since: dict[_Key, list[int]] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if isinstance(self.by_op, _Schemas):
            self._since.update(self.by_op.since_versions())
        else:
            self._since.update(
                {key: [s.since_version for s in history] for key, history in self.by_op.items()}
            )

    def versions(self, op_type: str, domain: str) -> tuple[OpSchema, ...]:
        return self.by_op.get((domain, op_type), ())

    def schema(self, op_type: str, max_inclusive_version: int, domain: str) -> OpSchema | None:
        """The schema with the largest since_version <= max_inclusive_version (onnx's GetSchema)."""
        since = self._since.get((domain, op_type))
        if since is None:
            return None
        at = bisect.bisect_right(since, max_inclusive_version)
        return self.by_op[(domain, op_type)][at - 1] if at else None


def _parameter(raw: list[Any]) -> FormalParameter:
    name, option, homogeneous, min_arity, type_str = raw
    return FormalParameter(name, FormalParameterOption(option), homogeneous, min_arity, type_str)


def _default(type_: int, value: Any) -> AttributeValue | None:
    if value is None:
        return None
    if type_ == _STRING:
        return str(value).encode("utf-8")
    if type_ == _STRINGS:
        return [str(v).encode("utf-8") for v in value]
    result: AttributeValue = value
    return result


def _schema(raw: dict[str, Any]) -> OpSchema:
    return OpSchema(
        name=raw["name"],
        domain=raw["domain"],
        since_version=raw["since_version"],
        deprecated=raw["deprecated"],
        inputs=tuple(_parameter(p) for p in raw["inputs"]),
        outputs=tuple(_parameter(p) for p in raw["outputs"]),
        min_input=raw["min_input"],
        max_input=raw["max_input"],
        min_output=raw["min_output"],
        max_output=raw["max_output"],
        attributes={
            name: Attribute(name, type_, required, _default(type_, default))
            for name, type_, required, default in raw["attributes"]
        },
        type_constraints=tuple(TypeConstraint(name, tuple(types)) for name, types in raw["type_constraints"]),
        refused_input_counts=frozenset(raw.get("refused_input_counts", ())),
        refused_output_counts=frozenset(raw.get("refused_output_counts", ())),
        allows_unchecked_attributes=raw.get("unchecked_attributes", False),
        function_bodies={int(v): base64.b64decode(body) for v, body in raw.get("functions", {}).items()},
        context_dependent_function_opset_versions=tuple(raw.get("context_dependent_functions", ())),
    )


def build(data: dict[str, Any]) -> Registry:
    """A registry from the file's JSON value (the generator's output)."""
    raw: dict[_Key, list[dict[str, Any]]] = {}
    for entry in data["schemas"]:
        raw.setdefault((entry["domain"], entry["name"]), []).append(entry)
    return Registry(
        onnx_version=data["onnx_version"],
        domain_versions={d: (low, high) for d, (low, high) in data["domain_versions"].items()},
        experimental_ops=frozenset(data["experimental_ops"]),
        by_op=_Schemas(raw),
    )


@functools.cache
def registry() -> Registry:
    """The shipped schemas, read once (about 0.4 MB of JSON) on the first lookup; each
    operator's schemas are made on its own first lookup."""
    text = _data_text()
    return _lines(text) or build(json.loads(text))


def _data_text() -> str:
    """The data file's text: read beside this module (importlib.resources, and the zipfile
    it imports, only for a package that is not plain files)."""
    try:
        with open(os.path.join(os.path.dirname(__file__), "schemas.json"), encoding="utf-8") as file:
            return file.read()
    except OSError:
        import importlib.resources

        return importlib.resources.files("wirecodec.defs").joinpath("schemas.json").read_text("utf-8")


# A schema's line as the generator renders it (wirecodec.defs._generate.render): its key first.
_NAME, _DOMAIN, _SINCE = '{"name":"', '","domain":"', '","since_version":'


def _key_of(line: str) -> tuple[_Key, int] | None:
    """A schema line's (domain, name) and since_version, read from its start without
    parsing the line; None when the line does not start as the generator writes it."""
    if not line.startswith(_NAME) or not line.endswith("}"):
        return None
    name, found, rest = line[len(_NAME) :].partition(_DOMAIN)
    domain, found_too, rest = rest.partition(_SINCE)
    version = rest.partition(",")[0]
    if not (found and found_too and version.isdigit()) or any(c in name + domain for c in '"\\'):
        return None
    return (domain, name), int(version)


def _lines(text: str) -> Registry | None:
    """A registry from the generator's layout, one schema per line, each line parsed on its
    operator's first lookup (most of the file's parse time is in schemas nobody asks for);
    None when the text is not in that layout."""
    head, sep, body = text.partition(',\n"schemas":[\n')
    if not sep or not body.endswith("\n]}\n"):
        return None
    data = json.loads(head + "}")
    raw: dict[_Key, list[Any]] = {}
    since: dict[_Key, list[int]] = {}
    for line in body[: -len("\n]}\n")].split(",\n"):
        found = _key_of(line)
        if found is None:
            return None
        key, version = found
        raw.setdefault(key, []).append(line)
        since.setdefault(key, []).append(version)
    return Registry(
        onnx_version=data["onnx_version"],
        domain_versions={d: (low, high) for d, (low, high) in data["domain_versions"].items()},
        experimental_ops=frozenset(data["experimental_ops"]),
        by_op=_Schemas(raw, since),
    )


def register(schema: OpSchema) -> None:
    """Add ``schema`` to the registry every lookup reads (``onnx.defs.register_schema``);
    its domain's version range grows to take it, as onnx's does, and stays so.

    Raises ``KeyError`` naming the schema when one of the same (domain, name, since_version)
    is already there.
    """
    table = registry()
    key = (schema.domain, schema.name)
    history = list(table.by_op.get(key, ()))
    if any(s.since_version == schema.since_version for s in history):
        raise KeyError(f"{schema.name} (domain {schema.domain!r}, version {schema.since_version})")
    history.append(schema)
    history.sort(key=lambda s: s.since_version)
    table.by_op[key] = tuple(history)
    table._since[key] = [s.since_version for s in history]
    # As onnx's registry: the domain's version range grows to take the schema (and stays so).
    low, high = table.domain_versions.get(schema.domain, (schema.since_version, schema.since_version))
    table.domain_versions[schema.domain] = (min(low, schema.since_version), max(high, schema.since_version))


def deregister(op_type: str, version: int, domain: str) -> OpSchema:
    """Remove the schema of exactly ``(domain, op_type, version)`` and return it
    (``KeyError`` naming it when there is none)."""
    table = registry()
    key = (domain, op_type)
    history = table.by_op.get(key, ())
    kept = tuple(s for s in history if s.since_version != version)
    if len(kept) == len(history):
        raise KeyError(f"{op_type} (domain {domain!r}, version {version})")
    removed = next(s for s in history if s.since_version == version)
    if kept:
        table.by_op[key] = kept
        table._since[key] = [s.since_version for s in kept]
    else:
        del table.by_op[key]
        del table._since[key]
    return removed
