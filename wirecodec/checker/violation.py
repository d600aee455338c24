"""What the checker reports: rules (with the spec section each comes from) and violations."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Report", "Rule", "Violation"]


@dataclass(frozen=True, slots=True)
class Rule:
    """One rule of the IR specification that the checker enforces.

    ``id`` is stable (tools may match on it), ``source`` names where the rule is written
    (a section of IR.md or the comment on a field of onnx.proto) and ``summary`` says it
    in one line.
    """

    id: str
    source: str
    summary: str


@dataclass(frozen=True, slots=True)
class Violation:
    """One place where a model breaks a rule.

    ``path`` is the field path from the model (``graph.node[3].input[1]``), ``rule``
    the id of the :class:`Rule` broken and ``message`` what is wrong there.

    >>> print(Violation("graph.node[0].op_type", "node-op-type", "node has no op_type"))
    graph.node[0].op_type: node has no op_type [node-op-type]
    """

    path: str
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message} [{self.rule}]"

    def to_dict(self) -> dict[str, str]:
        """The violation as plain JSON-ready data."""
        return {"path": self.path, "rule": self.rule, "message": self.message}


@dataclass
class Report:
    """Collects every violation found; rule families append to it and never stop early."""

    violations: list[Violation] = field(default_factory=list)

    def add(self, path: str, rule: Rule, message: str) -> None:
        self.violations.append(Violation(path, rule.id, message))
