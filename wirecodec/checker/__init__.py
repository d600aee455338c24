"""Check a model against the ONNX IR specification and its operators' schemas.

:func:`check` collects every violation — value names (single assignment, topological
order, defined inputs and outputs), required fields, IR versions and opset imports,
attributes, tensor contents, external data, model-local functions, sparse tensors,
unless ``ir_only=True`` every node against its operator schema as onnx's
``check_model`` does (:mod:`wirecodec.checker.schemas`), and with ``full=True`` strict
type and shape inference as its ``full_check`` (:mod:`wirecodec.checker.inference`) — and raises one
:class:`~wirecodec.CheckError` listing them all, each with the field
path where it was found and the id of the rule it breaks (:data:`RULES`; the list with
the spec section of each is in ``docs/checker.md``).

>>> from schema_dsl.onnx import ModelProto
>>> from wirecodec.examples.build_mlp import build
>>> model = build()
>>> check(model)  # a valid model: nothing happens
>>> model.graph.node[1].input[0] = "nowhere"
>>> check(model)
Traceback (most recent call last):
...
wirecodec.errors.CheckError: the model breaks the ONNX IR specification in 1 place:
  graph.node[1].input[0]: 'nowhere' is not defined before this node [undefined-input]
"""

from __future__ import annotations

import os
from collections import Counter
from dataclasses import dataclass
from typing import Final

from schema_dsl.onnx import ModelProto
from wirecodec.checker import (
    attributes,
    external,
    functions,
    inference,
    names,
    opsets,
    required,
    schemas,
    sparse,
    tensors,
)
from wirecodec.checker.values import GraphValues, read_graph, read_values
from wirecodec.checker.violation import Report, Rule, Violation
from wirecodec.checker.walk import AttributeSite, GraphSite, ModelSites, NodeSite, walk
from wirecodec.errors import CheckError
from wirecodec.files.base.source import Source
from wirecodec.files.base.tensor_data import TensorData
from wirecodec.files.external.data import DirectoryData
from wirecodec.files.opener import Opened, open_model

__all__ = ["RULES", "Examination", "Rule", "Violation", "check", "examine", "skipped_domains", "violations"]

RULES: Final[dict[str, Rule]] = {
    rule.id: rule
    for family in (
        names,
        required,
        opsets,
        attributes,
        tensors,
        external,
        functions,
        sparse,
        schemas,
        inference,
    )
    for rule in family.RULES
}
"""Every rule the checker enforces, by id."""


def violations(
    model: ModelProto | Opened | Source,
    *,
    full: bool = False,
    base_dir: str | os.PathLike[str] | None = None,
    ir_only: bool = False,
) -> list[Violation]:
    """Every violation in ``model``, rule family by family (an empty list for a valid model).

    ``model`` is a :class:`ModelProto`, an opened model
    (:func:`wirecodec.files.opener.open_model`) or anything the opener takes (a path, a
    zip container, bytes); a source is opened with its external data left in place and
    its references checked where they point (data files beside it, or the container's
    entries; ``base_dir`` to look elsewhere). For a ModelProto, data files are looked for
    only with a ``base_dir``. ``full=True`` also reads data files to verify checksums, and
    every container entry against its CRC-32; an opened model's safetensors data files are
    checked against their headers (:mod:`wirecodec.files.integrity`, what ``wirecodec check``
    reports). When every other rule holds, ``full=True`` then runs strict type and shape
    inference as onnx's ``full_check`` does (:mod:`wirecodec.checker.inference`, rule
    ``shape-inference``).
    ``ir_only=True`` leaves out the operator schema rules (:mod:`wirecodec.checker.schemas`).
    """
    return examine(model, full=full, base_dir=base_dir, ir_only=ir_only).violations


@dataclass(frozen=True)
class Examination:
    """What one walk of a model tells the checker: the ``violations``, the nodes the schema
    rules skipped by domain (``skipped_domains``; empty with ``ir_only``) and how many nodes
    of each operator type there are (``operators``, as ``domain::op_type`` or ``op_type``)."""

    violations: list[Violation]
    skipped_domains: dict[str, int]
    operators: dict[str, int]


def examine(
    model: ModelProto | Opened | Source,
    *,
    full: bool = False,
    base_dir: str | os.PathLike[str] | None = None,
    ir_only: bool = False,
) -> Examination:
    """:func:`violations`, :func:`skipped_domains` and the operator counts from one walk of the
    model (what ``wirecodec check`` prints); arguments as :func:`violations`."""
    if not isinstance(model, (Opened, ModelProto)):
        model = open_model(model, base_dir=base_dir)
    opened = model if isinstance(model, Opened) else None
    model, data = _model_and_data(model, base_dir)
    report = Report()
    rules = _NodeRules(model, ir_only)
    sites = walk(model, rules)  # the node rules run as it meets each node: no view is held
    found = _run_rules(model, sites, report, data, full, ir_only, rules)
    if opened is not None:
        # The files layer's integrity checks (safetensors headers; with full, every container
        # entry's CRC-32): the verdict ``wirecodec check --full`` gives.
        from wirecodec.files.integrity import problems

        found += [Violation(p.path, p.rule, p.message) for p in problems(opened, full=full)]
    if full and not found:  # onnx's full_check: strict inference, once every rule holds
        found += inference.check_inference(model)
    skipped = {} if rules.schemas is None else rules.schemas.skipped_domains()
    return Examination(found, skipped, dict(rules.operators))


class _NodeRules:
    """Every family's rules on each node and attribute, run as the walk meets it
    (:class:`wirecodec.checker.walk.SiteRules`); each family's findings kept apart, so the
    report lists them family by family as when each family looked at a list of sites."""

    def __init__(self, model: ModelProto, ir_only: bool) -> None:
        self.required = Report()
        self.opsets = opsets.OpsetNodes(model)
        self.attributes = attributes.AttributeRules(model)
        self.schemas = None if ir_only else schemas.SchemaRules(model)
        self.operators: Counter[str] = Counter()
        self.names: dict[str, list[names.NodeNames]] = {}  # by graph path: what the names rules read
        self.ir = model.ir_version if model.HasField("ir_version") else None
        self.values: dict[str, GraphValues] = {}  # every graph's values, by path, in walk order
        self.bodies: list[str] = []  # the paths of the subgraphs, in walk order
        self._node = [self.opsets.node, self.attributes.node]
        if self.schemas is not None:
            self._node.append(self.schemas.node)

    def node(self, site: NodeSite) -> None:
        node = site.node
        self.operators[f"{node.domain}::{node.op_type}" if node.domain else node.op_type] += 1
        path = site.path
        graph = path[: path.rindex(".node[")] if site.function is None else None
        if graph is not None:  # (a function's nodes are listed: the names rules read them there)
            held = self.names.get(graph)
            if held is None:
                held = self.names[graph] = []
            held.append(names.node_names(node))
        required.node_required(self.required, site)
        for rule in self._node:
            rule(site)

    def attribute(self, site: AttributeSite) -> None:
        self.opsets.attribute(site)
        self.attributes.attribute(site)

    def graph(self, site: GraphSite) -> None:
        self.values[site.path] = read_graph(site, self.ir)
        if site.role == "subgraph":
            self.bodies.append(site.path)


def _run_rules(
    model: ModelProto,
    sites: ModelSites,
    report: Report,
    data: TensorData | None,
    full: bool,
    ir_only: bool,
    streamed: _NodeRules | None = None,
) -> list[Violation]:
    # Each graph's values read once for the three families that look at them (a long
    # graph's value_info would otherwise be built three times: see checker.values).
    if streamed is None:
        values = read_values(sites, model.ir_version if model.HasField("ir_version") else None)
        holders = names.body_holders(site.path for site in sites.graphs if site.role == "subgraph")
        names.check_names(model, report, values, holders)
    else:  # the walk read every graph
        values = streamed.values
        names.check_names(model, report, values, None, streamed.names, streamed.bodies)
    required.check_required(sites, report, values, None if streamed is None else streamed.required)
    opsets.check_opsets(sites, report, values, None if streamed is None else streamed.opsets)
    attributes.check_attributes(sites, report, None if streamed is None else streamed.attributes)
    tensors.check_tensors(sites, report)
    external.check_external(sites, report, data=data, full=full)
    functions.check_functions(sites, report)
    sparse.check_sparse(sites, report)
    if not ir_only:
        schemas.check_schemas(sites, report, None if streamed is None else streamed.schemas)
    return report.violations


def _model_and_data(
    model: ModelProto | Opened | Source, base_dir: str | os.PathLike[str] | None
) -> tuple[ModelProto, TensorData | None]:
    data: TensorData | None = None
    opened = model if isinstance(model, (Opened, ModelProto)) else open_model(model, base_dir=base_dir)
    if isinstance(opened, Opened):
        proto, data = opened.model, opened.data
    else:
        proto = opened
    if base_dir is not None and data is None:
        data = DirectoryData(base_dir)
    return proto, data


def skipped_domains(model: ModelProto | Opened | Source) -> dict[str, int]:
    """The nodes the schema rules leave alone, counted by domain, as onnx's checker leaves them.

    Those are the nodes of domains onnx has no schemas for (custom domains such as
    ``com.microsoft``) and the operators onnx's checker calls experimental.

    >>> from wirecodec import helper
    >>> node = helper.make_node("FusedGemm", ["x"], ["y"], domain="com.microsoft")
    >>> graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", 1, [1])],
    ...                           [helper.make_tensor_value_info("y", 1, [1])])
    >>> model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
    ...                                                 helper.make_opsetid("com.microsoft", 1)])
    >>> check(model)
    >>> skipped_domains(model)
    {'com.microsoft': 1}
    """
    proto, _ = _model_and_data(model, None)
    return schemas.skipped_domains(proto, walk(proto))


def check(
    model: ModelProto | Opened | Source,
    *,
    full: bool = False,
    base_dir: str | os.PathLike[str] | None = None,
    ir_only: bool = False,
) -> None:
    """Raise :class:`~wirecodec.CheckError` listing every violation in ``model``; return None if valid.

    Arguments as for :func:`violations`.
    """
    found = violations(model, full=full, base_dir=base_dir, ir_only=ir_only)
    if found:
        raise CheckError(found)
