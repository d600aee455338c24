"""What the fuzzing campaign of docs/fuzzing-parsers.md found, kept as reproducers (tests/data/fuzz/).

If a test here fails because onnx or onnxruntime changed, the finding is fixed upstream:
update the campaign section of docs/fuzzing-parsers.md.
"""

from __future__ import annotations

import pathlib

import pytest

from tests.reference import require_onnx
from wirecodec import load
from wirecodec.checker import violations

DATA = pathlib.Path(__file__).resolve().parents[1] / "data" / "fuzz"


def test_an_undeclared_tensor_data_type_passes_onnx_check_but_full_check_raises_a_bare_value_error() -> None:
    """retype_data found it (nudenet, layout-cdla): ``check_model`` accepts an initializer of
    data type 255; ``full_check=True`` raises ``ValueError: Invalid tensor data type 255.``
    instead of the checker's ``ValidationError``."""
    onnx = require_onnx()
    path = DATA / "dtype-255-full-check.onnx"
    model = onnx.load(str(path))
    onnx.checker.check_model(model)  # no complaint
    with pytest.raises(ValueError, match="Invalid tensor data type 255") as info:
        onnx.checker.check_model(model, full_check=True)
    assert not isinstance(info.value, onnx.checker.ValidationError)
    # wirecodec's checker names the tensor and the rule.
    found = violations(load(path))
    assert [v.rule for v in found] == ["tensor-data-type"]
