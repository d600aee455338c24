"""The values of every graph — its ``input``, ``output`` and ``value_info`` — read once for the
three rule families that look at them.

The names rules (which names a graph defines and uses), the required-field rules (every
value named, every type complete) and the IR-version rules (a value's type or metadata
newer than the model) each need every value of every graph. On a long graph an element
nobody holds is built again by each read, so three families reading the values meant three
views built per value (a 100k-node graph has a value_info per node). Here each value is
read once, and each family takes its part from :class:`GraphValues`: the names, and the
violations of the other two in the order their family met them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wirecodec.checker.opsets import VALUE_FEATURES_UNTIL, value_features
from wirecodec.checker.required import value_info
from wirecodec.checker.violation import Report
from wirecodec.checker.walk import ModelSites
from wirecodec.protobuf.fieldpath import join

__all__ = ["GraphValues", "read_values"]


@dataclass
class GraphValues:
    """What one graph's values tell the rule families.

    ``names[field]`` holds the name of each value of ``field`` (``input``, ``output``, ``value_info``) in
    order; ``required`` and ``features`` are the findings of the required-field rules
    (:mod:`wirecodec.checker.required`) and of the IR-version feature rules
    (:mod:`wirecodec.checker.opsets`) about those values, in field then value order.
    """

    names: dict[str, list[str]] = field(default_factory=dict)
    required: Report = field(default_factory=Report)
    features: Report = field(default_factory=Report)


def read_values(sites: ModelSites, ir: int | None) -> dict[str, GraphValues]:
    """Every graph's :class:`GraphValues`, by the graph's path; each value read once.

    ``ir`` is the model's IR version (None when unset): the feature rules apply from IR
    version 1, as :func:`wirecodec.checker.opsets.check_opsets` applies them.
    """
    found: dict[str, GraphValues] = {}
    for site in sites.graphs:
        graph, path = site.graph, site.path
        values = GraphValues()
        main = site.role == "main"
        for field_name, held in (
            ("input", graph.input),
            ("output", graph.output),
            ("value_info", graph.value_info),
        ):
            names: list[str] = []
            for i, value in enumerate(held):
                where = join(path, field_name, i)
                names.append(value.name)
                value_info(values.required, where, value, main_io=main and field_name != "value_info")
                if ir is not None and 1 <= ir < VALUE_FEATURES_UNTIL:
                    value_features(values.features, ir, where, value)
            values.names[field_name] = names
        found[path] = values
    return found
