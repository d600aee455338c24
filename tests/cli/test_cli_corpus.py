"""Every CLI verb on every model of onnx's backend test corpus, checked against the onnx package.

The verbs run through ``main([...])`` with ``--json`` as a script would run them; the
expected answers come from onnx's own parse of the same bytes (protobuf) and
``onnx.numpy_helper``.
"""

from __future__ import annotations

import collections
import io
import json
import pathlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from tests.support.reference import CorpusItem, backend_corpus, require_onnx
from wirecodec.cli import main

onnx = require_onnx()
from onnx import numpy_helper  # noqa: E402  (after the skip above)


@pytest.fixture(scope="module")
def models(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"]


def _files(models: list[CorpusItem], folder: pathlib.Path) -> Iterator[tuple[CorpusItem, pathlib.Path, Any]]:
    """Each model as a file, with onnx's parse of it; the file is removed once the caller is done."""
    for i, item in enumerate(models):
        path = folder / f"{i}.onnx"
        path.write_bytes(item.data)
        theirs = onnx.ModelProto()
        theirs.ParseFromString(item.data)
        yield item, path, theirs
        path.unlink()


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, Any]:
    code = main(argv)
    out = capsys.readouterr().out
    return code, json.loads(out) if out else None


def _op(node: Any) -> str:
    return f"{node.domain}::{node.op_type}" if node.domain and node.domain != "ai.onnx" else node.op_type


def _dim(dim: Any) -> int | str | None:
    which = dim.WhichOneof("value")
    return dim.dim_value if which == "dim_value" else dim.dim_param if which == "dim_param" else None


def _io(info: Any) -> dict[str, Any]:
    shape = None
    if info.type.HasField("tensor_type") and info.type.tensor_type.HasField("shape"):
        shape = [_dim(d) for d in info.type.tensor_type.shape.dim]
    return {"name": info.name, "shape": shape}


def _weights(graph: Any) -> Any:
    """The weights of a graph as onnx's classes hold them: initializers and Constant values,
    in this graph and every subgraph."""
    yield from graph.initializer
    for node in graph.node:
        for attribute in node.attribute:
            if node.op_type == "Constant" and node.domain in ("", "ai.onnx") and attribute.name == "value":
                yield attribute.t
            for sub in [attribute.g] if attribute.HasField("g") else []:
                yield from _weights(sub)
            for sub in attribute.graphs:
                yield from _weights(sub)


def _expected_parameters(graph: Any) -> dict[str, Any]:
    by_dtype: dict[str, dict[str, int]] = collections.defaultdict(lambda: {"tensors": 0, "count": 0})
    for tensor in _weights(graph):
        entry = by_dtype[onnx.TensorProto.DataType.Name(tensor.data_type)]
        entry["tensors"] += 1
        entry["count"] += numpy_helper.to_array(tensor).size
    return dict(by_dtype)


def test_inspect_agrees_with_onnx_on_every_model(
    models: list[CorpusItem], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    checked_params = 0
    for item, path, theirs in _files(models, tmp_path):
        code, summary = _json(capsys, ["inspect", "--json", "--top", "3", str(path)])
        assert code == 0 and summary["byte_identical"] is True, item.name
        graph = theirs.graph
        assert summary["ir_version"] == theirs.ir_version, item.name
        assert summary["opset_import"] == [
            {"domain": o.domain, "version": o.version} for o in theirs.opset_import
        ]
        assert summary["producer"] == {"name": theirs.producer_name, "version": theirs.producer_version}
        assert summary["graph"]["nodes"] == len(graph.node), item.name
        assert summary["operators"] == dict(collections.Counter(_op(n) for n in graph.node)), item.name
        assert [{"name": v["name"], "shape": v["shape"]} for v in summary["inputs"]] == [
            _io(v) for v in graph.input
        ], item.name
        assert [{"name": v["name"], "shape": v["shape"]} for v in summary["outputs"]] == [
            _io(v) for v in graph.output
        ], item.name
        assert [(f["domain"], f["name"], f["nodes"]) for f in summary["functions"]] == [
            (f.domain, f.name, len(f.node)) for f in theirs.functions
        ], item.name
        assert summary["metadata_props"] == {p.key: p.value for p in theirs.metadata_props}
        expected = _expected_parameters(graph)
        got = {
            k: {"tensors": v["tensors"], "count": v["count"]}
            for k, v in summary["parameters"]["by_dtype"].items()
        }
        if not graph.sparse_initializer:
            assert got == expected, item.name
            checked_params += bool(expected)
        for tensor in summary["largest_tensors"]:
            assert tensor["bytes"] >= 0 and tensor["path"]
    assert checked_params > 0  # few node tests have initializers: the PyTorch exports test them more


def _tensors_onnx_sees(model: Any) -> list[tuple[str, Any]]:
    """(name, array) of every named initializer and Constant value onnx finds in the main graph."""
    found = [(t.name, numpy_helper.to_array(t)) for t in model.graph.initializer if t.name]
    for node in model.graph.node:
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            for attribute in node.attribute:
                if attribute.name == "value":
                    found.append((node.output[0], numpy_helper.to_array(attribute.t)))
    return found


def test_extract_gives_what_numpy_helper_reads(
    models: list[CorpusItem], tmp_path: pathlib.Path, capsysbinary: pytest.CaptureFixture[bytes]
) -> None:
    # The .npy goes to standard output (-o -): thousands of files would cost as many fsyncs.
    extracted = 0
    for item, path, theirs in _files(models, tmp_path):
        wanted = _tensors_onnx_sees(theirs)
        if not wanted:
            continue
        assert main(["tensors", "--list", "--json", str(path)]) == 0
        listing = json.loads(capsysbinary.readouterr().out)["tensors"]
        names = {name for entry in listing for name in entry["names"]}
        for name, expected in wanted:
            assert name in names, (item.name, name)
            if sum(1 for entry in listing if name in entry["names"]) > 1:
                continue  # the same name in two places: extract asks for a path (tested elsewhere)
            assert main(["tensors", str(path), name, "-o", "-"]) == 0, (item.name, name)
            got = np.load(io.BytesIO(capsysbinary.readouterr().out), allow_pickle=False)
            if expected.dtype == object:
                expected = expected.astype(str) if expected.size else expected.astype(np.str_)
            elif expected.dtype.kind == "V" or expected.dtype.name.startswith(
                ("bfloat16", "float8", "float4")
            ):
                expected = expected.astype(np.float32)
            elif expected.dtype.name in ("int4", "int2"):
                expected = expected.astype(np.int8)
            elif expected.dtype.name in ("uint4", "uint2"):
                expected = expected.astype(np.uint8)
            assert got.shape == expected.shape, (item.name, name)
            assert np.array_equal(got, expected, equal_nan=got.dtype.kind == "f"), (item.name, name)
            extracted += 1
    assert extracted > 100


def _with_other_storage(model: Any) -> Any:
    """The same model with initializers and Constant values moved between typed fields and raw_data.

    onnx does the rewriting: ``numpy_helper.from_array`` writes raw_data, ``helper.make_tensor``
    typed fields. The elements stay the same.
    """
    changed = onnx.ModelProto()
    changed.CopyFrom(model)
    constants = [a.t for n in changed.graph.node for a in n.attribute if a.HasField("t")]
    for tensor in [*changed.graph.initializer, *constants]:
        if tensor.data_type == onnx.TensorProto.STRING:
            continue
        array = numpy_helper.to_array(tensor)
        if tensor.HasField("raw_data"):
            if tensor.data_type not in (
                onnx.TensorProto.FLOAT,
                onnx.TensorProto.INT64,
                onnx.TensorProto.INT32,
            ):
                continue
            moved = onnx.helper.make_tensor(
                tensor.name, tensor.data_type, array.shape, array.reshape(-1).tolist()
            )
        else:
            moved = numpy_helper.from_array(array, tensor.name)
        tensor.CopyFrom(moved)
    return changed


def test_diff_compares_by_value_and_names_the_field_onnx_changed(
    models: list[CorpusItem], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    retyped = edited = 0
    other = tmp_path / "other.onnx"
    for item, path, theirs in _files(models, tmp_path):
        code, result = _json(capsys, ["diff", "--json", str(path), str(path)])
        assert (code, result["equal"], result["differences"]) == (0, True, []), item.name

        moved = _with_other_storage(theirs)
        if moved != theirs:
            other.write_bytes(moved.SerializeToString())
            code, result = _json(capsys, ["diff", "--json", str(path), str(other)])
            assert (code, result["differences"]) == (0, []), item.name
            retyped += 1

        # Change one integer attribute with onnx: diff must report exactly that field.
        for n, node in enumerate(theirs.graph.node):
            ints = [k for k, a in enumerate(node.attribute) if a.type == onnx.AttributeProto.INT]
            if ints:
                changed = onnx.ModelProto()
                changed.CopyFrom(theirs)
                attribute = changed.graph.node[n].attribute[ints[0]]
                attribute.i += 1
                other.write_bytes(changed.SerializeToString())
                code, result = _json(capsys, ["diff", "--json", str(path), str(other)])
                where = f"graph.node[{n}].attribute[{ints[0]}].i"
                assert code == 1, item.name
                assert [(d["path"], d["a"], d["b"]) for d in result["differences"]] == [
                    (where, attribute.i - 1, attribute.i)
                ], item.name
                edited += 1
                break
    assert retyped > 10 and edited > 100
