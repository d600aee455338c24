"""onnx_compat's checker says what onnx's says where code matches on the words: a deprecated
operator is "Op registered for <op> is deprecated in domain_version of <version>"."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.support.reference import require_onnx

onnx = require_onnx()


@pytest.mark.quick
@pytest.mark.parametrize(
    ("op", "version", "inputs"), [("Upsample", 10, ["x", "s"]), ("Scatter", 11, ["x", "i", "u"])]
)
def test_deprecated_operator_message_as_onnx(op: str, version: int, inputs: list[str]) -> None:
    from wirecodec.onnx_compat import checker as compat_checker
    from wirecodec.onnx_compat import helper as compat_helper

    def build(helper: Any) -> Any:
        make = helper.make_tensor_value_info
        graph = helper.make_graph(
            [helper.make_node(op, inputs, ["y"])],
            "g",
            [make(name, onnx.TensorProto.FLOAT, (2,)) for name in inputs],
            [make("y", onnx.TensorProto.FLOAT, (2,))],
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", version)])

    with pytest.raises(onnx.checker.ValidationError) as theirs:
        onnx.checker.check_model(build(onnx.helper))
    with pytest.raises(compat_checker.ValidationError) as ours:
        compat_checker.check_model(build(compat_helper))
    words = f"Op registered for {op} is deprecated in domain_version of {version}"
    assert re.search(words, str(theirs.value))
    assert re.search(words, str(ours.value))
