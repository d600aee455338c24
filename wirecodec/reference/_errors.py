"""The evaluator's errors: each an :class:`~wirecodec.errors.EvaluationError` (so it names the
node) and the builtin that code written against ``onnx.reference`` catches."""

from __future__ import annotations

from wirecodec.errors import EvaluationError


class ShapeAnnotationError(EvaluationError, RuntimeError):
    """A value's runtime shape or element type breaks the model's annotation of it
    (``check_shape_annotations=True``)."""


class UnknownOperatorError(EvaluationError, NotImplementedError):
    """No implementation, custom operator, local function or schema body runs this node."""


class UnsupportedSourceError(EvaluationError, TypeError):
    """The evaluator was given something it cannot run (not a model, graph, function, node,
    path or bytes)."""


class CustomOperatorError(EvaluationError, TypeError):
    """A class given in ``new_ops`` is not an ``OpRun``, or its ``_run`` returned something
    other than a tuple of values (arrays, sequences, maps, or None)."""
