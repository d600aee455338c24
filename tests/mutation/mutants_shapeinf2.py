"""Mutants of the second shape-inference round on onnx's own tests (issue 42, helper ``shapeinf2``).

Filled as each fix lands; every entry must be killed by the selection it names.
"""

from __future__ import annotations

from tests.mutation.mutant import Mutant

MUTANTS: tuple[Mutant, ...] = ()
