"""wirecodec.graphs.draw and the draw verb: DOT text for every corpus model, clusters, cuts, rendering."""

from __future__ import annotations

import pathlib
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, require_onnx
from wirecodec import GraphError
from wirecodec.cli import main
from wirecodec.examples.build_mlp import build
from wirecodec.graphs.draw import render, to_dot
from wirecodec.helper import make_graph, make_model, make_node, make_opsetid, make_tensor_value_info

DOT = shutil.which("dot")
needs_dot = pytest.mark.skipif(
    DOT is None, reason="Graphviz's dot is not installed (apt-get install graphviz)"
)
_OPS = re.compile(r"label=<<b>([^<]+)</b>")


def _ops(text: str) -> list[str]:
    return _OPS.findall(text)


def _parses(text: str) -> None:
    """dot reads the text without a warning or an error."""
    assert DOT is not None
    result = subprocess.run([DOT, "-Tcanon"], input=text.encode(), capture_output=True, check=False)
    assert result.returncode == 0 and not result.stderr, result.stderr.decode()


def test_the_example_model() -> None:
    text = to_dot(build())
    assert _ops(text) == ["Gemm", "Relu", "Gemm"]
    assert 'label="x\\nfloat[N,4]"' in text  # an input and its type
    assert 'label="w1\\nfloat[16,4]"' in text  # an initializer as a small box
    assert "transB=1" in text  # a key attribute
    assert '-> o9 [label="float[N,3]"]' in text  # the output edge carries its shape
    assert "left out" not in text


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    require_onnx()
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"]


def _bodies(model: ModelProto) -> int:
    def count(graph: object) -> int:
        total = 0
        for node in graph.node:  # type: ignore[attr-defined]
            for attribute in node.attribute:
                bodies = ([attribute.g] if attribute.HasField("g") else []) + list(attribute.graphs)
                total += len(bodies) + sum(count(body) for body in bodies)
        return total

    return count(model.graph)


def test_every_corpus_model_draws(corpus: list[CorpusItem]) -> None:
    """Every model gives DOT with one box per operator and one cluster per body; dot reads the
    ones with bodies and a sample of the rest."""
    with_bodies = 0
    for index, item in enumerate(corpus):
        model = wirecodec.decode(ModelProto, item.data)
        text = to_dot(model)
        bodies = _bodies(model)
        assert text.count("subgraph cluster_") == bodies, item.name
        constants = text.count('label="Constant ')
        assert len(_ops(text)) + constants >= len(model.graph.node), item.name
        with_bodies += bodies > 0
        if DOT is not None and (bodies or index % 25 == 0):
            _parses(text)
    assert with_bodies > 20


def _chain(count: int) -> ModelProto:
    nodes = [make_node("Relu", [f"t{i}"], [f"t{i + 1}"], name=f"relu{i}") for i in range(count)]
    graph = make_graph(
        nodes,
        "chain",
        [make_tensor_value_info("t0", 1, [4])],
        [make_tensor_value_info(f"t{count}", 1, [4])],
        value_info=[make_tensor_value_info(f"t{i}", 1, [4]) for i in range(1, count)],
    )
    return make_model(graph, opset_imports=[make_opsetid("", 21)])


def test_cut_at_max_nodes_and_around_a_name() -> None:
    model = _chain(50)
    text = to_dot(model, max_nodes=10)
    assert len(_ops(text)) == 10 and "10 of 50 nodes drawn; 40 left out (max_nodes 10)" in text
    assert 'label="t50"' not in text  # the output's producer is not drawn: neither is the output
    text = to_dot(model, around="relu20", depth=3)
    assert len(_ops(text)) == 7 and "around 'relu20', depth 3" in text
    assert "7 of 50 nodes drawn; 43 left out (outside depth 3)" in text
    assert re.search(r'x\d+ \[label="t17"', text)  # the tensor made by a node not drawn: a stub names it
    assert len(_ops(to_dot(model, around="t20", depth=0))) == 2  # a tensor: its producer and reader
    with pytest.raises(GraphError, match="no node is named 'nowhere'"):
        to_dot(model, around="nowhere")
    with pytest.raises(ValueError, match="max_nodes"):
        to_dot(model, max_nodes=0)


def test_hostile_names_are_escaped() -> None:
    names = ['a"b', "c\\d", "<e&f>", "g\nh"]
    nodes = [make_node("Identity", [names[i]], [names[i + 1]], name=names[i]) for i in range(3)]
    graph = make_graph(nodes, 'quote"graph', [make_tensor_value_info(names[0], 1, [1])], [])
    text = to_dot(make_model(graph, opset_imports=[make_opsetid("", 21)]))
    assert "&lt;e&amp;f&gt;" in text
    if DOT is not None:
        _parses(text)


@needs_dot
def test_render_svg_and_png(tmp_path: pathlib.Path) -> None:
    svg = render(to_dot(build()), "svg")
    titles = "".join(ET.fromstring(svg).itertext())
    assert "Gemm" in titles and "Relu" in titles and "float[16,4]" in titles
    assert render(to_dot(build()), "png").startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(OSError, match="dot failed"):
        render("digraph { a -> }", "svg")


def test_cli_draw(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "mlp.onnx"
    wirecodec.save(build(), path, external_data=True, size_threshold=64)
    assert main(["draw", str(path)]) == 0
    assert _ops(capsys.readouterr().out) == ["Gemm", "Relu", "Gemm"]
    assert main(["draw", str(path), "-o", str(tmp_path / "m.dot")]) == 0
    assert (tmp_path / "m.dot").read_text() == to_dot(wirecodec.load(path))
    assert main(["draw", str(path), "-o", str(tmp_path / "m.txt")]) == 2
    assert main(["draw", str(path), "--around", "nowhere"]) == 2
    assert "no node is named 'nowhere'" in capsys.readouterr().err
    assert main(["draw", str(path), "--max-nodes", "0"]) == 2


def test_cli_draw_without_graphviz(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot here
    assert main(["draw", str(wirecodec.cli.EXAMPLE), "-o", str(tmp_path / "m.png")]) == 1
    err = capsys.readouterr().err
    assert "Graphviz's dot is not on PATH" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "m.png").exists()


@needs_dot
def test_pytorch_exports_render(
    pytorch_exports: list[Export], tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each export becomes a PNG; the dynamo exports' edges carry shapes from value_info."""
    for export in pytorch_exports:
        path = tmp_path / f"{export.name}.onnx"
        path.write_bytes(export.data)
        assert main(["draw", str(path), "-o", str(tmp_path / f"{export.name}.png")]) == 0, export.name
        assert (tmp_path / f"{export.name}.png").read_bytes()[:4] == b"\x89PNG"
        if export.name.endswith("dynamo"):
            text = to_dot(wirecodec.load(path))
            assert len(re.findall(r'-> n\d+ \[label="float\[', text)) >= 2, export.name
    capsys.readouterr()


@pytest.mark.parametrize("layout", ["single", "external", "zip"])
def test_cli_draw_every_layout(
    tmp_path: pathlib.Path, layout: str, capsys: pytest.CaptureFixture[str]
) -> None:
    single = tmp_path / "single.onnx"
    wirecodec.save(build(), single)
    path = tmp_path / ("m.onnxz" if layout == "zip" else "m.onnx")
    wirecodec.convert(single, path, to=layout, **({"size_threshold": 64} if layout == "external" else {}))
    assert main(["draw", str(path)]) == 0
    assert capsys.readouterr().out == to_dot(wirecodec.load(single))
