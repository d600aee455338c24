"""wirecodec.compose against onnx.compose: the same bytes from the same models."""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, require_onnx
from wirecodec import CheckError, GraphError, compose
from wirecodec.cli import main
from wirecodec.helper import make_node as onnx_node

onnx = require_onnx()
theirs_compose = pytest.importorskip("onnx.compose")


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"]


def _ours(data: bytes) -> ModelProto:
    return wirecodec.decode(ModelProto, data)


def _same(
    ours: Callable[..., Any], theirs: Callable[..., Any], models: list[bytes], *args: Any, **kwargs: Any
) -> bool:
    """Both functions on both parses of ``models``: equal bytes (asserted), or False when onnx refuses."""
    try:
        expected = theirs(*[onnx.load_from_string(m) for m in models], *args, **kwargs).SerializeToString()
    except (ValueError, onnx.checker.ValidationError):
        with pytest.raises((GraphError, CheckError)):
            ours(*[_ours(m) for m in models], *args, **kwargs)
        return False
    assert ours(*[_ours(m) for m in models], *args, **kwargs).SerializeToString() == expected
    return True


_PREFIX_OPTIONS: list[dict[str, bool]] = [
    {},
    {"rename_nodes": False},
    {"rename_edges": False, "rename_value_infos": False},
    {"rename_inputs": False, "rename_outputs": False},
    {"rename_initializers": False, "rename_functions": False},
]


def test_add_prefix_and_expand_out_dim_on_the_corpus(corpus: list[CorpusItem]) -> None:
    compared = 0
    for i, item in enumerate(corpus):
        options = _PREFIX_OPTIONS[i % len(_PREFIX_OPTIONS)]
        assert _same(compose.add_prefix, theirs_compose.add_prefix, [item.data], "p/", **options), item.name
        graph_options = {k: v for k, v in options.items() if k != "rename_functions"}
        ours = compose.add_prefix_graph(_ours(item.data).graph, "g_", **graph_options)
        theirs = theirs_compose.add_prefix_graph(
            onnx.load_from_string(item.data).graph, "g_", **graph_options
        )
        assert ours.SerializeToString() == theirs.SerializeToString(), item.name
        model = onnx.load_from_string(item.data)
        if all(o.type.HasField("tensor_type") for o in model.graph.output):
            assert _same(compose.expand_out_dim, theirs_compose.expand_out_dim, [item.data], i % 2), item.name
        compared += 1
    assert compared > 1500


def test_merge_models_on_the_corpus(corpus: list[CorpusItem]) -> None:
    """Each model beside the next one (no connection), and each with itself in series where an
    output and an input share a type: prefixes keep the names apart."""
    merged = 0
    for first, second in zip(corpus[::7], corpus[1::7], strict=False):
        m1, m2 = onnx.load_from_string(first.data), onnx.load_from_string(second.data)
        if m1.ir_version != m2.ir_version:
            continue
        merged += _same(
            compose.merge_models,
            theirs_compose.merge_models,
            [first.data, second.data],
            [],
            prefix1="a/",
            prefix2="b/",
        )
        outputs = {o.name: o.type for o in m1.graph.output}
        pairs = [(o, i.name) for i in m1.graph.input for o, t in outputs.items() if t == i.type][:1]
        if pairs:
            merged += _same(
                compose.merge_models,
                theirs_compose.merge_models,
                [first.data, first.data],
                pairs,
                prefix1="x_",
                prefix2="y_",
            )
    assert merged > 100


def _tensor(name: str, dtype: int, shape: list[Any]) -> Any:
    return onnx.helper.make_tensor_value_info(name, dtype, shape)


def _pre(net: Any) -> bytes:
    """uint8 image -> float in [0, 1], as the network's input."""
    x = net.graph.input[0]
    dims = [d.dim_value or d.dim_param for d in x.type.tensor_type.shape.dim]
    graph = onnx.helper.make_graph(
        [
            onnx.helper.make_node("Cast", ["raw"], ["as_float"], name="cast", to=onnx.TensorProto.FLOAT),
            onnx.helper.make_node("Div", ["as_float", "scale"], ["image"], name="scale"),
        ],
        "preprocess",
        [_tensor("raw", onnx.TensorProto.UINT8, dims)],
        [_tensor("image", onnx.TensorProto.FLOAT, dims)],
        initializer=[onnx.numpy_helper.from_array(np.array(255, np.float32), "scale")],
        doc_string="bytes to floats",
    )
    model = onnx.helper.make_model(graph, opset_imports=list(net.opset_import), ir_version=net.ir_version)
    onnx.helper.set_model_props(model, {"stage": "pre"})
    return model.SerializeToString()


def _post(net: Any) -> bytes:
    """Softmax over the last axis, and the arg max."""
    y = net.graph.output[0]
    dims = [d.dim_value or d.dim_param for d in y.type.tensor_type.shape.dim]
    graph = onnx.helper.make_graph(
        [
            onnx.helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1),
            onnx.helper.make_node("ArgMax", ["probabilities"], ["label"], axis=-1, keepdims=0),
        ],
        "postprocess",
        [_tensor("logits", onnx.TensorProto.FLOAT, dims)],
        [
            _tensor("probabilities", onnx.TensorProto.FLOAT, dims),
            _tensor("label", onnx.TensorProto.INT64, dims[:-1]),
        ],
    )
    model = onnx.helper.make_model(graph, opset_imports=list(net.opset_import), ir_version=net.ir_version)
    return model.SerializeToString()


def test_pre_and_post_processing_glued_to_pytorch_exports(
    pytorch_exports: list[Export], tmp_path: pathlib.Path
) -> None:
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime runs the glued models (test extra)")
    glued = 0
    for export in pytorch_exports:
        if not export.name.startswith(("mlp", "cnn")):
            continue
        net = onnx.load_from_string(export.data)
        inp, out = net.graph.input[0].name, net.graph.output[0].name
        pre, post = _pre(net), _post(net)
        ours_1 = compose.merge_models(_ours(pre), _ours(export.data), [("image", inp)], prefix2="net/")
        theirs_1 = theirs_compose.merge_models(
            onnx.load_from_string(pre), net, [("image", inp)], prefix2="net/"
        )
        assert ours_1.SerializeToString() == theirs_1.SerializeToString(), export.name
        options: dict[str, Any] = {"outputs": ["label"], "name": "classifier", "producer_name": "me"}
        ours_2 = compose.merge_models(ours_1, _ours(post), [("net/" + out, "logits")], **options)
        theirs_2 = theirs_compose.merge_models(
            theirs_1, onnx.load_from_string(post), [("net/" + out, "logits")], **options
        )
        data = ours_2.SerializeToString()
        assert data == theirs_2.SerializeToString(), export.name
        # merge_graphs alone, and the glued model computes the network's answer.
        g = compose.merge_graphs(_ours(pre).graph, _ours(export.data).graph, [("image", inp)], prefix2="n_")
        t = theirs_compose.merge_graphs(
            onnx.load_from_string(pre).graph, net.graph, [("image", inp)], prefix2="n_"
        )
        assert g.SerializeToString() == t.SerializeToString()
        raw = np.clip(export.inputs[0] * 40 + 128, 0, 255).astype(np.uint8)
        path = tmp_path / f"{export.name}.onnx"
        wirecodec.save(compose.dedupe_opset_import(ours_2), path)
        (label,) = wirecodec.onnxruntime_session(path, providers=["CPUExecutionProvider"]).run(
            None, {"raw": raw}
        )
        session = ort.InferenceSession(export.data, providers=["CPUExecutionProvider"])
        (logits,) = session.run(None, {inp: raw.astype(np.float32) / 255})
        np.testing.assert_array_equal(label, logits.argmax(-1))
        glued += 1
    assert glued >= 2


def _two() -> tuple[ModelProto, ModelProto]:
    float_ = onnx.TensorProto.FLOAT
    a = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("Relu", ["x"], ["h"], name="n")],
            "a",
            [_tensor("x", float_, [2])],
            [_tensor("h", float_, [2])],
        ),
        opset_imports=[onnx.helper.make_opsetid("", 21)],
    )
    b = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("Neg", ["h"], ["y"], name="n")],
            "b",
            [_tensor("h", float_, [2])],
            [_tensor("y", float_, [2])],
        ),
        opset_imports=[onnx.helper.make_opsetid("", 21)],
    )
    return _ours(a.SerializeToString()), _ours(b.SerializeToString())


def test_errors_where_onnx_raises_value_error() -> None:
    a, b = _two()
    with pytest.raises(GraphError, match="the edge names 'h'"):
        compose.merge_models(a, b, [])
    with pytest.raises(GraphError, match="'nope' is not an output of the first graph"):
        compose.merge_models(a, b, [("nope", "h")])
    with pytest.raises(GraphError, match="'nope' is not an input of the second graph"):
        compose.merge_models(a, b, [("h", "nope")])
    c = compose.add_prefix(b, "c/")
    c.opset_import[0].version = 20
    with pytest.raises(GraphError, match="domain '' is version 21 in one model and 20"):
        compose.merge_models(a, c, [("h", "c/h")])
    c = compose.add_prefix(b, "c/")
    c.ir_version = 7
    with pytest.raises(GraphError, match="ir_version"):
        compose.merge_models(a, c, [("h", "c/h")])
    a.metadata_props.add(key="k", value="1")
    c = compose.add_prefix(b, "c/")
    c.metadata_props.add(key="k", value="2")
    with pytest.raises(GraphError, match="metadata_props: 'k' is '1' in the first model and '2'"):
        compose.merge_models(a, c, [("h", "c/h")])
    with pytest.raises(TypeError, match="g1 argument is not an ONNX graph"):
        compose.merge_graphs(a, b.graph, [])  # type: ignore[arg-type]
    # the merged model is checked: an undefined input is a CheckError
    c = compose.add_prefix(b, "c/")
    c.graph.node[0].input[0] = "undefined"
    with pytest.raises(CheckError, match="undefined"):
        compose.merge_models(a, c, [("h", "c/h")])


def test_cli_merge(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = _two()
    wirecodec.save(a, tmp_path / "a.onnx")
    # b as a zip container: every layout opens
    wirecodec.save_zip(b, tmp_path / "b.onnxz")
    out = tmp_path / "ab.onnx"
    assert (
        main(
            [
                "merge",
                str(tmp_path / "a.onnx"),
                str(tmp_path / "b.onnxz"),
                str(out),
                "--io-map",
                "h:h",
                "--prefix2",
                "b/",
            ]
        )
        == 0
    )
    merged = wirecodec.load(out)
    expected = compose.dedupe_opset_import(compose.merge_models(a, b, [("h", "h")], prefix2="b/"))
    assert merged == expected
    assert [n.op_type for n in merged.graph.node] == ["Relu", "Neg"]
    assert "2 nodes" in capsys.readouterr().out
    wirecodec.check(out)
    assert (
        main(["merge", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnxz"), str(out), "--io-map", "h:nope"])
        == 2
    )
    assert "'nope' is not an input of the second graph" in capsys.readouterr().err
    assert (
        main(["merge", str(tmp_path / "a.onnx"), str(tmp_path / "b.onnxz"), str(out), "--io-map", "h"]) == 2
    )
    assert (
        main(["merge", str(tmp_path / "a.onnx"), str(tmp_path / "nope.onnx"), str(out), "--io-map", "h:h"])
        == 1
    )


def test_cli_io_map_names_with_colons() -> None:
    from wirecodec.cli.merge import io_map

    outs, ins = {"onnx::Gemm_0", "a"}, {"b::c", "d"}
    assert io_map(["onnx::Gemm_0:b::c,a:d"], outs, ins) == [("onnx::Gemm_0", "b::c"), ("a", "d")]


def test_function_calls_and_bodies_follow_the_renames() -> None:
    """A local function calling another (add_prefix renames the call), and an If branch of the
    second model reading the connected input (merge renames the read): onnx's bytes."""
    float_ = onnx.TensorProto.FLOAT
    inner = onnx.helper.make_function(
        "local",
        "inner",
        ["a"],
        ["b"],
        [onnx.helper.make_node("Relu", ["a"], ["b"])],
        [onnx.helper.make_opsetid("", 21)],
    )
    outer = onnx.helper.make_function(
        "local",
        "outer",
        ["a"],
        ["b"],
        [onnx.helper.make_node("inner", ["a"], ["b"], domain="local")],
        [onnx.helper.make_opsetid("", 21), onnx.helper.make_opsetid("local", 1)],
    )
    first = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("outer", ["x"], ["h"], domain="local")],
            "first",
            [_tensor("x", float_, [2])],
            [_tensor("h", float_, [2])],
        ),
        opset_imports=[onnx.helper.make_opsetid("", 21), onnx.helper.make_opsetid("local", 1)],
        functions=[inner, outer],
    )
    branch = onnx.helper.make_graph(
        [onnx.helper.make_node("Neg", ["h"], ["t"])], "then", [], [_tensor("t", float_, [2])]
    )
    other = onnx.helper.make_graph(
        [onnx.helper.make_node("Identity", ["h"], ["e"])], "else", [], [_tensor("e", float_, [2])]
    )
    second = onnx.helper.make_model(
        onnx.helper.make_graph(
            [onnx.helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=other)],
            "second",
            [_tensor("c", onnx.TensorProto.BOOL, []), _tensor("h", float_, [2])],
            [_tensor("y", float_, [2])],
        ),
        opset_imports=[onnx.helper.make_opsetid("", 21)],
    )
    data = [first.SerializeToString(), second.SerializeToString()]
    assert _same(compose.add_prefix, theirs_compose.add_prefix, data[:1], "p_")
    assert _same(compose.merge_models, theirs_compose.merge_models, data, [("h", "h")], prefix1="one/")
    merged = compose.merge_models(_ours(data[0]), _ours(data[1]), [("h", "h")], prefix1="one/")
    assert merged.graph.node[1].attribute[1].g.node[0].input == ["one/h"]


@pytest.mark.parametrize("layout", ["single", "external", "zip"])
def test_cli_merge_every_layout(
    tmp_path: pathlib.Path, layout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Both sources in one layout (weights big enough to move), the same merged model each time."""
    a, b = _two()
    b.graph.initializer.append(wirecodec.from_array(np.ones(512, np.float32), "bias"))
    b.graph.node.append(onnx_node("Add", ["y", "bias"], ["z"]))
    b.graph.output[0].name = "z"
    paths = []
    for name, model in (("a", a), ("b", b)):
        single = tmp_path / f"{name}-single.onnx"
        wirecodec.save(model, single)
        path = tmp_path / f"{name}.{'onnxz' if layout == 'zip' else 'onnx'}"
        wirecodec.convert(single, path, to=layout, **({"size_threshold": 64} if layout == "external" else {}))
        paths.append(str(path))
    if layout == "external":
        assert (tmp_path / "b.onnx.data").exists()
    out = tmp_path / "out.onnxz"
    assert main(["merge", *paths, str(out), "--io-map", "h:h", "--prefix1", "a/"]) == 0
    merged = wirecodec.load(out)
    assert [n.op_type for n in merged.graph.node] == ["Relu", "Neg", "Add"]
    np.testing.assert_array_equal(wirecodec.to_array(merged.graph.initializer[0]), np.ones(512))
    capsys.readouterr()


def test_add_prefix_renames_inside_graphs_typed_attributes_as_onnx() -> None:
    """A node whose attribute holds a list of graphs (type GRAPHS, as custom ops may have):
    each listed body is renamed too, as onnx's add_prefix_graph does."""
    float_ = onnx.TensorProto.FLOAT
    bodies = [
        onnx.helper.make_graph(
            [onnx.helper.make_node("Add", ["x", "w"], [f"out{i}"], name=f"inner{i}")],
            f"body{i}",
            [],
            [onnx.helper.make_tensor_value_info(f"out{i}", float_, [2])],
        )
        for i in range(2)
    ]
    node = onnx.helper.make_node("Fold", ["x"], ["y"], name="fold", domain="custom.domain", steps=bodies)
    assert node.attribute[0].type == onnx.AttributeProto.GRAPHS
    graph = onnx.helper.make_graph(
        [node],
        "g",
        [onnx.helper.make_tensor_value_info("x", float_, [2])],
        [onnx.helper.make_tensor_value_info("y", float_, [2])],
        initializer=[onnx.numpy_helper.from_array(np.ones(2, np.float32), "w")],
    )
    ours = compose.add_prefix_graph(wirecodec.decode(GraphProto, graph.SerializeToString()), "p/")
    theirs = theirs_compose.add_prefix_graph(graph, "p/")
    assert [n.name for body in theirs.node[0].attribute[0].graphs for n in body.node] == [
        "p/inner0",
        "p/inner1",
    ]
    assert ours.SerializeToString() == theirs.SerializeToString()
