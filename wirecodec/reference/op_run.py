"""``OpRun``: the base of a custom operator, as ``onnx.reference.op_run.OpRun``.

Subclass it, set ``op_domain``, name the class as the operator and implement
``_run(self, *inputs, **attributes)`` returning a tuple of outputs; pass the class in
``new_ops=`` to :class:`~wirecodec.reference.ReferenceEvaluator`. The node's
attributes are also set as instance attributes.
"""

from __future__ import annotations

import inspect
from typing import Any

from wirecodec.reference._values import attribute_value


class OpRun:
    """Base class of operators given to the evaluator through ``new_ops``."""

    op_domain = ""

    def __init__(
        self, onnx_node: Any, run_params: dict[str, Any], attributes: dict[str, Any] | None = None
    ) -> None:
        self.onnx_node = onnx_node
        self.run_params = run_params
        if attributes is None:
            attributes = {a.name: attribute_value(a) for a in onnx_node.attribute}
        self._attributes = dict(attributes)
        for name, value in attributes.items():
            setattr(self, name, value)
        parameters = inspect.signature(self._run).parameters
        self._takes = {
            name
            for name, p in parameters.items()
            if p.kind in (inspect.Parameter.KEYWORD_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)
        }
        self._takes_all = any(p.kind == inspect.Parameter.VAR_KEYWORD for p in parameters.values())

    def _run(self, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__} does not implement _run")

    def __str__(self) -> str:
        node = self.onnx_node
        ends = f"{', '.join(node.input)} -> {', '.join(node.output)}"
        return f"{type(self).__name__}(op_type={node.op_type}, domain={node.domain or ''!r}): {ends}"

    def run(self, *args: Any) -> Any:
        """Run the operator: the node's attributes go to ``_run`` by name where it takes them."""
        kwargs = {
            name: value for name, value in self._attributes.items() if self._takes_all or name in self._takes
        }
        result = self._run(*args, **kwargs)
        return tuple(result) if isinstance(result, list) else result


class OpRunExpand(OpRun):
    """Given in ``new_ops``, a subclass named as an operator makes the evaluator run that
    operator's function body (from its schema) instead of its implementation."""

    expand_ = True

    def _run(self, *args: Any, **kwargs: Any) -> tuple[Any, ...]:
        raise NotImplementedError(f"{type(self).__name__} should be expanded into its function body")
