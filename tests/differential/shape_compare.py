"""Shape inference against onnx's: strip a model's inferred types, infer with both, compare.

Shared by tests/differential/test_shape_inference_vs_onnx.py and
bench/shape_inference_coverage.py (which prints the fraction and the gaps by op).
"""

from __future__ import annotations

import warnings
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from schema_dsl.onnx import ModelProto
from wirecodec.protobuf.codec import decode
from wirecodec.shape_inference import infer_shapes


def strip_inferred(model: Any) -> None:
    """Remove value_info (every graph) and the main graph's output types."""

    def walk(graph: Any) -> None:
        del graph.value_info[:]
        for node in graph.node:
            for attr in node.attribute:
                if attr.HasField("g"):
                    walk(attr.g)
                for g in attr.graphs:
                    walk(g)

    walk(model.graph)
    for out in model.graph.output:
        out.ClearField("type")


def _types(graph: Any, prefix: str = "") -> dict[str, str]:
    """name -> the type as text, for every value_info and output of every graph, and the
    inputs of subgraphs (inference merges the node's types into them)."""
    found: dict[str, str] = {}
    infos = (*graph.value_info, *graph.output, *(graph.input if prefix else ()))
    for info in infos:
        found[prefix + info.name] = str(info.type).replace("\n", " ") if info.HasField("type") else ""
    for node in graph.node:
        for attr in node.attribute:
            if attr.HasField("g"):
                found.update(_types(attr.g, f"{prefix}{node.name or node.op_type}/{attr.name}/"))
    return found


def _canonical(text: str) -> str:
    return " ".join(text.split())


@dataclass
class Result:
    name: str
    equal: bool
    differing: list[tuple[str, str, str]] = field(default_factory=list)  # value, onnx, ours
    ops: list[str] = field(default_factory=list)  # op types producing differing values
    error: str = ""


def compare(name: str, data: bytes, data_prop: bool = False) -> Result:
    """Strip ``data``'s inferred types, infer with onnx and with wirecodec, compare."""
    import onnx

    theirs_in = onnx.load_from_string(data)
    strip_inferred(theirs_in)
    stripped = theirs_in.SerializeToString()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            theirs = onnx.shape_inference.infer_shapes(theirs_in, data_prop=data_prop)
        except Exception as exc:  # onnx refuses: we only compare what onnx can do
            return Result(name, True, error=f"onnx: {exc}")
    try:
        ours_model = infer_shapes(decode(ModelProto, stripped), data_prop=data_prop)
    except Exception as exc:
        return Result(name, False, error=f"ours: {type(exc).__name__}: {exc}")
    expected = {k: _canonical(v) for k, v in _types(theirs.graph).items()}
    got_model = onnx.load_from_string(ours_model.SerializeToString())
    got = {k: _canonical(v) for k, v in _types(got_model.graph).items()}
    producers: dict[str, str] = {}

    def note(graph: Any, prefix: str = "") -> None:
        for node in graph.node:
            for out in node.output:
                producers[prefix + out] = node.op_type
            for attr in node.attribute:
                if attr.HasField("g"):
                    note(attr.g, f"{prefix}{node.name or node.op_type}/{attr.name}/")

    note(theirs.graph)
    differing = [
        (k, expected.get(k, "<none>"), got.get(k, "<none>"))
        for k in sorted(set(expected) | set(got))
        if expected.get(k) != got.get(k)
    ]
    ops = sorted({producers.get(k, "?") for k, _, _ in differing})
    return Result(name, not differing, differing, ops)


def summarize(results: list[Result]) -> tuple[float, Counter[str]]:
    """The fraction of models equal, and per op the number of models it made differ."""
    gaps: Counter[str] = Counter()
    for r in results:
        for op in r.ops or (["<error>"] if not r.equal else []):
            gaps[op] += 1
    equal = sum(r.equal for r in results)
    return (equal / len(results) if results else 1.0), gaps


def assert_strict_inference_as_onnx(model: Any) -> None:
    """Strict shape inference of an onnx ``model`` gives onnx's bytes, or refuses where onnx does."""
    import onnx

    from schema_dsl.onnx import ModelProto
    from wirecodec.protobuf.codec import decode, encode
    from wirecodec.shape_inference import InferenceError, infer_shapes

    try:
        theirs: bytes | None = onnx.shape_inference.infer_shapes(model, strict_mode=True).SerializeToString()
    except onnx.shape_inference.InferenceError:
        theirs = None
    try:
        decoded = decode(ModelProto, model.SerializeToString())
        ours: bytes | None = encode(infer_shapes(decoded, strict_mode=True))
    except InferenceError:
        ours = None
    assert ours == theirs
