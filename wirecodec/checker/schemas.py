"""Nodes against their operator schemas, by the rules onnx's ``check_model`` applies by default.

The rules are those of onnx's ``checker.cc`` (``check_node``, ``check_opset_compatibility``)
and ``OpSchema::Verify`` in ``defs/schema.cc``. A node's schema is the one in effect at the
opset its graph imports for its domain: the model's imports for the model's graphs
(``{"": 1}`` for a model of IR version < 3 without imports), the function's own for a
function body. Nodes of a domain onnx does not know (a custom domain, or an operator
without a schema in ``ai.onnx.preview.training``) are skipped as onnx skips them, and
so are the operators onnx calls experimental; :func:`skipped_domains` says which were.
Where an import is missing altogether, the IR rule ``opset-undeclared-domain`` reports it;
Verify's "a TENSOR/GRAPH/... attribute carries its value" is the IR rule ``attribute-value``.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Final, Literal, NamedTuple

from schema_dsl.onnx import AttributeProto, ModelProto, OperatorSetIdProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import AttributeSite, ModelSites, NodeSite, attributes_of
from wirecodec.defs import FormalParameter, FormalParameterOption, OpSchema
from wirecodec.defs._registry import Registry, registry
from wirecodec.protobuf.fieldpath import join

__all__ = ["BUILTIN_DOMAINS", "RULES", "SchemaRules", "check_schemas", "skipped_domains"]

_SOURCE_NODE = "onnx checker.cc: check_node"
_SOURCE_VERIFY = "onnx defs/schema.cc: OpSchema::Verify"
OP_REGISTERED = Rule(
    "op-registered",
    _SOURCE_NODE,
    "a node of a built-in domain names an operator registered at the opset imported for it",
)
OP_DEPRECATED = Rule(
    "op-deprecated", _SOURCE_NODE, "the operator's schema at the imported opset is not deprecated"
)
INPUT_COUNT = Rule("input-count", _SOURCE_VERIFY, "a node has a number of inputs its schema allows")
OUTPUT_COUNT = Rule("output-count", _SOURCE_VERIFY, "a node has a number of outputs its schema allows")
INPUT_SINGLE = Rule(
    "input-single", _SOURCE_VERIFY, "an input the schema declares Single (not optional) is not omitted ('')"
)
OUTPUT_SINGLE = Rule(
    "output-single", _SOURCE_VERIFY, "an output the schema declares Single (not optional) is not omitted ('')"
)
ATTRIBUTE_DECLARED = Rule(
    "attribute-declared",
    _SOURCE_VERIFY,
    "every attribute is one the schema declares (names starting with '__' are exempt)",
)
ATTRIBUTE_SCHEMA_TYPE = Rule(
    "attribute-schema-type", _SOURCE_VERIFY, "an attribute has the type its schema declares"
)
ATTRIBUTE_REQUIRED = Rule(
    "attribute-required", _SOURCE_VERIFY, "every attribute the schema requires is given"
)
FUNCTION_OPSET_COMPATIBLE = Rule(
    "function-opset-compatible",
    "onnx checker.cc: check_opset_compatibility",
    "a function body's node resolves to the same schema version under the function's opset "
    "import as under the model's",
)

RULES = (
    OP_REGISTERED,
    OP_DEPRECATED,
    INPUT_COUNT,
    OUTPUT_COUNT,
    INPUT_SINGLE,
    OUTPUT_SINGLE,
    ATTRIBUTE_DECLARED,
    ATTRIBUTE_SCHEMA_TYPE,
    ATTRIBUTE_REQUIRED,
    FUNCTION_OPSET_COMPATIBLE,
)

BUILTIN_DOMAINS: Final = frozenset({"", "ai.onnx", "ai.onnx.ml", "ai.onnx.training"})
"""Domains where onnx refuses an operator without a schema (elsewhere it skips the node)."""

_DEFAULT, _DEFAULT_ALIAS = "", "ai.onnx"
_Type = AttributeProto.AttributeType
_UNBOUNDED: Final = 2**31 - 1  # onnx's max_input/max_output of a variadic parameter (INT_MAX)
_FUNCTION_NODE: Final = re.compile(r"functions\[(\d+)\]\.node\[\d+\]")

_Imports = dict[str, int]


def _imports(opsets: Iterable[OperatorSetIdProto]) -> _Imports:
    # As onnx's map: a domain imported twice keeps its last version.
    return {opset.domain: opset.version for opset in opsets}


def _model_imports(model: ModelProto) -> _Imports | None:
    imports = _imports(model.opset_import)
    if not imports:
        ir = model.ir_version if model.HasField("ir_version") else 0
        # IR < 3 implies opset 1 of the default domain; from 3 on opset-import-required reports it.
        return {_DEFAULT: 1} if ir < 3 else None
    return imports


def check_schemas(sites: ModelSites, report: Report, streamed: SchemaRules | None = None) -> None:
    """Report every node that breaks its operator schema, and function imports at odds with
    the model's; ``streamed``: the rules run as the walk met each node (the walk then
    listed only functions' nodes), else the listed nodes are looked at here."""
    if streamed is None:
        streamed = SchemaRules(sites.model)
        for site in sites.nodes:
            streamed.node(site)
    report.violations += streamed.report.violations


class SchemaRules:
    """The schema rules of each node, and the count of the nodes they leave alone, by domain
    (``skipped``), as the walk meets each node (:class:`wirecodec.checker.walk.SiteRules`).
    The imports and registry are read once per model."""

    def __init__(self, model: ModelProto, *, skipped_only: bool = False) -> None:
        self.schemas = registry()
        self.model_imports = _model_imports(model)
        ir = model.ir_version if model.HasField("ir_version") else None
        self.typed = ir is None or ir >= 2
        functions = list(model.functions)
        self.function_imports = [_imports(f.opset_import) for f in functions]
        # Compatibility is judged against the model's imports, completed by the functions' own.
        self.merged = dict(self.model_imports or {})
        for own in self.function_imports:
            for domain, version in own.items():
                self.merged.setdefault(domain, version)
        # Held with their functions, so that an id stays its function's while this lives.
        self.positions = {id(f): (f, i) for i, f in enumerate(functions)}
        self.skipped_only = skipped_only
        self.report = Report()
        self.skipped: Counter[str] = Counter()
        self.plans: dict[tuple[str, str, int], _Plan] = {}

    def node(self, site: NodeSite) -> None:
        node, function = site.node, site.function
        at = -1 if function is None else self.positions[id(function)][1]
        if at >= 0 and not self.skipped_only and _FUNCTION_NODE.fullmatch(site.path):
            _compatibility(self.report, self.schemas, site, self.function_imports[at], self.merged)
        # What the schema rules make of a node depends on its kind and imports, not the node:
        # a plan per (domain, op_type, function), and per node only what is the node's own.
        key = (node.domain, node.op_type, at)
        plan = self.plans.get(key)
        if plan is None:
            imports = self.model_imports if at < 0 else self.function_imports[at]
            plan = self.plans[key] = _plan(self.schemas, node.domain, node.op_type, imports)
        if plan.skipped:
            self.skipped[node.domain] += 1
        if self.skipped_only or not plan.checked:
            return
        if plan.finding is not None:
            field, rule, message = plan.finding
            self.report.add(join(site.path, field), rule, message)
        elif plan.schema is not None:
            _arity(self.report, plan, site)
            if plan.required or attributes_of(node):
                _attributes(self.report, plan, site, self.typed)

    def attribute(self, site: AttributeSite) -> None:
        pass  # a node's attributes are read with it

    def skipped_domains(self) -> dict[str, int]:
        """The nodes left alone so far, by domain, in domain order."""
        return dict(sorted(self.skipped.items()))


def skipped_domains(model: ModelProto, sites: ModelSites) -> dict[str, int]:
    """Nodes not checked against a schema, counted by domain (custom domains and experimental ops)."""
    rules = SchemaRules(model, skipped_only=True)
    for site in sites.nodes:
        rules.node(site)
    return rules.skipped_domains()


def _compatibility(
    report: Report, schemas: Registry, site: NodeSite, imports: _Imports, merged: _Imports
) -> None:
    node = site.node
    if node.domain not in imports:
        # Looked up by the exact name here: a function importing 'ai.onnx' but using '' fails.
        other = (
            _DEFAULT_ALIAS if node.domain == _DEFAULT else _DEFAULT if node.domain == _DEFAULT_ALIAS else None
        )
        if other is not None and other in imports:
            report.add(
                join(site.path, "domain"),
                FUNCTION_OPSET_COMPATIBLE,
                f"the function imports the default domain as {other!r}; onnx looks {node.domain!r} up by "
                "that exact name in a function",
            )
        return
    mine, theirs = imports[node.domain], merged.get(node.domain)
    if theirs is None or mine == theirs:
        return
    at_function = schemas.schema(node.op_type, mine, node.domain)
    at_model = schemas.schema(node.op_type, theirs, node.domain)
    if at_function is None and at_model is None:
        return  # an operator onnx has no schema for: nothing to compare
    if at_function is None or at_model is None or at_function.since_version != at_model.since_version:
        report.add(
            join(site.path, "domain"),
            FUNCTION_OPSET_COMPATIBLE,
            f"{node.op_type!r} is {_show(at_function)} at the function's opset {mine} of {node.domain!r} "
            f"but {_show(at_model)} at the model's opset {theirs}",
        )


def _show(schema: OpSchema | None) -> str:
    return "unknown" if schema is None else f"version {schema.since_version}"


class _Plan(NamedTuple):
    """What the schema rules make of every node of one kind (domain, op_type) under one set
    of imports: whether it counts as skipped, whether the rules look at it (not without an
    op_type or imports: other rules report those), the one finding of its kind (field,
    rule, message), or the schema to check each node against, read once."""

    skipped: bool
    checked: bool
    finding: tuple[str, Rule, str] | None = None
    schema: OpSchema | None = None
    inputs: _Side | None = None
    outputs: _Side | None = None
    required: tuple[str, ...] = ()
    clean: dict[tuple[str, int], bool] | None = None  # (side, count) -> a count of no finding


def _plan(schemas: Registry, domain: str, op_type: str, imports: _Imports | None) -> _Plan:
    version = None if imports is None else _version_of(domain, imports)
    experimental = domain in (_DEFAULT, _DEFAULT_ALIAS) and op_type in schemas.experimental_ops
    schema = None if version is None else schemas.schema(op_type, version, domain)
    skipped = version is not None and (experimental or (domain not in BUILTIN_DOMAINS and schema is None))
    if imports is None or not op_type:  # node-op-type reports a missing op_type
        return _Plan(skipped, False)
    if version is None:
        if domain == _DEFAULT_ALIAS and _DEFAULT in imports:
            finding = (
                "domain",
                OP_REGISTERED,
                "domain 'ai.onnx' is not imported under that name, and onnx registers the default "
                "domain's operators under ''",
            )
            return _Plan(skipped, True, finding)
        return _Plan(skipped, False)  # otherwise opset-undeclared-domain reports the missing import
    if version < 1 or experimental:
        return _Plan(skipped, False)  # (opset-version reports it, once for the import)
    if schema is None:
        if domain in BUILTIN_DOMAINS:
            where = "''" if domain == _DEFAULT else repr(domain)
            hint = " (onnx registers them under '')" if domain == _DEFAULT_ALIAS else ""
            message = f"no operator {op_type!r} is registered in domain {where} at opset {version}{hint}"
            return _Plan(skipped, True, ("op_type", OP_REGISTERED, message))
        return _Plan(skipped, False)
    if schema.deprecated:
        message = (
            f"{op_type!r} is deprecated at opset {version} of {domain or 'ai.onnx'!r} "
            f"(since version {schema.since_version})"
        )
        return _Plan(skipped, True, ("op_type", OP_DEPRECATED, message))
    inputs, outputs = _sides(schema)
    required = tuple(a.name for a in schema.attributes.values() if a.required)
    return _Plan(skipped, True, None, schema, inputs, outputs, required, {})


def _version_of(domain: str, imports: _Imports) -> int | None:
    if domain in imports:
        return imports[domain]
    if domain == _DEFAULT:
        return imports.get(_DEFAULT_ALIAS)
    return None


def _arity(report: Report, plan: _Plan, site: NodeSite) -> None:
    node = site.node
    assert plan.schema is not None and plan.inputs is not None and plan.outputs is not None
    assert plan.clean is not None
    _side_count(report, plan, site.path, "input", node.input, plan.inputs)
    outputs = node.output
    if outputs:  # node-output reports a node without outputs
        _side_count(report, plan, site.path, "output", outputs, plan.outputs)


def _side_count(
    report: Report,
    plan: _Plan,
    path: str,
    kind: Literal["input", "output"],
    values: Sequence[str],
    side: _Side,
) -> None:
    """:func:`_count` for a node whose count or omitted values may give a finding: whether a
    count does is known once per kind of node."""
    assert plan.schema is not None and plan.clean is not None
    count = len(values)
    clean = plan.clean.get((kind, count))
    if clean is None:
        accepts = plan.schema.accepts_input_count if kind == "input" else plan.schema.accepts_output_count
        clean = plan.clean[kind, count] = accepts(count) and (count <= len(side.params) or side.variadic)
    if not clean or "" in values:
        _count(report, plan.schema, path, kind, list(values), side)


class _Side(NamedTuple):
    """What one side (inputs or outputs) of a schema allows, read once per schema."""

    low: int
    high: int
    params: tuple[FormalParameter, ...]
    variadic: bool  # the last parameter takes any number of values
    singles: frozenset[int]  # positions whose parameter is Single: never omitted ('')


# Per schema (held with it, so that its id stays its own): its two sides. A long graph has
# few operator types and many nodes; the schema's declarations are read once per type.
_SIDES: dict[int, tuple[OpSchema, tuple[_Side, _Side]]] = {}


def _sides(schema: OpSchema) -> tuple[_Side, _Side]:
    found = _SIDES.get(id(schema))
    if found is not None and found[0] is schema:
        return found[1]
    sides = (
        _side(schema.min_input, schema.max_input, schema.inputs),
        _side(schema.min_output, schema.max_output, schema.outputs),
    )
    _SIDES[id(schema)] = (schema, sides)
    return sides


def _side(low: int, high: int, params: tuple[FormalParameter, ...]) -> _Side:
    variadic = bool(params) and params[-1].option == FormalParameterOption.Variadic
    singles = frozenset(i for i, p in enumerate(params) if p.option == FormalParameterOption.Single)
    return _Side(low, high, params, variadic, singles)


def _count(
    report: Report,
    schema: OpSchema,
    path: str,
    kind: Literal["input", "output"],
    values: list[str],
    side: _Side,
) -> None:
    """One side of a node: how many values, and no Single parameter left empty."""
    count, low, high, params = len(values), side.low, side.high, side.params
    accepts = schema.accepts_input_count if kind == "input" else schema.accepts_output_count
    rule, single = (INPUT_COUNT, INPUT_SINGLE) if kind == "input" else (OUTPUT_COUNT, OUTPUT_SINGLE)
    if not accepts(count):
        shown = f"{low}..{high}" if high < _UNBOUNDED else f"{low} or more"
        if low <= count <= high:
            shown += f", but not {count}"
        report.add(path, rule, f"{_label(schema)} has {count} {kind}s; the schema takes {shown}")
    elif count > len(params) and not side.variadic:
        report.add(path, rule, f"{_label(schema)} has {count} {kind}s; the schema declares {len(params)}")
    if "" not in values:
        return  # nothing omitted: the usual node
    for i, value in enumerate(values[: len(params)]):
        if not value and i in side.singles:
            report.add(
                join(path, kind, i),
                single,
                f"{kind} {i} ({params[i].name!r}) of {_label(schema)} is required but omitted ('')",
            )


def _attributes(report: Report, plan: _Plan, site: NodeSite, typed: bool) -> None:
    node, path, schema = site.node, site.path, plan.schema
    assert schema is not None
    given: set[str] = set()
    for j, attribute in enumerate(attributes_of(node)):
        name = attribute.name
        if not name:
            continue  # attribute-name reports it
        given.add(name)
        declared = schema.attributes.get(name)
        if declared is None:
            if not (schema.allows_unchecked_attributes or name.startswith("__")):
                report.add(
                    join(join(path, "attribute", j), "name"),
                    ATTRIBUTE_DECLARED,
                    f"{_label(schema)} has no attribute {name!r}",
                )
            continue
        actual = attribute.type if attribute.HasField("type") else int(_Type.UNDEFINED)
        if actual == _Type.UNDEFINED and typed:
            continue  # attribute-type reports it
        if actual != declared.type:
            report.add(
                join(join(path, "attribute", j), "type"),
                ATTRIBUTE_SCHEMA_TYPE,
                f"attribute {name!r} of {_label(schema)} is {_type_name(actual)}; the schema declares "
                f"{_type_name(declared.type)}",
            )
    missing = [name for name in plan.required if name not in given]
    if missing:
        names = ", ".join(map(repr, missing))
        plural = "s" if len(missing) > 1 else ""
        report.add(
            join(path, "attribute"),
            ATTRIBUTE_REQUIRED,
            f"{_label(schema)} requires attribute{plural} {names}",
        )


def _label(schema: OpSchema) -> str:
    domain = schema.domain or "ai.onnx"
    return f"{schema.name} ({domain} version {schema.since_version})"


def _type_name(type_: int) -> str:
    try:
        return _Type(type_).name
    except ValueError:
        return str(type_)
