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


class InputTypeError(EvaluationError, TypeError):
    """An input's element type is not one the operator's schema takes, nor of a kind it takes
    (an integer to an operator of floats): a ``TypeError``, as onnx's evaluator raises. Its
    ``__cause__`` says which kind of input the operator does not support."""


class OperatorError(EvaluationError, TypeError):
    """An operator refused its inputs (a ``TypeError`` or ``ValueError`` inside it: a shape
    that does not fit, an integer to a logarithm): a ``TypeError`` too, as onnx's
    ``OpRun.run`` re-raises those; the operator's own exception is the ``__cause__``."""


class UndefinedOutputError(EvaluationError, RuntimeError):
    """An output the operator's definition leaves open for these inputs, which onnx's
    evaluator and onnxruntime refuse too (a Scan of zero iterations: its scan outputs'
    element shape and type are known only by running the body): a ``RuntimeError``, as
    onnx's evaluator raises."""
