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
from collections.abc import Iterable
from typing import Final, Literal, NamedTuple

from schema_dsl.onnx import AttributeProto, ModelProto, NodeProto, OperatorSetIdProto
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


def _version(node: NodeProto, imports: _Imports) -> int | None:
    if node.domain in imports:
        return imports[node.domain]
    if node.domain == _DEFAULT:
        return imports.get(_DEFAULT_ALIAS)
    return None


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

    def node(self, site: NodeSite) -> None:
        imports: _Imports | None
        if site.function is None:
            imports = self.model_imports
        else:
            imports = self.function_imports[self.positions[id(site.function)][1]]
            if not self.skipped_only and _FUNCTION_NODE.fullmatch(site.path):
                _compatibility(self.report, self.schemas, site, imports, self.merged)
        node = site.node
        version = None if imports is None else _version(node, imports)
        if version is not None and (
            _experimental(self.schemas, node)
            or (
                node.domain not in BUILTIN_DOMAINS
                and self.schemas.schema(node.op_type, version, node.domain) is None
            )
        ):
            self.skipped[node.domain] += 1
        if not self.skipped_only and imports is not None and node.op_type:
            # (node-op-type reports a missing op_type)
            _node(self.report, self.schemas, site, imports, typed=self.typed)

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


def _experimental(schemas: Registry, node: NodeProto) -> bool:
    return node.domain in (_DEFAULT, _DEFAULT_ALIAS) and node.op_type in schemas.experimental_ops


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


def _node(report: Report, schemas: Registry, site: NodeSite, imports: _Imports, *, typed: bool) -> None:
    """One node's schema rules; ``typed``: the IR rule attribute-type already wants every attribute typed."""
    node, path = site.node, site.path
    version = _version(node, imports)
    if version is None:
        if node.domain == _DEFAULT_ALIAS and _DEFAULT in imports:
            report.add(
                join(path, "domain"),
                OP_REGISTERED,
                "domain 'ai.onnx' is not imported under that name, and onnx registers the default "
                "domain's operators under ''",
            )
        return  # otherwise opset-undeclared-domain reports the missing import
    if version < 1:
        return  # opset-version reports it, once for the import rather than once per node
    if _experimental(schemas, node):
        return
    schema = schemas.schema(node.op_type, version, node.domain)
    if schema is None:
        if node.domain in BUILTIN_DOMAINS:
            where = "''" if node.domain == _DEFAULT else repr(node.domain)
            hint = " (onnx registers them under '')" if node.domain == _DEFAULT_ALIAS else ""
            report.add(
                join(path, "op_type"),
                OP_REGISTERED,
                f"no operator {node.op_type!r} is registered in domain {where} at opset {version}{hint}",
            )
        return
    if schema.deprecated:
        report.add(
            join(path, "op_type"),
            OP_DEPRECATED,
            f"{node.op_type!r} is deprecated at opset {version} of {node.domain or 'ai.onnx'!r} "
            f"(since version {schema.since_version})",
        )
        return
    _arity(report, schema, site)
    _attributes(report, schema, site, typed)


def _arity(report: Report, schema: OpSchema, site: NodeSite) -> None:
    node = site.node
    inputs, outputs = _sides(schema)
    _count(report, schema, site.path, "input", list(node.input), inputs)
    if node.output:  # node-output reports a node without outputs
        _count(report, schema, site.path, "output", list(node.output), outputs)


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


def _attributes(report: Report, schema: OpSchema, site: NodeSite, typed: bool) -> None:
    node, path = site.node, site.path
    given: set[str] = set()
    for j, attribute in enumerate(attributes_of(node)):
        name, where = attribute.name, join(path, "attribute", j)
        if not name:
            continue  # attribute-name reports it
        given.add(name)
        declared = schema.attributes.get(name)
        if declared is None:
            if not (schema.allows_unchecked_attributes or name.startswith("__")):
                report.add(
                    join(where, "name"), ATTRIBUTE_DECLARED, f"{_label(schema)} has no attribute {name!r}"
                )
            continue
        actual = attribute.type if attribute.HasField("type") else int(_Type.UNDEFINED)
        if actual == _Type.UNDEFINED and typed:
            continue  # attribute-type reports it
        if actual != declared.type:
            report.add(
                join(where, "type"),
                ATTRIBUTE_SCHEMA_TYPE,
                f"attribute {name!r} of {_label(schema)} is {_type_name(actual)}; the schema declares "
                f"{_type_name(declared.type)}",
            )
    missing = [a.name for a in schema.attributes.values() if a.required and a.name not in given]
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
