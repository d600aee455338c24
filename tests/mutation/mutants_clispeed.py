"""Issue 48, item 7 (``wirecodec check`` and ``inspect`` on long graphs): bugs planted in what
the speed work changed — values read once for three rule families, loops skipped where
nothing can be found, a schema's arity read once, every node read once for ``inspect`` —
each with the tests that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_VALUES = "tests/unit/checker/test_values_read_once.py"
_SKIPS = "tests/unit/checker/test_skipped_reads.py"
_NODES = "tests/cli/test_inspect_reads_nodes_once.py"
_SCHEMAS = "tests/differential/test_checker_schemas.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "clispeed-value-info-as-main-io",
        "wirecodec/checker/values.py",
        'main_io = main and field_name != "value_info"',
        "main_io = main",
        (_VALUES,),
        "a main graph's value_info is held to the rules of its inputs and outputs (a type, a shape)",
    ),
    Mutant(
        "clispeed-value-features-one-version-short",
        "wirecodec/checker/values.py",
        "1 <= ir < VALUE_FEATURES_UNTIL",
        "1 <= ir < VALUE_FEATURES_UNTIL - 1",
        (_VALUES, _SKIPS),
        "metadata on a value of an IR 9 model is not reported (the values' loop skipped one version early)",
    ),
    Mutant(
        "clispeed-newest-feature-too-old",
        "wirecodec/checker/opsets.py",
        "_NEWEST_FEATURE: Final = max(11, *_TYPE_SINCE.values())",
        "_NEWEST_FEATURE: Final = 11",
        (_SKIPS,),
        "a 6-bit float tensor in an IR 13 model is not reported: the tensor loop is skipped from IR 11",
    ),
    Mutant(
        "clispeed-no-bodies-anywhere",
        "wirecodec/checker/names.py",
        "        if self.holders is not None and path not in self.holders:\n",
        "        if self.holders is not None:\n",
        (_SKIPS, "tests/unit/checker/test_check.py"),
        "the names rules never look into bodies when the walk says where they are",
    ),
    Mutant(
        "clispeed-holder-is-the-outermost-graph",
        "wirecodec/checker/names.py",
        'frozenset(path.rpartition(".node[")[0] for path in body_paths)',
        'frozenset(path.partition(".node[")[0] for path in body_paths)',
        (_SKIPS,),
        "a body inside a body is filed under the main graph: the inner one's bodies are not checked",
    ),
    Mutant(
        "clispeed-omitted-inputs-never-looked-at",
        "wirecodec/checker/schemas.py",
        '    if "" not in values:\n        return  # nothing omitted: the usual node\n',
        "    return\n",
        (f"{_SCHEMAS}::test_verdicts_equal_onnx_on_seeded_models",),
        "an omitted Single input ('') is never reported",
    ),
    Mutant(
        "clispeed-singles-are-optionals",
        "wirecodec/checker/schemas.py",
        "if p.option == FormalParameterOption.Single)",
        "if p.option == FormalParameterOption.Optional)",
        (f"{_SCHEMAS}::test_verdicts_equal_onnx_on_seeded_models",),
        "the positions that may not be omitted are read from the Optional parameters",
    ),
    Mutant(
        "clispeed-bodies-nodes-counted-as-main",
        "wirecodec/cli/make_up.py",
        "        return (node for node in self.all if id(node) not in main)\n",
        "        return iter(self.all)\n",
        (_NODES,),
        "inspect's 'in subgraphs' counts the main graph's nodes too",
    ),
    Mutant(
        "clispeed-bodies-not-kept",
        "wirecodec/cli/make_up.py",
        "                self._bodies[id(node)] = held\n",
        "                pass\n",
        (_NODES,),
        "the weights (Constant values) inside bodies are not counted by parameters-by-operator",
    ),
    Mutant(
        "clispeed-every-node-bare",
        "wirecodec/cli/make_up.py",
        "            if _bare(node):\n",
        "            if True:\n",
        (_NODES,),
        "inspect's tensor walk enters no node: Constant values and attribute tensors are not listed",
    ),
    Mutant(
        "clispeed-graphs-do-not-count-as-held",
        "wirecodec/cli/make_up.py",
        "_holds(held, _ATTRIBUTE_TOWARD)",
        "_holds(held, _ATTRIBUTE_TOWARD[:1])",
        (_NODES,),
        "a node whose attributes hold a graph or a tensor list (not one tensor) is taken as bare",
    ),
)
