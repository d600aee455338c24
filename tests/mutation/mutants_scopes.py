"""Mutants of the one scope walk and the one path formatter (issue 47, item 5): the walk's
scopes (wirecodec/graphs/scopes.py), the tools that take their scopes from it (the checker's
names rule, shape inference, draw, extract, edit --toposort) and fieldpath.join. Each is a
plausible slip; the walk's own unit test or the tool's tests must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_WALK = "tests/unit/onnx/test_scope_walk.py"
_PATHS = "tests/unit/checker/test_finding_paths.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "scopes-holder-output-visible-in-body",
        "wirecodec/graphs/scopes.py",
        "        if found is not None and found[0] < self._limit:\n",
        "        if found is not None and found[0] <= self._limit:\n",
        (f"{_WALK}::test_walk_graphs_gives_every_body_with_its_scope",),
        "a body sees the outputs of the node that holds it as defined before it (a cycle passes)",
    ),
    Mutant(
        "scopes-holder-output-not-later",
        "wirecodec/graphs/scopes.py",
        "        return self._last.get(name, -1) >= self._start or name in self._outside\n",
        "        return self._last.get(name, -1) > self._start or name in self._outside\n",
        (f"{_WALK}::test_walk_graphs_gives_every_body_with_its_scope",),
        "a body reading its holder's own output is not told that the value comes later",
    ),
    Mutant(
        "scopes-later-ignores-enclosing-graphs",
        "wirecodec/checker/names.py",
        "        return name in self.later\n",
        "        return False\n",
        (f"{_PATHS}::test_findings_inside_bodies_functions_and_training_graphs_name_them",),
        "a nested body reading a value its enclosing graph makes later is an undefined input, "
        "not a topological-order finding",
    ),
    Mutant(
        "scopes-reads-include-own-names",
        "wirecodec/graphs/scopes.py",
        '    used.discard("")\n    return used - defined\n',
        '    used.discard("")\n    return used\n',
        (
            f"{_WALK}::test_walk_graphs_gives_every_body_with_its_scope",
            "tests/unit/onnx/test_utils_extract.py::test_outer_scope_reads_are_kept_where_onnx_drops_them",
        ),
        "what a body reads from outside includes the names it defines itself",
    ),
    Mutant(
        "scopes-implicit-reads-on-node-0",
        "wirecodec/graphs/subgraph.py",
        "        reads.setdefault(scope.index, set()).update(scope.reads())\n",
        "        reads.setdefault(0, set()).update(scope.reads())\n",
        (
            "tests/unit/onnx/test_utils_extract.py::test_outer_scope_reads_are_kept_where_onnx_drops_them",
            "tests/unit/onnx/test_utils_extract.py::test_initializers_read_by_bodies_are_kept",
        ),
        "extract counts what a body reads as an input of the graph's first node, not of its holder",
    ),
    Mutant(
        "scopes-toposort-main-graph-only",
        "wirecodec/cli/graph_order.py",
        "    return sum(_sort(scope) for scope in walk_graphs(graph, where))\n",
        "    return _sort(next(walk_graphs(graph, where)))\n",
        ("tests/cli/test_toposort.py::test_toposort_follows_what_a_body_reads_and_sorts_bodies",),
        "edit --toposort sorts the main graph and leaves every body as it was",
    ),
    Mutant(
        "scopes-draw-collapsed-reads-dropped",
        "wirecodec/graphs/draw.py",
        "            for name in sorted(body.reads()):  # what a collapsed body reads: dashed edges\n",
        "            for name in ():  # what a collapsed body reads: dashed edges\n",
        (f"{_WALK}::test_draw_takes_bodies_and_outer_reads_from_the_walk",),
        "draw loses the dashed edges of what a collapsed body reads from its graph",
    ),
    Mutant(
        "scopes-join-root-gets-a-dot",
        "wirecodec/protobuf/fieldpath.py",
        '    return f"{parent}.{step}" if parent else step\n',
        '    return f"{parent}.{step}"\n',
        (_PATHS,),
        "a path built from the root (functions[1], training_info[0]) starts with a dot parse refuses",
    ),
    Mutant(
        "scopes-symbols-of-graphs-bodies-reserved",
        "wirecodec/shape_inference/_engine.py",
        "            if scope.depth and not scope.in_graphs:\n",
        "            if scope.depth:\n",
        (
            "tests/differential/test_graphs_attribute_bodies.py::test_fresh_symbols_are_named_as_onnx_names_them",
        ),
        "the symbols a GRAPHS body declares are reserved (onnx's table skips them): fresh symbols "
        "are named unlike onnx's",
    ),
    Mutant(
        "scopes-inference-body-of-wrong-node",
        "wirecodec/shape_inference/_engine.py",
        "            for scope in self._held.get(self._index, ()):\n",
        "            for scope in self._held.get(0, ()):\n",
        ("tests/unit/shape_inference/test_body_paths.py",),
        "shape inference looks for a body's scope among the first node's bodies: a finding in the "
        "body of a later node is reported without the body's path",
    ),
)
