"""``onnx.reference.ops``: ``load_op``, one operator of the evaluator as a class.

The submodules answer the private names onnx's own evaluator tests import
(``_op_list``, ``op_conv``, ``op_celu``, ``op_col2im``, ``op_attention``,
``_op_common_indices``, ``aionnxml.op_tree_ensemble``, ``aionnx_preview_training._op_list``):
each name runs wirecodec's implementation, none is onnx's code.

``load_op(domain, op_type, version)`` gives a class with onnx's ``OpRun`` class methods
``make_node``, ``create`` and ``eval`` (``eval(*inputs, n_outputs=None, **attributes)`` runs
the operator once: one output is returned alone, several as a tuple), backed by
:mod:`wirecodec.reference`'s implementation in effect at ``version``. As onnx's, it serves
the main domain only (``ValueError`` for another, ``"ai.onnx"`` included) and refuses an
operator the evaluator has no implementation of (``NotImplementedError``), so a library that
folds constants with it (onnxscript's optimizer) folds what it folds on onnx.

>>> import numpy as np
>>> from wirecodec.onnx_compat.reference.ops import load_op
>>> load_op("", "Add").eval(np.array([1.0]), np.array([2.0]))
array([3.])
>>> [int(v) for v in load_op("", "TopK", 18).eval(np.array([3.0, 1.0, 2.0]), np.array([2]))[1]]
[0, 2]
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["load_op"]

# onnx's private module names under onnx.reference.ops -> the module of ours answering each
PRIVATE = {
    "_op_list": "operators",
    "op_conv": "conv",
    "op_celu": "celu",
    "op_col2im": "col2im",
    "op_attention": "attention",
    "_op_common_indices": "indices",
}


def __getattr__(name: str) -> Any:
    if name in PRIVATE:
        return importlib.import_module(f"{__name__}._names.{PRIVATE[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _LoadedOp:
    """An operator of the evaluator dressed as onnx's ``OpRun`` subclass (made by :func:`load_op`)."""

    op_domain = ""
    op_type = ""
    op_version = 0

    def __init__(self, onnx_node: Any, run_params: dict[str, Any] | None = None) -> None:
        self.onnx_node = onnx_node
        self.run_params = run_params or {}
        from wirecodec.reference._values import attribute_value

        for attribute in onnx_node.attribute:  # as onnx's OpRun: each attribute is an instance attribute
            setattr(self, attribute.name, attribute_value(attribute))

    @classmethod
    def make_node(cls, n_inputs: int | None = None, n_outputs: int | None = None, **kwargs: Any) -> Any:
        """A node of this operator on inputs ``x0..`` and outputs ``y0..`` (counts default to
        the schema's minimum), ``kwargs`` its attributes."""
        from wirecodec import defs, helper

        schema = None
        if n_inputs is None or n_outputs is None:
            schema = defs.get_schema(cls.op_type, cls.op_version, cls.op_domain)
        if n_inputs is None:
            n_inputs = schema.min_input if schema is not None else 0
        if n_outputs is None:
            n_outputs = schema.min_output if schema is not None else 1
        return helper.make_node(
            cls.op_type,
            [f"x{i}" for i in range(n_inputs)],
            [f"y{i}" for i in range(n_outputs)],
            domain=cls.op_domain or None,
            **kwargs,
        )

    @classmethod
    def create(
        cls, n_inputs: int | None = None, n_outputs: int | None = None, verbose: int = 0, **kwargs: Any
    ) -> _LoadedOp:
        """An instance holding the node :meth:`make_node` makes."""
        return cls(cls.make_node(n_inputs, n_outputs, **kwargs), {"verbose": verbose})

    @classmethod
    def eval(cls, *args: Any, n_outputs: int | None = None, verbose: int = 0, **kwargs: Any) -> Any:
        """Run the operator once on ``args`` with attributes ``kwargs``."""
        result = cls.create(len(args), n_outputs=n_outputs, verbose=verbose, **kwargs).run(*args)
        return result[0] if len(result) == 1 else result

    def run(self, *args: Any, **_: Any) -> tuple[Any, ...]:
        """The node's outputs on inputs ``args`` (None: an absent optional input)."""
        from wirecodec.reference._nodes import run_alone

        node = self.onnx_node
        return run_alone(node, node.op_type, self.op_domain, self.op_version, args)


def load_op(
    domain: str,
    op_type: str,
    version: int | None = None,
    custom: Any = None,
    node: Any = None,
    input_types: Any = None,
    expand: bool = False,
    evaluator_cls: type | None = None,
) -> Any:
    """The class running ``op_type`` of ``domain`` at opset ``version`` (default: the latest).

    ``custom`` (a callable) is returned wrapped as onnx does; ``node``, ``input_types``,
    ``expand`` and ``evaluator_cls`` are accepted for onnx's signature.
    """
    from wirecodec import defs
    from wirecodec.reference import _registry

    if custom is not None:
        return lambda *args: custom(*args)
    if version is None:
        version = defs.onnx_opset_version()
    if domain != "":
        raise ValueError(f"Domain must be '' not {domain!r}.")
    _registry.load_all()
    if _registry.lookup(domain, op_type, version) is None:
        raise NotImplementedError(
            f"No registered implementation for operator {op_type!r} and domain {domain!r} "
            f"at opset {version} in wirecodec's evaluator."
        )
    return loaded(domain, op_type, version)


def loaded(domain: str, op_type: str, version: int, name: str | None = None) -> type[_LoadedOp]:
    """The class of ``op_type`` at ``version`` (any domain; ``name``: the class name, default the type)."""
    fields = {"op_domain": domain, "op_type": op_type, "op_version": version}
    return type(name or op_type, (_LoadedOp,), fields)
