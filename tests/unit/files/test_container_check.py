"""``check`` and ``inspect`` of a container whose tensor names the __MODEL_PROTO entry
(issue 37, survivor 6): the model is not data, so the reference is a violation there too,
not only when the tensor is read (tests/test_zip_hostile.py covers reads)."""

from __future__ import annotations

import pathlib

import pytest

from tests.support.zip_cases import CASES
from wirecodec.checker import violations
from wirecodec.cli import main

_BY_NAME = {case.name: case for case in CASES}
_REFERS = {  # the hostile-archive case, and the tensor at fault
    "tensor refers to __MODEL_PROTO": ("weight", 0),
    "tensor refers into __MODEL_PROTO at an offset": ("bias", 1),
}
_SAID = "refers to entry '__MODEL_PROTO', which the archive does not hold"


@pytest.mark.parametrize("case", sorted(_REFERS))
def test_check_names_the_tensor_that_refers_to_the_model_entry(
    case: str, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tensor, index = _REFERS[case]
    path = tmp_path / "c.onnxz"
    path.write_bytes(_BY_NAME[case].build())
    found = [v for v in violations(path, ir_only=True) if v.rule == "external-file"]
    assert [(v.path, v.message) for v in found] == [
        (f"graph.initializer[{index}].external_data[0].value", f"tensor {tensor!r} {_SAID}")
    ]
    assert main(["check", str(path)]) == 1
    assert f"tensor {tensor!r} {_SAID} [external-file]" in capsys.readouterr().out
    assert main(["inspect", str(path)]) == 1
    assert f"graph.initializer[{index}]: tensor {tensor!r}" in capsys.readouterr().out
