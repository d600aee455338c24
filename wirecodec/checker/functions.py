"""Model-local functions (onnx.proto, FunctionProto): named, unique, attributes once, no recursion."""

from __future__ import annotations

from schema_dsl.onnx import FunctionProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import ModelSites
from wirecodec.protobuf.fieldpath import join

__all__ = ["RULES", "check_functions", "function_attributes"]

FUNCTION_NAME = Rule("function-name", "onnx.proto: FunctionProto.name", "every function has a name")
FUNCTION_UNIQUE = Rule(
    "function-unique",
    "onnx.proto: ModelProto.functions",
    "(domain, name, overload) is unique among the functions",
)
FUNCTION_ATTRIBUTE = Rule(
    "function-attribute",
    "onnx.proto: FunctionProto.attribute_proto",
    "a function declares each attribute once, in attribute or in attribute_proto, not both",
)
FUNCTION_RECURSION = Rule(
    "function-recursion",
    "onnx.proto: ModelProto.functions",
    "no function calls itself, directly or through others",
)

RULES = (FUNCTION_NAME, FUNCTION_UNIQUE, FUNCTION_ATTRIBUTE, FUNCTION_RECURSION)

_Key = tuple[str, str, str]


def function_attributes(function: FunctionProto) -> set[str]:
    """The names of the attributes a function declares (with or without a default)."""
    return set(function.attribute) | {a.name for a in function.attribute_proto}


def check_functions(sites: ModelSites, report: Report) -> None:
    """Report function naming, uniqueness, attribute and recursion violations."""
    functions = sites.model.functions
    index: dict[_Key, int] = {}
    for i, function in enumerate(functions):
        path = f"functions[{i}]"
        if not function.name:
            report.add(join(path, "name"), FUNCTION_NAME, "the function has no name")
        key = (function.domain, function.name, function.overload)
        if key in index:
            report.add(
                join(path, "name"),
                FUNCTION_UNIQUE,
                f"{_show(key)} is already defined at {join('', 'functions', index[key])}",
            )
        else:
            index[key] = i
        _attributes(report, path, function)
    _recursion(sites, report, index)


def _show(key: _Key) -> str:
    domain, name, overload = key
    return f"function {domain}::{name}" + (f" (overload {overload!r})" if overload else "")


def _attributes(report: Report, path: str, function: FunctionProto) -> None:
    seen: dict[str, str] = {}
    declared = [(join(path, "attribute", j), name) for j, name in enumerate(function.attribute)]
    declared += [
        (join(join(path, "attribute_proto", j), "name"), a.name)
        for j, a in enumerate(function.attribute_proto)
    ]
    for where, name in declared:
        if name in seen:
            report.add(where, FUNCTION_ATTRIBUTE, f"attribute {name!r} is already declared at {seen[name]}")
        elif name:
            seen[name] = where


def _recursion(sites: ModelSites, report: Report, index: dict[_Key, int]) -> None:
    positions = {id(f): i for i, f in enumerate(sites.model.functions)}
    calls: dict[int, list[tuple[str, int]]] = {}  # caller -> (path of the calling node, callee)
    for site in sites.nodes:
        if site.function is None:
            continue
        callee = index.get((site.node.domain, site.node.op_type, site.node.overload))
        if callee is not None:
            calls.setdefault(positions[id(site.function)], []).append((site.path, callee))

    def reaches(start: int, goal: int) -> bool:
        seen, stack = {start}, [start]
        while stack:
            current = stack.pop()
            if current == goal:
                return True
            for _, callee in calls.get(current, ()):
                if callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
        return False

    for caller in sorted(calls):
        for path, callee in calls[caller]:
            if reaches(callee, caller):
                name = sites.model.functions[callee].name
                report.add(
                    path,
                    FUNCTION_RECURSION,
                    f"Cycle detected in model-local function references: this call of {name!r} leads back "
                    "to the function itself",
                )
                break
