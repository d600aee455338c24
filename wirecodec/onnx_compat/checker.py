"""``onnx.checker``: :func:`check_model` and the per-message checks with a checker context.

The per-message functions check one message as :func:`wirecodec.check` checks it inside
a model: the message is placed in a small model made from the context (IR version,
opset imports) and only what is wrong with the message itself is reported — not, for
a lone node, that its inputs come from nowhere. They raise :class:`ValidationError`
(wirecodec's :class:`~wirecodec.CheckError`) as onnx raises its ``ValidationError``.
The rules are the IR rules (docs/checker.md); operator schemas are not checked.

>>> from schema_dsl.onnx import TensorProto
>>> check_tensor(TensorProto(name="t", data_type=TensorProto.FLOAT, dims=[2], float_data=[1.0, 2.0]))
>>> check_tensor(TensorProto(name="t", data_type=TensorProto.FLOAT, dims=[3], float_data=[1.0]))
Traceback (most recent call last):
...
wirecodec.errors.CheckError: the model breaks the ONNX IR specification in 1 place:
  graph.initializer[0].float_data: ... [tensor-size]
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from typing import Final

from schema_dsl.onnx import (
    IR_VERSION,
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    SparseTensorProto,
    TensorProto,
    ValueInfoProto,
)
from wirecodec._helper.versions import DEFAULT_OPSET_VERSION
from wirecodec.checker import Violation, violations
from wirecodec.errors import CheckError

__all__ = [
    "C",
    "DEFAULT_CONTEXT",
    "LEXICAL_SCOPE_CONTEXT",
    "MAXIMUM_PROTOBUF",
    "CheckerContext",
    "LexicalScopeContext",
    "ValidationError",
    "check_attribute",
    "check_function",
    "check_graph",
    "check_model",
    "check_node",
    "check_sparse_tensor",
    "check_tensor",
    "check_value_info",
]

ValidationError = CheckError
"""What the checks raise: onnx's name for it."""

MAXIMUM_PROTOBUF: Final = 2**31
"""The largest serialized message protobuf reads (2 GiB); wirecodec has no such limit."""

# Rules about where a message's names come from: a lone node or value is not in a graph
# that defines them, so these say nothing about the message itself.
_CONTEXT_RULES: Final = frozenset(
    {"undefined-input", "undefined-output", "topological-order", "io-type", "opset-undeclared-domain"}
)


# Rules of wirecodec.check that onnx's checker does not enforce, and which code written
# against onnx relies on: merge_models lists a domain twice (onnxruntime runs such
# models), and before IR 4 a Loop body's initializer is also one of its inputs (the form
# exporters wrote then; onnx accepts it at every IR version).
_ONNX_ACCEPTS: Final = frozenset({"opset-duplicate-domain", "subgraph-input-initializer"})
# onnx's checker does not look at a graph's value_info entries: a name given twice, or an
# elem_type 0 there, passes its check_model (inputs and outputs are still checked).
_VALUE_INFO_ACCEPTS: Final = frozenset({"value-info-unique", "type-elem-type"})


def _onnx_enforces(v: Violation) -> bool:
    if v.rule in _ONNX_ACCEPTS:
        return False
    if v.rule == "ir-version-feature" and v.path == "functions":
        # onnx's check_model accepts model-local functions at every IR version (its
        # data-propagation tests check IR 7 models holding some); IR 8 introduced them
        return False
    if v.rule == "type-elem-type" and v.message.startswith("elem_type "):
        # an elem_type that is set but names no element type (0, UNDEFINED, as onnx's tests
        # declare values they leave to inference): onnx asks only that the field be present
        return False
    return not (v.rule in _VALUE_INFO_ACCEPTS and ".value_info[" in f".{v.path}")


_DEPRECATED = re.compile(r"'(?P<op>[^']*)' is deprecated at opset (?P<version>\d+) ")


def _in_onnx_words(v: Violation) -> Violation:
    """``v`` with onnx's message where code matches on it (``"Upsample is deprecated"``), the
    wirecodec message kept after it."""
    if v.rule == "op-deprecated":
        found = _DEPRECATED.match(v.message)
        if found:
            words = f"Op registered for {found['op']} is deprecated in domain_version of {found['version']}"
            return dataclasses.replace(v, message=f"{words} ({v.message})")
    return v


class CheckerContext:
    """The IR version and opset imports a message is checked under (onnx's ``C.CheckerContext``)."""

    def __init__(self, ir_version: int = IR_VERSION, opset_imports: Mapping[str, int] | None = None) -> None:
        self.ir_version = ir_version
        self.opset_imports: dict[str, int] = dict(opset_imports or {})
        self.model_dir = ""


class LexicalScopeContext:
    """The names visible from an enclosing graph (onnx's ``C.LexicalScopeContext``).

    Accepted for onnx's signatures; the per-message checks do not judge where names come from.
    """


class C:
    """onnx's ``checker.C`` (its compiled checker module): the context classes and the error."""

    CheckerContext = CheckerContext
    LexicalScopeContext = LexicalScopeContext
    ValidationError = CheckError


DEFAULT_CONTEXT: Final = CheckerContext(IR_VERSION, {"": DEFAULT_OPSET_VERSION})
LEXICAL_SCOPE_CONTEXT: Final = LexicalScopeContext()


def _model(
    ctx: CheckerContext, graph: GraphProto, functions: list[FunctionProto] | None = None
) -> ModelProto:
    imports = [
        OperatorSetIdProto(domain=domain, version=version) for domain, version in ctx.opset_imports.items()
    ]
    return ModelProto(ir_version=ctx.ir_version, opset_import=imports, graph=graph, functions=functions or [])


def _raise_for(
    model: ModelProto, under: str, *, lone: bool = True, ignore: frozenset[str] = frozenset()
) -> None:
    """Raise for the violations found at or below field path ``under`` (but those of ``ignore``)."""
    found = [
        v
        for v in violations(model)
        if (v.path == under or v.path.startswith((under + ".", under + "[")))
        and not (lone and v.rule in _CONTEXT_RULES)
        and v.rule not in _ONNX_ACCEPTS | ignore
    ]
    if found:
        raise CheckError([_in_onnx_words(v) for v in found])


def _checked(proto: object, cls: type, where: str) -> None:
    if not isinstance(proto, cls):
        raise TypeError(f"{where}: expected a {cls.__name__}, got {type(proto).__name__}")


def check_value_info(value_info: ValueInfoProto, ctx: CheckerContext = DEFAULT_CONTEXT) -> None:
    """Check a ValueInfoProto (name, complete type)."""
    _checked(value_info, ValueInfoProto, "check_value_info")
    graph = GraphProto(name="g", value_info=[value_info])
    _raise_for(_model(ctx, graph=graph), "graph.value_info[0]")


def check_tensor(tensor: TensorProto, ctx: CheckerContext = DEFAULT_CONTEXT) -> None:
    """Check a TensorProto (data type, dims, the data matching them, external references)."""
    _checked(tensor, TensorProto, "check_tensor")
    graph = GraphProto(name="g", initializer=[tensor])
    # A lone tensor needs no name (an initializer does).
    _raise_for(_model(ctx, graph=graph), "graph.initializer[0]", ignore=frozenset({"initializer-name"}))


def check_sparse_tensor(sparse: SparseTensorProto, ctx: CheckerContext = DEFAULT_CONTEXT) -> None:
    """Check a SparseTensorProto (values, indices, their bounds and order)."""
    _checked(sparse, SparseTensorProto, "check_sparse_tensor")
    graph = GraphProto(name="g", sparse_initializer=[sparse])
    _raise_for(_model(ctx, graph=graph), "graph.sparse_initializer[0]")


def check_attribute(
    attr: AttributeProto,
    ctx: CheckerContext = DEFAULT_CONTEXT,
    lexical_scope_ctx: LexicalScopeContext = LEXICAL_SCOPE_CONTEXT,
) -> None:
    """Check an AttributeProto (name, type, one value in the field its type names, subgraphs)."""
    _checked(attr, AttributeProto, "check_attribute")
    node = NodeProto(op_type="Attribute", output=["o"], attribute=[attr])
    _raise_for(_model(ctx, graph=GraphProto(name="g", node=[node])), "graph.node[0].attribute[0]")


def check_node(
    node: NodeProto,
    ctx: CheckerContext = DEFAULT_CONTEXT,
    lexical_scope_ctx: LexicalScopeContext = LEXICAL_SCOPE_CONTEXT,
) -> None:
    """Check a NodeProto (op_type, outputs, attributes); its inputs may come from anywhere."""
    _checked(node, NodeProto, "check_node")
    _raise_for(_model(ctx, graph=GraphProto(name="g", node=[node])), "graph.node[0]")


def check_function(
    function: FunctionProto,
    ctx: CheckerContext = DEFAULT_CONTEXT,
    lexical_scope_ctx: LexicalScopeContext = LEXICAL_SCOPE_CONTEXT,
) -> None:
    """Check a FunctionProto as a model-local function (its nodes, names and imports)."""
    _checked(function, FunctionProto, "check_function")
    _raise_for(_model(ctx, graph=GraphProto(name="g"), functions=[function]), "functions[0]", lone=False)


def check_graph(
    graph: GraphProto,
    ctx: CheckerContext = DEFAULT_CONTEXT,
    lexical_scope_ctx: LexicalScopeContext = LEXICAL_SCOPE_CONTEXT,
) -> None:
    """Check a GraphProto as the main graph of a model made from the context."""
    _checked(graph, GraphProto, "check_graph")
    _raise_for(_model(ctx, graph=graph), "graph", lone=False)


def check_model(
    model: ModelProto | str | bytes | os.PathLike[str],
    full_check: bool = False,
    skip_opset_compatibility_check: bool = False,
    check_custom_domain: bool = False,
) -> None:
    """Check a model, a path to one, or its serialized bytes: :func:`wirecodec.check` less the
    rules onnx does not enforce (a domain imported twice; a subgraph initializer that is also
    one of its inputs).

    ``full_check`` (onnx: also run shape inference) additionally reads external data to
    verify what it can; the other flags concern operator schemas, which are not checked.
    """
    if isinstance(model, (bytes, bytearray, memoryview)):
        from wirecodec.protobuf.codec import decode

        model = decode(ModelProto, model)
    if not isinstance(model, (ModelProto, str, os.PathLike)):
        raise TypeError(f"check_model: expected a ModelProto, a path or bytes, got {type(model).__name__}")
    found = [v for v in violations(model, full=full_check) if _onnx_enforces(v)]
    if found and all(v.rule == "shape-inference" for v in found):
        # onnx's full check fails there with shape_inference.InferenceError
        from wirecodec.onnx_compat.shape_inference import FullCheckInferenceError

        raise FullCheckInferenceError(found)
    if found:
        raise CheckError([_in_onnx_words(v) for v in found])
