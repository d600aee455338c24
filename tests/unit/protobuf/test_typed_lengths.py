"""The checker's tensor-size rule for data in typed fields, for every data type, against onnx.

onnx.proto: a typed field holds one entry per element, two per complex element
(real and imaginary parts), and one packed byte per ``int32_data`` entry for the 4- and
2-bit types. For each data type with a typed field and dims ``[3]``, every entry count
from 0 to twice the expected one + 1 is checked: we accept exactly the count
``onnx.numpy_helper.to_array`` turns into 3 elements, and refuse every count
``onnx.checker`` refuses (it only checks "too small").
"""

from __future__ import annotations

import pytest

from schema_dsl.onnx import GraphProto, ModelProto, OperatorSetIdProto, TensorProto
from tests.support.reference import require_onnx
from wirecodec.checker import violations
from wirecodec.tensors.dtypes import INFOS

require_onnx()
import onnx  # noqa: E402
from onnx import numpy_helper  # noqa: E402

_TYPED = sorted(code for code, info in INFOS.items() if info.field and info.field != "raw_data" and info.bits)


def _ours_refuse(data_type: int, field: str, count: int) -> bool:
    tensor = TensorProto(name="t", data_type=data_type, dims=[3])
    getattr(tensor, field).extend([1] * count)
    graph = GraphProto(name="g", initializer=[tensor])
    model = ModelProto(ir_version=10, opset_import=[OperatorSetIdProto(version=21)], graph=graph)
    return any(v.rule == "tensor-size" for v in violations(model))


def _expected(data_type: int) -> int:
    """Entries for 3 elements, as onnx.proto's comments on the typed fields say."""
    name = INFOS[data_type].name
    if name.startswith("COMPLEX"):
        return 6  # real and imaginary parts, one entry each
    bits = INFOS[data_type].bits
    return -(-3 * bits // 8) if bits < 8 else 3  # 2- and 4-bit elements: packed bytes, one per entry


def _onnx_refuses(data_type: int, field: str, count: int) -> bool:
    tensor = onnx.TensorProto(name="t", data_type=data_type, dims=[3])
    getattr(tensor, field).extend([1] * count)
    try:
        onnx.checker.check_tensor(tensor)
    except onnx.checker.ValidationError:
        return True
    return False


@pytest.mark.parametrize("data_type", _TYPED, ids=lambda c: INFOS[c].name)
def test_typed_lengths_agree_with_onnx(data_type: int) -> None:
    field, name, expected = INFOS[data_type].field, INFOS[data_type].name, _expected(data_type)
    for count in range(0, 2 * expected + 2):
        ours = _ours_refuse(data_type, field, count)
        assert ours == (count != expected), f"{name}: {count} entries, we refuse={ours} (expected {expected})"
        if _onnx_refuses(data_type, field, count):
            assert ours, f"{name}: onnx.checker refuses {count} entries, we accept"
    # And onnx reads the expected count as the 3 elements dims declare.
    tensor = onnx.TensorProto(name="t", data_type=data_type, dims=[3])
    getattr(tensor, field).extend([1] * expected)
    assert numpy_helper.to_array(tensor).size == 3
