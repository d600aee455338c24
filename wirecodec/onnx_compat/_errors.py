"""Errors that are both wirecodec's and the class onnx raises for the same refusal."""

from __future__ import annotations

from wirecodec.errors import CheckError, ExternalDataError

__all__ = ["ExternalDataValidationError"]


class ExternalDataValidationError(ExternalDataError, CheckError):
    """External data onnx refuses with ``checker.ValidationError`` or ``ValueError``.

    It is an :class:`~wirecodec.ExternalDataError` (an ``OSError``), as wirecodec raises,
    and a :class:`~wirecodec.CheckError` (onnx_compat's ``checker.ValidationError``, a
    ``ValueError``), as onnx raises: ``except`` clauses written for either catch it.
    """

    def __init__(self, message: str, where: str = "") -> None:
        # The checker package (its rules and the schemas) loads on the first such error, not
        # with onnx_compat.
        from wirecodec.checker.violation import Violation

        Exception.__init__(self, message)  # CheckError's own __init__ formats a list of violations
        self.violations = [Violation(where, "external-path", message)]
