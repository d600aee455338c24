"""IR versions and operator set imports (IR.md, "Operator Sets"; onnx.proto, ``Version``).

A model may use only what its ``ir_version`` defines: the history in onnx.proto's
``Version`` enum says which IR version introduced each field and element type.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Final

from schema_dsl.onnx import IR_VERSION, ModelProto, OperatorSetIdProto, TensorProto, ValueInfoProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import AttributeSite, GraphSite, ModelSites, NodeSite
from wirecodec.protobuf.fieldpath import join
from wirecodec.protobuf.lazy import elements

if TYPE_CHECKING:
    from wirecodec.checker.values import GraphValues

__all__ = ["RULES", "VALUE_FEATURES_UNTIL", "OpsetNodes", "check_opsets", "graph_features", "value_features"]

IR_VERSION_KNOWN = Rule(
    "ir-version-known", "onnx.proto: Version", f"ir_version is one of the published versions 1..{IR_VERSION}"
)
IR_VERSION_FEATURE = Rule(
    "ir-version-feature",
    "onnx.proto: Version",
    "the model uses only fields and element types its ir_version defines",
)
OPSET_IMPORT_REQUIRED = Rule(
    "opset-import-required",
    "onnx.proto: ModelProto.opset_import",
    "a model of IR version 3 or later imports at least one operator set",
)
OPSET_VERSION = Rule(
    "opset-version",
    "onnx.proto: OperatorSetIdProto.version",
    "every imported operator set has a version >= 1",
)
OPSET_DUPLICATE_DOMAIN = Rule(
    "opset-duplicate-domain",
    "IR.md: Operator Sets",
    "a domain is imported once per model or function ('' and 'ai.onnx' are the same domain)",
)
OPSET_UNDECLARED_DOMAIN = Rule(
    "opset-undeclared-domain",
    "IR.md: Operator Sets",
    "every node's domain is imported by the model (or, in a function body, by the function)",
)

RULES = (
    IR_VERSION_KNOWN,
    IR_VERSION_FEATURE,
    OPSET_IMPORT_REQUIRED,
    OPSET_VERSION,
    OPSET_DUPLICATE_DOMAIN,
    OPSET_UNDECLARED_DOMAIN,
)

_DataType = TensorProto.DataType
# The IR version that introduced each element type (onnx.proto, Version).
_TYPE_SINCE: Final[dict[int, int]] = {
    int(_DataType.BFLOAT16): 4,
    int(_DataType.FLOAT8E4M3FN): 9,
    int(_DataType.FLOAT8E4M3FNUZ): 9,
    int(_DataType.FLOAT8E5M2): 9,
    int(_DataType.FLOAT8E5M2FNUZ): 9,
    int(_DataType.UINT4): 10,
    int(_DataType.INT4): 10,
    int(_DataType.FLOAT4E2M1): 11,
    int(_DataType.FLOAT8E8M0): 12,
    int(_DataType.UINT2): 13,
    int(_DataType.INT2): 13,
    int(_DataType.FLOAT6E2M3): 14,
    int(_DataType.FLOAT6E3M2): 14,
}
_DEFAULT_DOMAINS: Final = ("", "ai.onnx")
VALUE_FEATURES_UNTIL: Final = 10
"""The newest IR version a value's feature needs (:func:`value_features`): a model of this
IR version or later has nothing to find in its values, and they need not be read for it."""
# The newest IR version a node, attribute or tensor feature needs (_features' loops).
_NEWEST_FEATURE: Final = max(11, *_TYPE_SINCE.values())


def _domain_key(domain: str) -> str:
    return "" if domain in _DEFAULT_DOMAINS else domain


def check_opsets(
    sites: ModelSites,
    report: Report,
    values: dict[str, GraphValues],
    streamed: OpsetNodes | None = None,
) -> None:
    """Report IR-version and opset-import violations; ``values``: every graph's values read
    once (:func:`wirecodec.checker.values.read_values`, which reads this module's rules: the
    caller reads them, so neither module imports the other's way back);
    ``streamed``: the node and attribute rules run as the walk met each (the walk then
    listed only functions' nodes and attributes), else the listed ones are looked at here."""
    model = sites.model
    ir = model.ir_version if model.HasField("ir_version") else None
    if ir is not None and not 1 <= ir <= IR_VERSION:
        report.add(
            "ir_version", IR_VERSION_KNOWN, f"ir_version {ir} is not a published IR version (1..{IR_VERSION})"
        )
    if ir is not None and ir >= 3 and not model.opset_import:
        report.add(
            "opset_import",
            OPSET_IMPORT_REQUIRED,
            f"IR version {ir} requires opset_import; the model has none",
        )
    model_domains = _imports(report, "", model.opset_import)
    function_domains = [
        _imports(report, join("", "functions", i), f.opset_import) for i, f in enumerate(model.functions)
    ]
    if streamed is None:
        streamed = OpsetNodes(model, model_domains, function_domains)
        for site in sites.nodes:
            streamed.node(site)
        for attribute_site in sites.attributes:
            streamed.attribute(attribute_site)
    report.violations += streamed.domains.violations
    if ir is not None and ir >= 1:
        _features(sites, report, ir, values, streamed)


class OpsetNodes:
    """The rules of this family on each node and attribute (:class:`wirecodec.checker.walk.SiteRules`):
    its domain is imported (``domains``), and the IR-version features of nodes and attributes
    (``node_features``, ``attribute_features``), looked at only below the newest feature's IR
    version. ``model_domains`` and ``function_domains``: what the model and each function
    import (read from the model, without findings, when not given)."""

    def __init__(
        self,
        model: ModelProto,
        model_domains: set[str] | None = None,
        function_domains: list[set[str]] | None = None,
    ) -> None:
        ir = model.ir_version if model.HasField("ir_version") else None
        functions = list(model.functions)
        if model_domains is None or function_domains is None:
            unheard = Report()
            model_domains = _imports(unheard, "", model.opset_import)
            function_domains = [_imports(unheard, "", f.opset_import) for f in functions]
        self.model_domains = model_domains
        # Held with their functions, so that an id stays its function's while this lives.
        self.by_function = {id(f): (f, d) for f, d in zip(functions, function_domains, strict=True)}
        self.imported = bool(model.opset_import)
        self.undeclared = ir is None or ir >= 3
        self.ir = ir if ir is not None and 1 <= ir < _NEWEST_FEATURE else None
        self.domains, self.node_features, self.attribute_features = Report(), Report(), Report()

    def node(self, site: NodeSite) -> None:
        if self.undeclared and (site.function is not None or self.imported):
            # (no import at all is one finding, opset-import-required, not one per node)
            function = site.function
            domains = self.model_domains if function is None else self.by_function[id(function)][1]
            if _domain_key(site.node.domain) not in domains:
                where = "model" if site.function is None else "function"
                self.domains.add(
                    join(site.path, "domain"),
                    OPSET_UNDECLARED_DOMAIN,
                    f"domain {site.node.domain!r} (of {site.node.op_type!r}) is not imported by the {where}",
                )
        if self.ir is not None:
            _node_features(self.node_features, self.ir, site)

    def attribute(self, site: AttributeSite) -> None:
        if self.ir is not None:
            attribute = site.attribute
            # elements(): mostly unset, and reading it would store an empty list
            if attribute.HasField("sparse_tensor") or elements(attribute, "sparse_tensors"):
                _since(self.attribute_features, self.ir, 6, site.path, "a sparse tensor attribute")


def _imports(report: Report, owner: str, imports: Iterable[OperatorSetIdProto]) -> set[str]:
    """Check the ``opset_import`` list of the model (``owner`` "") or of a function."""
    seen: dict[str, str] = {}
    for i, opset in enumerate(imports):
        where = join(owner, "opset_import", i)
        if not opset.HasField("version") or opset.version < 1:
            shown = opset.version if opset.HasField("version") else "no version"
            report.add(join(where, "version"), OPSET_VERSION, f"operator set {opset.domain!r} has {shown}")
        key = _domain_key(opset.domain)
        if key in seen:
            report.add(
                join(where, "domain"),
                OPSET_DUPLICATE_DOMAIN,
                f"domain {opset.domain!r} is already imported at {seen[key]}",
            )
        else:
            seen[key] = where
    return set(seen)


def _since(report: Report, ir: int, version: int, path: str, what: str) -> None:
    if ir < version:
        report.add(path, IR_VERSION_FEATURE, f"{what} needs IR version {version}; the model has {ir}")


def value_features(report: Report, ir: int, where: str, value: ValueInfoProto) -> None:
    """The IR-version features of one value at ``where``: an optional or sparse tensor type
    (IR 8), metadata (IR 10); nothing to find from IR :data:`VALUE_FEATURES_UNTIL` on."""
    which = value.type.WhichOneof("value") if value.HasField("type") else None
    if which in ("optional_type", "sparse_tensor_type"):
        _since(report, ir, 8, join(join(where, "type"), which), which)
    if elements(value, "metadata_props"):  # mostly unset: reading it would store an empty list
        _since(report, ir, 10, join(where, "metadata_props"), "metadata_props on a value")


def _node_features(report: Report, ir: int, site: NodeSite) -> None:
    node, path = site.node, site.path
    if node.domain:
        _since(report, ir, 3, join(path, "domain"), "a node domain")
    if node.overload:
        _since(report, ir, 10, join(path, "overload"), "overload")
    # elements(): these lists are mostly unset, and reading one would store an empty list
    if elements(node, "metadata_props"):
        _since(report, ir, 10, join(path, "metadata_props"), "metadata_props on a node")
    if elements(node, "device_configurations"):
        _since(report, ir, 11, join(path, "device_configurations"), "device_configurations")


def graph_features(report: Report, ir: int, site: GraphSite) -> None:
    """The IR-version features of a graph's own fields (not of its values)."""
    graph, path = site.graph, site.path
    # elements(): mostly unset, and reading one would store an empty list
    if elements(graph, "quantization_annotation"):
        _since(report, ir, 5, join(path, "quantization_annotation"), "quantization_annotation")
    if elements(graph, "sparse_initializer"):
        _since(report, ir, 6, join(path, "sparse_initializer"), "sparse_initializer")
    if elements(graph, "metadata_props"):
        _since(report, ir, 10, join(path, "metadata_props"), "metadata_props on a graph")


def _features(
    sites: ModelSites,
    report: Report,
    ir: int,
    values: dict[str, GraphValues],
    streamed: OpsetNodes,
) -> None:
    def since(version: int, path: str, what: str) -> None:
        _since(report, ir, version, path, what)

    model = sites.model
    if model.opset_import:
        since(3, "opset_import", "opset_import")
    if model.training_info:
        since(7, "training_info", "training_info")
    if model.functions:
        since(8, "functions", "model-local functions")
    if model.configuration:
        since(11, "configuration", "configuration")
    for i, function in enumerate(model.functions):
        if function.attribute_proto:
            since(9, f"functions[{i}].attribute_proto", "attribute defaults (attribute_proto)")
        if function.overload:
            since(10, f"functions[{i}].overload", "overload")
        if function.metadata_props:
            since(10, f"functions[{i}].metadata_props", "metadata_props on a function")
    for graph_values in values.values():  # each graph's own fields and values
        report.violations += graph_values.features.violations
    if ir >= _NEWEST_FEATURE:
        return  # every feature below is one this IR version has: a long graph's loops skipped
    report.violations += streamed.node_features.violations + streamed.attribute_features.violations
    for tensor_site in sites.tensors:
        tensor, path = tensor_site.tensor, tensor_site.path
        version = _TYPE_SINCE.get(tensor.data_type)
        if version is not None:
            since(version, join(path, "data_type"), f"element type {_DataType(tensor.data_type).name}")
        if elements(tensor, "metadata_props"):
            since(10, join(path, "metadata_props"), "metadata_props on a tensor")
