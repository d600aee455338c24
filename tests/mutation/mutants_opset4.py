"""Mutants of the opset converter's fourth round (issue 44): Hardmax 13 -> 12, the
no-adapter errors, and the walk's speed-up (each operator's versions looked up once per
conversion). The outer names a body sees, now made only where a node has a body, are
mutated by ``mutants_opset3.py``'s ``opset3-bodies-see-no-outer-names``."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_NO_ADAPTER = "tests/unit/version_converter/test_version_converter_no_adapter.py"
_REFUSALS = "tests/unit/version_converter/test_refusals.py"
_CONVERT = "tests/unit/version_converter/test_convert.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "opset4-hardmax-13-12-unregistered",
        "wirecodec/version_converter/_table.py",
        '    ("Hardmax", 13, 12, "softmax", ()),\n',
        "",
        (_NO_ADAPTER,),
        "Hardmax 13 -> 12 has no adapter again: refused where it converts",
    ),
    Mutant(
        "opset4-hardmax-13-12-kept-as-it-is",
        "wirecodec/version_converter/_table.py",
        '    ("Hardmax", 13, 12, "softmax", ()),\n',
        '    ("Hardmax", 13, 12, "same", ()),\n',
        (_NO_ADAPTER,),
        "Hardmax 13 -> 12 keeps its axis, which at opset 12 picks over the flattened tail: another result",
    ),
    Mutant(
        "opset4-no-adapter-names-the-first-version",
        "wirecodec/version_converter/_convert.py",
        'f"{op}-{since[-1] if since else start} changed',
        'f"{op}-{since[0] if since else start} changed',
        (_NO_ADAPTER,),
        "the error names the operator's first version (Abs-1), not the one the model uses (Abs-13)",
    ),
    Mutant(
        "opset4-no-adapter-path-dropped",
        "wirecodec/version_converter/_convert.py",
        "                raise scope.fail(\n                    index,\n"
        '                    f"{op}-{since[-1] if since else start} changed',
        "                raise ConvertError(\n"
        '                    f"{op}-{since[-1] if since else start} changed',
        (_NO_ADAPTER,),
        "the no-adapter error names no node (an empty path)",
    ),
    Mutant(
        "opset4-change-looked-up-at-the-start-version",
        "wirecodec/version_converter/_convert.py",
        "        if changed_at not in changes:  # the common case",
        "        if start not in changes:  # the common case",
        (_CONVERT,),
        "a step up looks for a change at its first version: Unsqueeze 12 -> 13 is not adapted",
    ),
    Mutant(
        "opset4-versions-cached-across-operators",
        "wirecodec/version_converter/_convert.py",
        "    changes = known.get(op)\n",
        "    changes = known.get(op) or next(iter(known.values()), None)\n",
        (_CONVERT, _NO_ADAPTER),
        "the versions of the first operator seen are used for every other one",
    ),
)
