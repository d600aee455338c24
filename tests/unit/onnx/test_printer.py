"""Differential: wirecodec.printer.to_text against onnx.printer.to_text, character for character.

On every model of onnx's backend corpus and every PyTorch export (and their graphs,
functions and nodes), on hand-built messages that reach each branch of the layout, on
random messages from the schema, and on float32/float64 values drawn from their whole
bit range.
"""

from __future__ import annotations

import math
import pathlib
import random
import struct
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import wirecodec
from schema_dsl import Message
from schema_dsl.onnx import AttributeProto, FunctionProto, GraphProto, ModelProto, NodeProto, TensorProto
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, pb_class
from tests.support.strategies import messages
from tests.support.textual_cases import VALID
from wirecodec._textual.numbers import format_float32, format_float64
from wirecodec.printer import to_text

onnx = pytest.importorskip("onnx", reason="onnx.printer is the reference (test extra)")
from onnx import helper, numpy_helper  # noqa: E402
from onnx import parser as reference_parser  # noqa: E402
from onnx import printer as reference  # noqa: E402


@pytest.fixture(scope="module")
def corpus_models(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"]


def _ours_and_theirs(cls: type[Message], data: bytes) -> tuple[str, str]:
    return to_text(wirecodec.decode(cls, data)), reference.to_text(pb_class(cls).FromString(data))  # type: ignore[arg-type]


def _parts(model: ModelProto) -> Iterator[tuple[type[Message], bytes]]:
    """The model's graph, functions, and every node (subgraphs' nodes included)."""
    yield GraphProto, wirecodec.encode(model.graph)
    for function in model.functions:
        yield FunctionProto, wirecodec.encode(function)
    graphs = [model.graph, *(f for f in model.functions)]
    while graphs:
        for node in graphs.pop().node:
            yield NodeProto, wirecodec.encode(node)
            for attr in node.attribute:
                graphs.extend([attr.g] if attr.HasField("g") else attr.graphs)


def _assert_prints_the_same(name: str, data: bytes) -> int:
    ours, theirs = _ours_and_theirs(ModelProto, data)
    assert ours == theirs, name
    compared = 1
    for cls, part in _parts(wirecodec.decode(ModelProto, data)):
        ours, theirs = _ours_and_theirs(cls, part)
        assert ours == theirs, f"{name}: a {cls.__name__}"
        compared += 1
    return compared


def test_backend_corpus_prints_as_onnx_does(corpus_models: list[CorpusItem]) -> None:
    assert len(corpus_models) > 1500
    compared = sum(_assert_prints_the_same(item.name, item.data) for item in corpus_models)
    assert compared > 2 * len(corpus_models)


def test_pytorch_exports_print_as_onnx_does(pytorch_exports: list[Export]) -> None:
    assert pytorch_exports
    for export in pytorch_exports:
        _assert_prints_the_same(export.name, export.data)


# -- hand-built messages: every branch of the layout -------------------------------------


def _tensors() -> list[Any]:
    """Tensors of every element type, in raw_data and in the typed fields."""
    arrays = {
        "f32": np.array([1.5, -0.0, np.inf, -np.nan, 1e-45, 3.4028235e38], np.float32),
        "f64": np.array([0.1, -1e300, np.nan, 5e-324], np.float64),
        "i8": np.array([-128, 127], np.int8),
        "u8": np.array([0, 255], np.uint8),
        "i16": np.array([-32768, 7], np.int16),
        "u16": np.array([65535], np.uint16),
        "i32": np.array([-(2**31), 2**31 - 1], np.int32),
        "u32": np.array([2**32 - 1], np.uint32),
        "i64": np.array([-(2**63), 2**63 - 1], np.int64),
        "u64": np.array([2**64 - 1], np.uint64),
        "bool": np.array([True, False]),
        "f16": np.array([1.0, -2.5], np.float16),
        "c64": np.array([1 + 2j], np.complex64),
        "str": np.array([b"a", b'q"\\'], object),
    }
    tensors = [numpy_helper.from_array(a, name) for name, a in arrays.items()]
    for dtype in (16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26):  # bfloat16 .. int2 in raw bytes
        dims = [1] if dtype == TensorProto.BFLOAT16 else [2]
        tensors.append(onnx.TensorProto(name=f"raw{dtype}", data_type=dtype, dims=dims, raw_data=b"\x01\x82"))
    typed = [
        helper.make_tensor("typed_f", TensorProto.FLOAT, [3], [0.1, 2, -3e-5]),
        helper.make_tensor("typed_d", TensorProto.DOUBLE, [2], [0.1, 1e22]),
        helper.make_tensor("typed_i", TensorProto.INT32, [2], [1, -1]),
        helper.make_tensor("typed_b", TensorProto.BOOL, [2], [True, False]),
        helper.make_tensor("typed_u", TensorProto.UINT64, [1], [2**64 - 1]),
        helper.make_tensor("typed_s", TensorProto.STRING, [2], [b"x", b"y"]),
        helper.make_tensor("", TensorProto.STRING, [0], []),
        helper.make_tensor("not an identifier", TensorProto.INT64, [], [5]),
        onnx.TensorProto(name="c", data_type=TensorProto.COMPLEX64, dims=[1], float_data=[1, 2]),
        onnx.TensorProto(data_type=TensorProto.FLOAT, dims=[2]),
        onnx.TensorProto(data_type=99, dims=[1], raw_data=b"\x00"),
    ]
    external = onnx.TensorProto(name="ext", data_type=TensorProto.FLOAT, dims=[4])
    external.data_location = TensorProto.EXTERNAL
    for key, value in (("location", "w.bin"), ("offset", "0")):
        entry = external.external_data.add()
        entry.key, entry.value = key, value
    return tensors + typed + [external, onnx.TensorProto(name="ext_empty", data_location=1)]


def _hand_built_graph() -> Any:
    body = helper.make_graph(
        [helper.make_node("Identity", ["a"], ["b"])],
        "body",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, ["N", None, 3, "x y"])],
        [helper.make_tensor_value_info("b", TensorProto.FLOAT, None)],
    )
    tensors = _tensors()
    attrs: dict[str, Any] = {
        "i": -(2**63),
        "f": 0.1,
        "s": 'q"\\',
        "ints": [1, -2],
        "floats": [1e10, -1e-10, float("inf")],
        "strings": ["a", "b c"],
        "t": tensors[0],
        "tensors": tensors,
        "g": body,
        "tp": helper.make_sequence_type_proto(helper.make_tensor_type_proto(TensorProto.INT8, [2])),
    }
    node = helper.make_node("Op", ["", "x.y", "ok_1"], ["out"], name="n 1", domain="com.ex", **attrs)
    node.overload = "v2"
    float_any = helper.make_tensor_type_proto(TensorProto.FLOAT, None)
    float_n = helper.make_tensor_type_proto(TensorProto.FLOAT, ["n"])
    empty = [
        helper.make_attribute("e_ints", [], attr_type=AttributeProto.INTS),
        helper.make_attribute("e_strings", [], attr_type=AttributeProto.STRINGS),
        helper.make_attribute("e_graphs", [], attr_type=AttributeProto.GRAPHS),
        helper.make_attribute("graphs", [body, body]),
        helper.make_attribute("tps", [helper.make_optional_type_proto(float_any)]),
        helper.make_attribute_ref("ref", AttributeProto.FLOAT),
        onnx.AttributeProto(name="sparse", type=AttributeProto.SPARSE_TENSOR),
        onnx.AttributeProto(name="untyped"),
    ]
    plain = helper.make_node("Op2", ["a"], ["b", ""], **{"k": 1})
    plain.attribute.extend(empty[:2] + empty[5:])
    looped = helper.make_node("Loop", ["m"], ["r"])
    looped.attribute.extend(empty[2:4])
    types = [
        helper.make_tensor_value_info("scalar", TensorProto.FLOAT, []),
        helper.make_tensor_sequence_value_info("seq", TensorProto.FLOAT, [2]),
        helper.make_value_info("map", helper.make_map_type_proto(TensorProto.INT64, float_any)),
        helper.make_value_info("opt", helper.make_optional_type_proto(float_n)),
        helper.make_sparse_tensor_value_info("sparse", TensorProto.FLOAT, [2, None]),
        helper.make_sparse_tensor_value_info("sparse_unranked", TensorProto.FLOAT, None),
        onnx.ValueInfoProto(name="untyped"),
    ]
    for domain, name in (("", ""), ("", "n"), ("d.e", "n"), ("d", "")):
        info = onnx.ValueInfoProto(name=f"opaque_{domain}_{name}")
        info.type.opaque_type.domain, info.type.opaque_type.name = domain, name
        types.append(info)
    inits = [t for t in tensors if t.name]
    return helper.make_graph([node, plain, looped], "", types[:3], types[3:5], inits, value_info=types[5:])


def test_hand_built_graph_prints_as_onnx_does() -> None:
    theirs = _hand_built_graph()
    data = theirs.SerializeToString()
    text = to_text(wirecodec.decode(GraphProto, data))
    assert text == reference.to_text(theirs)
    assert "..." in text and "@" in text and "opaque(d.e,n)" in text  # the branches were reached


def test_hand_built_model_and_function_print_as_onnx_does() -> None:
    graph = _hand_built_graph()
    function = helper.make_function(
        "com.ex", "Fn", ["x", "not id"], ["y"], list(graph.node), [helper.make_opsetid("", 18)], ["a", "b"]
    )
    function.overload = "o"
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("x", 1)])
    model.functions.extend([function, onnx.FunctionProto()])
    model.producer_name, model.producer_version, model.domain = "p", "1", 'd"q'
    model.model_version, model.doc_string = -3, "line\nbreak"
    helper.set_model_props(model, {"k": "v", "k2": ""})
    for message, cls in ((model, ModelProto), (function, FunctionProto), (onnx.ModelProto(), ModelProto)):
        ours, theirs = _ours_and_theirs(cls, message.SerializeToString())
        assert ours == theirs


def test_hand_written_texts_print_as_onnx_does() -> None:
    """Everything the parser tests read (functions with defaults and typed signatures too)."""
    classes = {"model": ModelProto, "graph": GraphProto, "function": FunctionProto, "node": NodeProto}
    for case_id, kind, text in VALID:
        theirs = getattr(reference_parser, f"parse_{kind}")(text)
        ours, expected = _ours_and_theirs(classes[kind], theirs.SerializeToString())
        assert ours == expected, case_id


# -- random messages from the schema -----------------------------------------------------


@pytest.mark.parametrize("cls", [NodeProto, GraphProto, FunctionProto, ModelProto])
def test_random_messages_print_as_onnx_does(cls: type[Message]) -> None:
    @settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(messages(cls))
    def check(message: Message) -> None:
        data = wirecodec.encode(message)
        try:
            theirs: str | None = reference.to_text(pb_class(cls).FromString(data))
        except UnicodeDecodeError:
            theirs = None  # bytes that are not UTF-8: onnx cannot return them, we keep them
        except Exception as exc:
            # raw_data that does not fit its dims: onnx raises InferenceError, we TensorError.
            assert "ShapeInferenceError" in str(exc)
            with pytest.raises(wirecodec.TensorError):
                to_text(wirecodec.decode(cls, data))  # type: ignore[arg-type]
            return
        ours = to_text(wirecodec.decode(cls, data))  # type: ignore[arg-type]
        if theirs is not None:
            assert ours == theirs

    check()


# -- numbers -----------------------------------------------------------------------------


def _random_floats32(count: int) -> list[float]:
    rng = random.Random(1)
    values = [struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0] for _ in range(count)]
    # Powers of two (lopsided round-trip intervals), integers wider than their digits, edges.
    values += [2.0**e for e in range(-149, 128)] + [float(10**e) for e in range(0, 39)]
    values += [16777217.0, 1e-45, 3.4028234663852886e38, 1.1754943508222875e-38, 0.1, 100.0, 1e5]
    return [v for v in values if not math.isnan(v)]


def test_float32_prints_as_onnx_does() -> None:
    values = _random_floats32(20000)
    node = helper.make_node("X", [], [], f=values)
    text = reference.to_text(node)
    theirs = text[text.index("[") + 1 : text.index("]")].split(", ")
    assert [format_float32(struct.unpack("<f", struct.pack("<f", v))[0]) for v in values] == theirs


def test_float64_prints_as_onnx_does() -> None:
    rng = random.Random(2)
    values = [struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0] for _ in range(20000)]
    values += [2.0**e for e in range(-1074, 1024, 7)] + [1e22, 1e21, 1e16, 2.0**53, 5e-324]
    values = [v for v in values if not math.isnan(v)]
    tensor = helper.make_tensor("t", TensorProto.DOUBLE, [len(values)], values)
    text = reference.to_text(helper.make_node("X", [], [], t=tensor))
    theirs = text[text.index("{") + 1 : text.index("}")].split(",")
    assert [format_float64(v) for v in values] == theirs


def test_nan_and_infinity_spellings() -> None:
    assert [format_float32(v) for v in (math.nan, -math.nan, math.inf, -math.inf, 0.0, -0.0)] == [
        "nan", "-nan", "inf", "-inf", "0", "-0",
    ]  # fmt: skip


# -- errors ------------------------------------------------------------------------------


def test_raw_data_that_does_not_fit_its_dims_is_a_tensor_error() -> None:
    tensor = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[3], raw_data=b"\0" * 8)
    value = AttributeProto(name="value", type=AttributeProto.TENSOR, t=tensor)
    node = NodeProto(op_type="Constant", attribute=[value])
    with pytest.raises(wirecodec.TensorError, match="8 bytes of raw_data for 3 elements"):
        to_text(node)
    node.attribute[0].t.dims[:] = [-2]  # the node holds a copy of the attribute
    with pytest.raises(wirecodec.TensorError, match="negative dimension"):
        to_text(node)


def test_other_messages_are_refused() -> None:
    with pytest.raises(TypeError, match="TensorProto"):
        to_text(TensorProto())  # type: ignore[arg-type]


def test_public_names() -> None:
    assert wirecodec.printer.to_text is to_text
    assert "printer" in wirecodec.__all__ and "parser" in wirecodec.__all__
