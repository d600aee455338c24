"""``rt_nodes_``: the compiled steps of an evaluator seen as onnx's ``OpRun`` instances.

Code written against ``onnx.reference`` reads ``sess.rt_nodes_``: one object per node, of a
class named ``<op_type>_<since_version>`` (the schema version in effect), with the node's
attributes (schema defaults included) as instance attributes, a subgraph attribute as a
:class:`~wirecodec.reference.ReferenceEvaluator` of that graph, ``_schema``, and ``run``.
A class taken from there and subclassed can be given back in ``new_ops=``: it runs the
node with our implementation. A call of a model-local function is an ``OpFunction`` whose
``impl_`` is an evaluator of the function's body.
"""

from __future__ import annotations

import functools
from typing import Any

from wirecodec.reference.op_run import OpRun


class OperatorView(OpRun):
    """One node run by the evaluator's implementation of its operator (see the module)."""

    op_type = ""
    op_version = 0
    # whether the node (or a node of its subgraphs) reads an attribute of the calling function
    has_linked_attribute = False

    @property
    def _schema(self) -> Any:
        from wirecodec import defs

        return defs.get_schema(self.op_type, self._version(), self.op_domain)

    def _version(self) -> int:
        opsets = self.run_params.get("opsets") or {}
        return int(opsets.get(self.op_domain, self.op_version))

    def run(self, *args: Any) -> Any:
        """The node's outputs on ``args`` (None: an absent optional input)."""
        return run_alone(self.onnx_node, self.op_type, self.op_domain, self._version(), args)


def run_alone(node: Any, op_type: str, domain: str, version: int, args: tuple[Any, ...]) -> tuple[Any, ...]:
    """``node`` (as ``op_type`` of ``domain`` at ``version``) run by itself on ``args``, its
    inputs in order (None: an absent optional input): its outputs."""
    from wirecodec import helper
    from wirecodec.reference._evaluator import ReferenceEvaluator

    names = [name if value is not None else "" for name, value in zip(node.input, args, strict=False)]
    while names and not names[-1]:
        names.pop()
    single = helper.make_node(op_type, names, list(node.output), domain=domain or None)
    single.attribute.extend(node.attribute)
    evaluator = ReferenceEvaluator(single, opsets={domain: version})
    feeds = {name: value for name, value in zip(node.input, args, strict=False) if value is not None}
    return tuple(evaluator.run(None, feeds))


@functools.cache
def operator_view(domain: str, op_type: str, since: int) -> type[OperatorView]:
    """The class of ``op_type``'s nodes whose schema version in effect is ``since``."""
    fields = {"op_domain": domain, "op_type": op_type, "op_version": since}
    return type(f"{op_type}_{since}", (OperatorView,), fields)


class OpFunction(OpRun):
    """A call of a model-local function: ``impl_`` evaluates the function's body."""

    def __init__(
        self, onnx_node: Any, run_params: dict[str, Any], impl: Any, attributes: dict[str, Any]
    ) -> None:
        super().__init__(onnx_node, run_params, attributes)
        self.impl_ = impl


def linked(node: Any) -> bool:
    """Whether a node (or a node of one of its subgraphs) reads an attribute of its caller."""
    for attribute in node.attribute:
        if attribute.ref_attr_name:
            return True
        graphs = [attribute.g] if attribute.HasField("g") else []
        graphs.extend(attribute.graphs)
        if any(linked(inner) for graph in graphs for inner in graph.node):
            return True
    return False
