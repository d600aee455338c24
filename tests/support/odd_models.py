"""Generators of the odd models third-party exports are made of, for the CLI tests.

Each builds, from nothing, the shape a real model had when a new user met it
(issue 35): weights in a corrupt .onnxz entry, a safetensors data file with a lying
header, a graph whose whole body sits in one ``If``, nodes out of topological order,
weights in ``Constant`` nodes, fp16 and quantized operators. Every model but the
corrupt ones runs in onnxruntime.
"""

from __future__ import annotations

import json
import pathlib
import struct
import zipfile
from typing import Final

import numpy as np

from schema_dsl.onnx import ModelProto, NodeProto, TensorProto
from wirecodec import save
from wirecodec.files.zip.container import save_zip
from wirecodec.helper import (
    make_graph,
    make_model,
    make_node,
    make_opsetid,
    make_tensor,
    make_tensor_value_info,
)
from wirecodec.numpy_helper import from_array, to_array

FLOAT: Final = int(TensorProto.DataType.FLOAT)
FLOAT16: Final = int(TensorProto.DataType.FLOAT16)

LYING_HEADERS: Final = (
    "bad-json",
    "huge-length",
    "wrong-dtype",
    "wrong-shape",
    "wrong-offsets",
    "past-end",
    "truncated",
)
"""The seven ways a safetensors header can lie that issue 35 lists."""


def _model(
    nodes: list[NodeProto],
    inputs: list[object],
    outputs: list[object],
    inits: list[TensorProto],
    opset: int = 21,
    name: str = "g",
) -> ModelProto:
    graph = make_graph(nodes, name, inputs, outputs, initializer=inits)
    return make_model(graph, opset_imports=[make_opsetid("", opset)], ir_version=10)


def weights_model(width: int = 32, layers: int = 3, seed: int = 0) -> ModelProto:
    """``x[N,width]`` through ``layers`` MatMul+Add, each weight ``width*width`` floats (4 KiB at 32)."""
    rng = np.random.default_rng(seed)
    nodes, inits = [], []
    current = "x"
    for i in range(layers):
        inits.append(from_array(rng.standard_normal((width, width)).astype(np.float32), f"w{i}"))
        inits.append(from_array(rng.standard_normal(width).astype(np.float32), f"b{i}"))
        nodes.append(make_node("MatMul", [current, f"w{i}"], [f"m{i}"], name=f"matmul{i}"))
        out = "y" if i == layers - 1 else f"h{i}"
        nodes.append(make_node("Add", [f"m{i}", f"b{i}"], [out], name=f"add{i}"))
        current = out
    return _model(
        nodes,
        [make_tensor_value_info("x", FLOAT, ["N", width])],
        [make_tensor_value_info("y", FLOAT, ["N", width])],
        inits,
    )


def flipped_onnxz(folder: pathlib.Path, entry: str = "w1") -> pathlib.Path:
    """An .onnxz of :func:`weights_model` with one byte of weight entry ``entry`` flipped
    (the central directory still gives its CRC-32, which no longer matches)."""
    path = folder / "flipped.onnxz"
    save_zip(weights_model(), path)
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(entry)
    data = bytearray(path.read_bytes())
    (name_size, extra_size) = struct.unpack_from("<HH", data, info.header_offset + 26)
    start = info.header_offset + 30 + name_size + extra_size
    data[start + info.file_size // 2] ^= 0x40
    path.write_bytes(bytes(data))
    return path


def safetensors_model(folder: pathlib.Path, name: str = "st") -> pathlib.Path:
    """:func:`weights_model` saved with every tensor in ``NAME.safetensors`` beside it."""
    path = folder / f"{name}.onnx"
    save(weights_model(), path, external_data=f"{name}.safetensors", size_threshold=0)
    return path


def _header(data: bytes) -> tuple[int, dict[str, dict[str, object]]]:
    (length,) = struct.unpack_from("<Q", data)
    return length, json.loads(data[8 : 8 + length])


def _rewrite_header(data: bytes, header: dict[str, dict[str, object]]) -> bytes:
    """``data`` with a new header of the same length (padded with spaces), so offsets stay."""
    length, _ = _header(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    assert len(text) <= length, "the new header must fit in the old one's room"
    return data[:8] + text.ljust(length, b" ") + data[8 + length :]


def lying_safetensors(folder: pathlib.Path, variant: str) -> pathlib.Path:
    """A model whose external data is a safetensors file with a header lying as ``variant``
    says (one of :data:`LYING_HEADERS`); returns the model's path."""
    model = safetensors_model(folder)
    file = folder / "st.safetensors"
    data = file.read_bytes()
    length, header = _header(data)
    first = header["w0"]
    if variant == "bad-json":
        data = data[:8] + b"{not json".ljust(length, b" ") + data[8 + length :]
    elif variant == "huge-length":
        data = struct.pack("<Q", 1 << 40) + data[8:]
    elif variant == "wrong-dtype":
        first["dtype"] = "I32"  # the same size: the file is sound, the model reads it as another type
        data = _rewrite_header(data, header)
    elif variant == "wrong-shape":
        shape = first["shape"]
        assert isinstance(shape, list)
        first["shape"] = [shape[0] // 2, shape[1] * 2]
        data = _rewrite_header(data, header)
    elif variant == "wrong-offsets":
        offsets = first["data_offsets"]
        assert isinstance(offsets, list)
        first["data_offsets"] = [offsets[0], offsets[1] + 8]
        data = _rewrite_header(data, header)
    elif variant == "past-end":
        data = struct.pack("<Q", len(data) + 4096) + data[8:]
    elif variant == "truncated":
        data = data[:-16]
    else:
        raise ValueError(f"no lying header {variant!r}; one of {LYING_HEADERS}")
    file.write_bytes(data)
    return model


def if_wrapped_model(branch_nodes: int = 300) -> ModelProto:
    """The whole computation in one top-level ``If`` (silero VAD's web export): each branch a
    chain of ``branch_nodes`` nodes, then an ``Identity`` per output in the main graph."""

    def branch(name: str, op: str) -> object:
        nodes = []
        current = "x"
        for i in range(branch_nodes):
            out = f"{name}_out" if i == branch_nodes - 1 else f"{name}_{i}"
            nodes.append(make_node(op, [current], [out], name=f"{name}/{op}_{i}"))
            current = out
        return make_graph(nodes, name, [], [make_tensor_value_info(f"{name}_out", FLOAT, ["N"])])

    nodes = [
        make_node(
            "If",
            ["cond"],
            ["if_out"],
            name="If_0",
            then_branch=branch("then", "Relu"),
            else_branch=branch("else", "Neg"),
        ),
        make_node("Identity", ["if_out"], ["y"], name="Identity_0"),
    ]
    return _model(
        nodes,
        [
            make_tensor_value_info("cond", int(TensorProto.DataType.BOOL), []),
            make_tensor_value_info("x", FLOAT, ["N"]),
        ],
        [make_tensor_value_info("y", FLOAT, ["N"])],
        [],
    )


def unsorted_model() -> ModelProto:
    """Nodes not in topological order (IS-Net): a consumer listed before its producer, the
    input cast at the end of the list."""
    model = weights_model(width=8, layers=2)
    graph = model.graph
    cast = make_node("Cast", ["x_in"], ["x"], name="graph_input_cast0", to=FLOAT)
    nodes = [graph.node[i] for i in range(len(graph.node))]
    nodes.reverse()
    nodes.append(cast)
    del graph.node[:]
    graph.node.extend(nodes)
    del graph.input[:]
    graph.input.append(make_tensor_value_info("x_in", int(TensorProto.DataType.DOUBLE), ["N", 8]))
    return model


def constant_weights_model(width: int = 32) -> ModelProto:
    """Weights as ``Constant`` nodes, no initializer (the PaddleOCR exports)."""
    model = weights_model(width=width, layers=2)
    graph = model.graph
    constants = [
        make_node("Constant", [], [tensor.name], name=f"const_{tensor.name}", value=tensor)
        for tensor in graph.initializer
    ]
    rest = [graph.node[i] for i in range(len(graph.node))]
    del graph.initializer[:]
    del graph.node[:]
    graph.node.extend(constants + rest)
    return model


def quantized_model(width: int = 16, seed: int = 0) -> ModelProto:
    """fp16 weights with float32 casts at the edges, QuantizeLinear/DequantizeLinear (per
    tensor and per channel), MatMulInteger and ConvInteger."""
    rng = np.random.default_rng(seed)
    w16 = from_array(rng.standard_normal((width, width)).astype(np.float16), "w16")
    wq = from_array(rng.integers(-8, 8, (width, width)).astype(np.int8), "wq")
    wq_scale = from_array(np.full(width, 0.05, np.float32), "wq_scale")  # per channel
    wq_zero = from_array(np.zeros(width, np.int8), "wq_zero")
    scale = from_array(np.array(0.1, np.float32), "scale")
    zero = from_array(np.array(0, np.uint8), "zero")
    wi = from_array(rng.integers(0, 8, (width, width)).astype(np.uint8), "wi")
    conv_w = from_array(rng.integers(0, 4, (2, 1, 1, 1)).astype(np.uint8), "conv_w")
    nodes = [
        make_node("Cast", ["x"], ["x16"], name="cast_in", to=FLOAT16),
        make_node("MatMul", ["x16", "w16"], ["h16"], name="matmul16"),
        make_node("Cast", ["h16"], ["h"], name="cast_out", to=FLOAT),
        make_node("QuantizeLinear", ["h", "scale", "zero"], ["hq"], name="quant"),
        make_node("MatMulInteger", ["hq", "wi"], ["mi"], name="matmul_int"),
        make_node("Cast", ["mi"], ["mf"], name="cast_mi", to=FLOAT),
        make_node("DequantizeLinear", ["wq", "wq_scale", "wq_zero"], ["wdq"], name="dequant_w", axis=1),
        make_node("MatMul", ["mf", "wdq"], ["y"], name="matmul_dq"),
        make_node("Unsqueeze", ["hq", "axes"], ["hq4"], name="unsq"),
        make_node("ConvInteger", ["hq4", "conv_w"], ["ci"], name="conv_int"),
    ]
    axes = make_tensor("axes", int(TensorProto.DataType.INT64), [2], [1, 2])
    return _model(
        nodes,
        [make_tensor_value_info("x", FLOAT, [1, width])],
        [
            make_tensor_value_info("y", FLOAT, [1, width]),
            make_tensor_value_info("ci", int(TensorProto.DataType.INT32), None),
        ],
        [w16, wq, wq_scale, wq_zero, scale, zero, wi, conv_w, axes],
    )


def deep_constant_model(depth_nodes: int = 80) -> ModelProto:
    """Weights as Constant nodes deep in an If branch, with long names: the paths and names
    inspect prints are longer than its columns."""
    rng = np.random.default_rng(1)
    name = "/encoder/block_with_a_rather_long_export_name/attention/query_projection/weight"
    nodes = [make_node("Relu", ["x"], [f"r{i}"], name=f"relu{i}") for i in range(depth_nodes)]
    weight = from_array(rng.standard_normal((64, 64)).astype(np.float32), name)
    nodes.append(make_node("Constant", [], [name], name="deep_constant", value=weight))
    nodes.append(make_node("MatMul", [f"r{depth_nodes - 1}", name], ["then_out"], name="deep_matmul"))
    then = make_graph(nodes, "then", [], [make_tensor_value_info("then_out", FLOAT, [1, 64])])
    other = make_graph(
        [make_node("Identity", ["x"], ["else_out"], name="pass")],
        "else",
        [],
        [make_tensor_value_info("else_out", FLOAT, [1, 64])],
    )
    top = make_node("If", ["cond"], ["y"], name="If_0", then_branch=then, else_branch=other)
    return _model(
        [top],
        [
            make_tensor_value_info("cond", int(TensorProto.DataType.BOOL), []),
            make_tensor_value_info("x", FLOAT, [1, 64]),
        ],
        [make_tensor_value_info("y", FLOAT, [1, 64])],
        [],
    )


def fp16_model(width: int = 16, layers: int = 2) -> ModelProto:
    """An fp16 export (IS-Net's shape): float16 weights, a float32 input cast in and the
    output cast back to float32."""
    model = weights_model(width=width, layers=layers)
    graph = model.graph
    halves = [from_array(to_array(t).astype(np.float16), t.name) for t in graph.initializer]
    del graph.initializer[:]
    graph.initializer.extend(halves)
    nodes = [graph.node[i] for i in range(len(graph.node))]
    nodes[0].input[0] = "x16"
    nodes[-1].output[0] = "y16"
    del graph.node[:]
    graph.node.extend(
        [
            make_node("Cast", ["x"], ["x16"], name="graph_input_cast0", to=FLOAT16),
            *nodes,
            make_node("Cast", ["y16"], ["y"], name="graph_output_cast0", to=FLOAT),
        ]
    )
    return model
