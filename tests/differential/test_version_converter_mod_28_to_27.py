"""Mod-28 takes floating-point inputs with ``fmod=0``; Mod-27 does not. Going down from 28
to 27, a Mod of floats whose ``fmod`` is 0 — given, or absent and so 0 by default — cannot
be converted (onnx's converter asserts; wirecodec's refuses with a ConvertError naming the
node), and one with ``fmod=1`` or of integers goes down unchanged, as onnx's bytes."""

from __future__ import annotations

from typing import Any

import pytest

onnx = pytest.importorskip("onnx", reason="onnx's version converter is the oracle")

from onnx import TensorProto, helper  # noqa: E402


def _model(fmod: int | None, elem: int) -> Any:
    kwargs = {} if fmod is None else {"fmod": fmod}
    graph = helper.make_graph(
        [helper.make_node("Mod", ["a", "b"], ["c"], **kwargs)],
        "g",
        [helper.make_tensor_value_info("a", elem, [2]), helper.make_tensor_value_info("b", elem, [2])],
        [helper.make_tensor_value_info("c", elem, [2])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 28)])


@pytest.mark.parametrize("fmod", [None, 0, 1], ids=["fmod-absent", "fmod-0", "fmod-1"])
@pytest.mark.parametrize("elem", [TensorProto.FLOAT, TensorProto.INT32], ids=["float", "int32"])
def test_mod_28_to_27_as_onnx(fmod: int | None, elem: int) -> None:
    import wirecodec
    from wirecodec.errors import ConvertError
    from wirecodec.protobuf.codec import encode
    from wirecodec.version_converter import convert_version

    model = _model(fmod, elem)
    try:
        theirs: bytes | None = onnx.version_converter.convert_version(model, 27).SerializeToString()
    except RuntimeError:
        theirs = None
    try:
        ours: bytes | None = encode(convert_version(wirecodec.load(model.SerializeToString()), 27))
    except ConvertError:
        ours = None
    assert ours == theirs
    assert (theirs is None) == (elem == TensorProto.FLOAT and not fmod)


@pytest.mark.quick
def test_mod_28_of_floats_without_fmod_is_refused_by_name() -> None:
    import wirecodec
    from wirecodec.errors import ConvertError
    from wirecodec.version_converter import convert_version

    with pytest.raises(ConvertError, match=r"graph\.node\[0\].*fmod=0 cannot go to opset 27"):
        convert_version(wirecodec.load(_model(None, TensorProto.FLOAT).SerializeToString()), 27)
