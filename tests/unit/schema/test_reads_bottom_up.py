"""schema_dsl/ reads bottom-up (issue 48, item 5): no module imports, at import time or inside a
function, a module that imports it back, directly or through others. Imports under
``if TYPE_CHECKING:`` are for the type checker only and do not count.

A function-level import remains only where a module is loaded on first use for what it
costs (the drop-in's descriptors, the text format): those are leaves of the graph, and
the test below keeps them so.
"""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
PACKAGE = ROOT / "schema_dsl"


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def _schema_imports(path: pathlib.Path) -> list[tuple[str, int, bool]]:
    """(imported schema_dsl module, line, inside a function) for every import that runs."""
    found: list[tuple[str, int, bool]] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if _type_checking_only(child):
                continue
            if isinstance(child, ast.ImportFrom) and child.module and child.module.startswith("schema_dsl."):
                found.append((child.module.split(".")[1], child.lineno, in_function))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    if alias.name.startswith("schema_dsl."):
                        found.append((alias.name.split(".")[1], child.lineno, in_function))
            function = isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            visit(child, in_function or function)

    visit(ast.parse(path.read_text(), str(path)), False)
    return found


def _graph() -> dict[str, list[tuple[str, int, bool]]]:
    paths = sorted(PACKAGE.glob("*.py"))
    return {path.stem: _schema_imports(path) for path in paths if path.stem != "__init__"}


def _cycle(graph: dict[str, list[tuple[str, int, bool]]]) -> list[str] | None:
    """One import cycle, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(module: str) -> list[str] | None:
        state[module] = 1
        path.append(module)
        for target, _, _ in graph.get(module, []):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[module] = 2
        return None

    for module in graph:
        if module not in state:
            found = visit(module)
            if found:
                return found
    return None


@pytest.mark.quick
def test_no_import_cycle_even_through_imports_inside_functions() -> None:
    graph = _graph()
    assert len(graph) >= 15, sorted(graph)  # the walk saw the package
    assert _cycle(graph) is None, " -> ".join(_cycle(graph) or [])


@pytest.mark.quick
def test_imports_inside_functions_are_few_and_say_why() -> None:
    late = [
        (module, target, line, (PACKAGE / f"{module}.py").read_text().splitlines()[line - 1])
        for module, imports in _graph().items()
        for target, line, in_function in imports
        if in_function
    ]
    assert len(late) <= 3, late
    for module, target, line, text in late:
        where = f"schema_dsl/{module}.py:{line}"
        assert "on first use" in text, f"{where} imports {target} late without saying why"


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": [("b", 1, False)], "b": [("c", 1, True)], "c": [("a", 1, False)]}
    assert _cycle(graph) == ["a", "b", "c", "a"]
    assert _cycle({"a": [("b", 1, False)], "b": []}) is None
