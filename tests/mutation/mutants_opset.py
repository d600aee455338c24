"""Mutants of the opset converter (issue 44): wirecodec/version_converter/ and its verb."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_UNIT = "tests/unit/version_converter/test_convert.py"
_CLI = "tests/cli/test_convert_opset.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "opset-new-value-names-off-by-one",
        "wirecodec/version_converter/_graph.py",
        "self._next_value = self._values_read() + 2",
        "self._next_value = self._values_read() + 1",
        (_CLI,),
        "a Constant made from an attribute is named _v_N one below onnx's name, so the bytes differ",
    ),
    Mutant(
        "opset-step-down-looks-at-the-target",
        "wirecodec/version_converter/_convert.py",
        "changed_at = end if end > start else start",
        "changed_at = end",
        (_UNIT,),
        "going down, the operator's change is looked for at the lower version: 13 -> 12 misses Unsqueeze",
    ),
    Mutant(
        "opset-type-restriction-never-refuses",
        "wirecodec/version_converter/_adapters.py",
        "        if elem_type in refused:\n",
        "        if elem_type in refused and not refused:\n",
        (_UNIT,),
        "a node using an element type the older version lacks (Sin on bfloat16 to 21) converts silently",
    ),
    Mutant(
        "opset-unused-constant-kept",
        "wirecodec/version_converter/_adapters.py",
        "    del node.input[1]\n    if scope.uses(source) == 0:",
        "    del node.input[1]\n    if scope.uses(source) < 0:",
        (_UNIT,),
        "an axes constant turned back into an attribute stays in the graph (node or initializer)",
    ),
    Mutant(
        "opset-removed-attribute-value-unchecked",
        "wirecodec/version_converter/_adapters.py",
        "        if held != required:",
        "        if held == required and held != required:",
        (_UNIT,),
        "ArgMax select_last_index=1 loses its meaning going to opset 11 instead of being refused",
    ),
    Mutant(
        "opset-subgraphs-skipped",
        "wirecodec/version_converter/_convert.py",
        "            _convert_graph(inner, step, scopes, known)",
        "            pass",
        (_UNIT,),
        "If/Loop/Scan bodies keep their old-version nodes",
    ),
    Mutant(
        "opset-cli-copies-weights-beside",
        "wirecodec/cli/convert_opset.py",
        "        if external and not to_zip and _same_folder(args.model, args.output):",
        "        if external and not to_zip and not _same_folder(args.model, args.output):",
        (_CLI,),
        "the verb reads the weights and writes them inline instead of keeping the references",
    ),
)
