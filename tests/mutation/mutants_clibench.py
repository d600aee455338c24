"""Mutants of the clibench round: the checker reads each graph's value lists once.

``ModelSites.values`` (wirecodec/checker/walk.py) holds a graph's ``input``, ``output``
and ``value_info`` lists so the rule families (names, required, opsets) share one view
per value instead of each building its own; each mutant is a plausible slip in that.
"""

from __future__ import annotations

from tests.mutation.mutant import Mutant

__all__ = ["MUTANTS"]

_LISTS = "tests/unit/checker/test_value_lists.py"
_CHECKER = "tests/unit/checker/"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "clibench-held-list-any-graph",
        "wirecodec/checker/walk.py",
        "if held is not None and held[0] is graph:",
        "if held is not None:",
        (_LISTS,),
        "a list held for one graph is handed out for another graph at the same path",
    ),
    Mutant(
        "clibench-held-under-wrong-key",
        "wirecodec/checker/walk.py",
        "self._values[(path, field_name)] = (graph, values)",
        'self._values[(path, "value_info")] = (graph, values)',
        (_LISTS,),
        "every list is held under value_info's key: inputs are read as the value_info",
    ),
    Mutant(
        "clibench-names-output-list",
        "wirecodec/checker/names.py",
        'for i, value in enumerate(self.values(path, graph, "output")):',
        'for i, value in enumerate(self.values(path, graph, "value_info")):',
        (_LISTS, _CHECKER),
        "the names family checks the value_info as if they were the graph's outputs",
    ),
    Mutant(
        "clibench-names-value-info-list",
        "wirecodec/checker/names.py",
        'self.value_infos(path, "value_info", self.values(path, graph, "value_info"))',
        'self.value_infos(path, "value_info", self.values(path, graph, "input"))',
        (_LISTS,),
        "duplicate value_info is looked for among the inputs",
    ),
    Mutant(
        "clibench-required-one-list",
        "wirecodec/checker/required.py",
        "for i, value in enumerate(sites.values(path, graph, field_name)):\n                where",
        'for i, value in enumerate(sites.values(path, graph, "input")):\n                where',
        (_LISTS, _CHECKER),
        "the required-field rules read the inputs three times and never the outputs or value_info",
    ),
    Mutant(
        "clibench-opsets-one-list",
        "wirecodec/checker/opsets.py",
        "for i, value in enumerate(sites.values(path, graph, field_name)):\n                which",
        'for i, value in enumerate(sites.values(path, graph, "output")):\n                which',
        (_LISTS,),
        "the IR-version feature rules read the outputs three times: an optional value_info passes",
    ),
)
