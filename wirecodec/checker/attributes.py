"""Attributes: a name, a type, and exactly the one value field the type names (IR.md, "Attributes")."""

from __future__ import annotations

from typing import Final

from schema_dsl.onnx import AttributeProto, ModelProto
from wirecodec.checker.functions import function_attributes
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import AttributeSite, ModelSites, NodeSite, attributes_of
from wirecodec.protobuf.fieldpath import join

__all__ = ["RULES", "VALUE_FIELDS", "AttributeRules", "check_attributes"]

ATTRIBUTE_NAME = Rule("attribute-name", "onnx.proto: AttributeProto.name", "every attribute has a name")
ATTRIBUTE_UNIQUE = Rule("attribute-unique", "IR.md: Attributes", "attribute names are unique within a node")
ATTRIBUTE_TYPE = Rule(
    "attribute-type",
    "onnx.proto: AttributeProto.type",
    "from IR version 2 on every attribute has a type, a defined AttributeType other than UNDEFINED",
)
ATTRIBUTE_VALUE = Rule(
    "attribute-value",
    "IR.md: Attributes",
    "an attribute carries exactly one value, in the field its type names (a list may be empty)",
)
ATTRIBUTE_REF = Rule(
    "attribute-ref",
    "onnx.proto: AttributeProto.ref_attr_name",
    "ref_attr_name appears only inside function bodies, names an attribute of the function "
    "and carries no value",
)

RULES = (ATTRIBUTE_NAME, ATTRIBUTE_UNIQUE, ATTRIBUTE_TYPE, ATTRIBUTE_VALUE, ATTRIBUTE_REF)

_Type = AttributeProto.AttributeType
# The field holding each type's value; the list types are the repeated fields.
VALUE_FIELDS: Final[dict[int, str]] = {
    int(_Type.FLOAT): "f",
    int(_Type.INT): "i",
    int(_Type.STRING): "s",
    int(_Type.TENSOR): "t",
    int(_Type.GRAPH): "g",
    int(_Type.SPARSE_TENSOR): "sparse_tensor",
    int(_Type.TYPE_PROTO): "tp",
    int(_Type.FLOATS): "floats",
    int(_Type.INTS): "ints",
    int(_Type.STRINGS): "strings",
    int(_Type.TENSORS): "tensors",
    int(_Type.GRAPHS): "graphs",
    int(_Type.SPARSE_TENSORS): "sparse_tensors",
    int(_Type.TYPE_PROTOS): "type_protos",
}
_REPEATED: Final = frozenset(
    name for name in VALUE_FIELDS.values() if AttributeProto.__schema__.by_name[name].repeated
)


def check_attributes(sites: ModelSites, report: Report, streamed: AttributeRules | None = None) -> None:
    """Report attribute violations: names, types, values and references; ``streamed``: the
    rules run as the walk met each node and attribute (the walk then listed only functions'
    nodes and attributes), else the listed ones are looked at here."""
    if streamed is None:
        streamed = AttributeRules(sites.model)
        for site in sites.attributes:
            streamed.attribute(site)
        for node_site in sites.nodes:
            streamed.node(node_site)
    report.violations += streamed.each.violations + streamed.unique.violations


class AttributeRules:
    """The rules of this family on each attribute (``each``) and on each node's attribute
    names (``unique``): a :class:`wirecodec.checker.walk.SiteRules`."""

    def __init__(self, model: ModelProto) -> None:
        self.ir = model.ir_version if model.HasField("ir_version") else None
        self.each, self.unique = Report(), Report()

    def attribute(self, site: AttributeSite) -> None:
        _attribute(self.each, site, self.ir)

    def node(self, site: NodeSite) -> None:
        attributes = attributes_of(site.node)
        if len(attributes) < 2:
            return  # nothing to repeat: most nodes
        seen: dict[str, int] = {}
        for i, attribute in enumerate(attributes):
            if attribute.name in seen:
                self.unique.add(
                    join(join(site.path, "attribute", i), "name"),
                    ATTRIBUTE_UNIQUE,
                    f"attribute {attribute.name!r} is already given at attribute[{seen[attribute.name]}]",
                )
            elif attribute.name:
                seen[attribute.name] = i


_VALUE_NAMES: Final = frozenset(VALUE_FIELDS.values())


def _present(attribute: AttributeProto) -> list[str]:
    """The value fields ``attribute`` carries, in field-number order: one ListFields (which
    skips empty lists and stores nothing) instead of a look per value field."""
    return [spec.name for spec, _ in attribute.ListFields() if spec.name in _VALUE_NAMES]


def _attribute(report: Report, site: AttributeSite, ir: int | None) -> None:
    attribute, path = site.attribute, site.path
    name = attribute.name
    if not name:
        report.add(join(path, "name"), ATTRIBUTE_NAME, "the attribute has no name")
    present = _present(attribute)
    kind = attribute.type if attribute.HasField("type") else int(_Type.UNDEFINED)
    expected = VALUE_FIELDS.get(kind)
    reference = attribute.ref_attr_name
    if (
        not reference
        and expected is not None
        and (present == [expected] or (not present and expected in _REPEATED))
    ):
        return  # the usual attribute: typed, carrying its type's field (no message made for it)
    label = f"attribute {name!r}"
    if reference:
        if site.function is None:
            report.add(
                join(path, "ref_attr_name"),
                ATTRIBUTE_REF,
                f"{label} refers to a function attribute outside a function",
            )
        elif reference not in function_attributes(site.function):
            report.add(
                join(path, "ref_attr_name"),
                ATTRIBUTE_REF,
                f"{label} refers to {reference!r}, which function {site.function.name!r} does not declare",
            )
        if present:
            report.add(
                join(path, present[0]),
                ATTRIBUTE_REF,
                f"{label} is a reference but also carries {', '.join(present)}",
            )
    if kind == _Type.UNDEFINED:
        if ir is None or ir >= 2:
            report.add(join(path, "type"), ATTRIBUTE_TYPE, f"{label} has no type")
        elif len(present) > 1:
            report.add(
                join(path, present[1]), ATTRIBUTE_VALUE, f"{label} carries {', '.join(present)}; one at most"
            )
        return
    if expected is None:
        report.add(join(path, "type"), ATTRIBUTE_TYPE, f"{label} has type {kind}, not an AttributeType")
        return
    if reference:
        return
    type_name = _Type(kind).name
    for field_name in present:
        if field_name != expected:
            report.add(
                join(path, field_name),
                ATTRIBUTE_VALUE,
                f"{label} of type {type_name} also carries {field_name}",
            )
    if expected not in _REPEATED and expected not in present:
        report.add(join(path, expected), ATTRIBUTE_VALUE, f"{label} of type {type_name} has no {expected}")
