"""Mutants of the opset converter's second round (issue 44): Scan 9 -> 8."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_UNIT = "tests/unit/version_converter/test_convert.py"
_SCAN = _UNIT + "::test_scan_gets_its_batch_axis_back"
_AXES = _UNIT + "::test_scan_along_another_axis_does_not_go_to_8"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "opset2-scan-9-8-no-sequence-lens",
        "wirecodec/version_converter/_adapters.py",
        '    node.input.insert(0, "")\n',
        "",
        (_SCAN,),
        "Scan going to 8 gets no empty sequence_lens: its inputs are read one place off",
    ),
    Mutant(
        "opset2-scan-9-8-directions-kept-under-the-old-name",
        "wirecodec/version_converter/_adapters.py",
        '        _set_attribute(node, "directions", values)',
        '        _set_attribute(node, "scan_input_directions", values)',
        (_SCAN,),
        "the directions keep their opset-9 name, which opset 8 does not know",
    ),
    Mutant(
        "opset2-scan-9-8-no-batch-axis-in-shapes",
        "wirecodec/version_converter/_adapters.py",
        "                tensor.shape.dim.insert(0, TensorShapeProto.Dimension(dim_value=1))",
        "                pass",
        (_SCAN,),
        "the declared shapes keep no batch axis: the model says rank 2 where Scan 8 gives rank 3",
    ),
    Mutant(
        "opset2-scan-9-8-any-axis-accepted",
        "wirecodec/version_converter/_adapters.py",
        "        if axes is not None and any(int(v) != 0 for v in axes.ints):",
        "        if axes is not None and all(int(v) != 0 for v in axes.ints) and False:",
        (_AXES,),
        "a Scan along axis 1 is converted to opset 8, which scans along axis 0: wrong results",
    ),
    Mutant(
        "opset2-scan-9-8-unsupported-again",
        "wirecodec/version_converter/_table.py",
        '    ("Scan", 9, 8, "scan_9_8", ()),',
        '    ("Scan", 9, 8, "unsupported", ("Scan\'s batch axis",)),',
        (_SCAN,),
        "the adapter is no longer registered: Scan 9 -> 8 is refused",
    ),
    Mutant(
        "opset2-scan-9-8-only-input-axes-checked",
        "wirecodec/version_converter/_adapters.py",
        '    for name in ("scan_input_axes", "scan_output_axes"):',
        '    for name in ("scan_output_axes",):',
        (_AXES,),
        "scan_input_axes is not looked at: a Scan along input axis 1 converts",
    ),
)
