"""wirecodec.utils.extract_model against onnx.utils.extract_model: the same bytes, on every layout.

onnx is called with ``infer_shapes=False`` (the cut keeps the value_info the model has),
and with ``infer_shapes=True`` on models whose shapes were inferred already; wirecodec
infers nothing (no operator schemas, and no onnx at run time) and must write identical
files wherever onnx's result is a valid model.
"""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, require_onnx
from wirecodec import GraphError, helper
from wirecodec.cli import main
from wirecodec.utils import Extractor, extract_model

onnx = require_onnx()
utils = pytest.importorskip("onnx.utils")


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [item for item in backend_corpus(cache) if item.message == "ModelProto"]


def _theirs(
    src: pathlib.Path, dst: pathlib.Path, inputs: list[str], outputs: list[str], infer_shapes: bool = False
) -> bool:
    """onnx's cut into ``dst``; False where onnx refuses or its result fails its own checker."""
    try:
        utils.extract_model(str(src), str(dst), inputs, outputs, check_model=True, infer_shapes=infer_shapes)
    except (onnx.checker.ValidationError, ValueError):
        return False
    return True


def _cuts(model: Any) -> Iterator[tuple[list[str], list[str]]]:
    """The whole graph, and the last node alone (between the names that have a type)."""
    graph = model.graph
    yield [v.name for v in graph.input], [v.name for v in graph.output]
    typed = {v.name for v in [*graph.value_info, *graph.input, *graph.output]}
    last = graph.node[-1]
    inputs = [name for name in last.input if name in typed]
    outputs = [name for name in last.output if name in typed]
    if len(graph.node) > 1 and inputs and outputs:
        yield inputs, outputs


def test_backend_corpus_same_bytes_as_onnx(corpus: list[CorpusItem], tmp_path: pathlib.Path) -> None:
    src, theirs, ours = tmp_path / "m.onnx", tmp_path / "theirs.onnx", tmp_path / "ours.onnx"
    compared, refused = 0, []
    for item in corpus:
        model = onnx.load_from_string(item.data)
        if not model.graph.node:
            continue
        src.write_bytes(item.data)
        for inputs, outputs in _cuts(model):
            if not inputs or not _theirs(src, theirs, inputs, outputs, False):
                refused.append(item.name)
                continue
            extract_model(src, ours, inputs, outputs, infer_shapes=False)
            assert ours.read_bytes() == theirs.read_bytes(), (item.name, inputs, outputs)
            compared += 1
    assert compared > 1500, (compared, refused[:10])


def test_outer_scope_reads_are_kept_where_onnx_drops_them(
    corpus: list[CorpusItem], tmp_path: pathlib.Path
) -> None:
    """A Scan/Loop body reading a tensor of the main graph: onnx's cut loses the node making it
    (and fails its own checker); ours keeps it, and onnx's checker accepts ours."""
    src, theirs, ours = tmp_path / "m.onnx", tmp_path / "theirs.onnx", tmp_path / "ours.onnx"
    fixed = 0
    for item in corpus:
        if "linear_attention" not in item.name or "expanded" not in item.name:
            continue
        src.write_bytes(item.data)
        model = onnx.load_from_string(item.data)
        inputs = [v.name for v in model.graph.input if v.name]
        outputs = [v.name for v in model.graph.output]
        if _theirs(src, theirs, inputs, outputs):
            continue
        extract_model(src, ours, inputs, outputs)
        onnx.checker.check_model(str(ours))
        fixed += 1
    assert fixed > 0


def _inferred(export: Export, folder: pathlib.Path) -> tuple[pathlib.Path, Any]:
    """The export with every intermediate typed (onnx's shape inference), saved by onnx."""
    model = onnx.shape_inference.infer_shapes(onnx.load_from_string(export.data))
    path = folder / f"{export.name}.onnx"
    onnx.save(model, str(path))
    return path, model


def _export_cuts(model: Any) -> list[tuple[list[str], list[str]]]:
    """A head (inputs to a node near the middle), a tail and a middle block of a real network."""
    graph = model.graph
    typed = {v.name for v in graph.value_info}
    produced = [name for node in graph.node for name in node.output if name in typed]
    inputs = [v.name for v in graph.input]
    outputs = [v.name for v in graph.output]
    if len(produced) < 3:
        return [(inputs, outputs)]
    third, middle = produced[len(produced) // 3], produced[len(produced) // 2]
    return [(inputs, outputs), (inputs, [middle]), ([middle], outputs), ([third], [middle])]


def test_pytorch_exports_same_bytes_as_onnx(pytorch_exports: list[Export], tmp_path: pathlib.Path) -> None:
    compared = 0
    for export in pytorch_exports:
        src, model = _inferred(export, tmp_path)
        for inputs, outputs in _export_cuts(model):
            if not _theirs(src, tmp_path / "theirs.onnx", inputs, outputs):
                continue
            extract_model(src, tmp_path / "ours.onnx", inputs, outputs, infer_shapes=False)
            theirs = (tmp_path / "theirs.onnx").read_bytes()
            assert (tmp_path / "ours.onnx").read_bytes() == theirs, (export.name, inputs, outputs)
            # onnx inferring shapes again on an inferred model changes nothing, and wirecodec
            # (the default infer_shapes=True, inferring nothing) writes the same bytes.
            assert _theirs(src, tmp_path / "theirs-inferred.onnx", inputs, outputs, infer_shapes=True)
            assert (tmp_path / "theirs-inferred.onnx").read_bytes() == theirs, export.name
            utils.extract_model(str(src), str(tmp_path / "inferred.onnx"), inputs, outputs)
            assert (tmp_path / "inferred.onnx").read_bytes() == theirs, export.name
            compared += 1
    assert compared >= 2 * len(pytorch_exports)


def _run(path: pathlib.Path, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    pytest.importorskip("onnxruntime", reason="onnxruntime runs the cut models (test extra)")
    session = wirecodec.onnxruntime_session(path, providers=["CPUExecutionProvider"])
    return list(session.run(None, feeds))


@pytest.mark.parametrize("layout", ["external", "zip"])
def test_every_layout_cuts_like_the_single_file(
    pytorch_exports: list[Export], tmp_path: pathlib.Path, layout: str
) -> None:
    """External data and .onnxz sources give onnx's bytes (or the single file's, where onnx cannot
    read the source); an external-data result holds only the kept tensors; every result runs
    and computes the same values."""
    export = next(e for e in pytorch_exports if e.name == "transformer-dynamo")
    src, model = _inferred(export, tmp_path)
    # The first half of the block: attention weights kept, the feed-forward ones dropped.
    inputs, outputs = _export_cuts(model)[1]
    extract_model(src, tmp_path / "from-single.onnx", inputs, outputs)
    other = tmp_path / ("split.onnx" if layout == "external" else "model.onnxz")
    wirecodec.convert(src, other, to=layout, **({"size_threshold": 64} if layout == "external" else {}))
    extract_model(other, tmp_path / "cut.onnx", inputs, outputs)
    if layout == "external":
        # onnx reads external data too, and marks each loaded tensor's data_location DEFAULT:
        # its cut of this source is the reference.
        assert _theirs(other, tmp_path / "theirs.onnx", inputs, outputs, infer_shapes=True)
        assert (tmp_path / "cut.onnx").read_bytes() == (tmp_path / "theirs.onnx").read_bytes()
    else:
        # onnx cannot read a zip container; its tensors load as the single file's do.
        assert (tmp_path / "cut.onnx").read_bytes() == (tmp_path / "from-single.onnx").read_bytes()

    extract_model(other, tmp_path / "cut-ext.onnx", inputs, outputs, external_data=True)
    extract_model(other, tmp_path / "cut.onnxz", inputs, outputs)
    cut = wirecodec.load(tmp_path / "cut.onnx")
    kept = sum(len(t.raw_data) for t in cut.graph.initializer if len(t.raw_data) >= 1024)
    dropped = sum(len(t.raw_data) for t in wirecodec.load(src).graph.initializer) - sum(
        len(t.raw_data) for t in cut.graph.initializer
    )
    assert dropped > 0
    stored = wirecodec.load(tmp_path / "cut-ext.onnx", load_external_data=False).graph.initializer
    locations = {e.value for t in stored for e in t.external_data if e.key == "location"}
    if layout == "external":
        # The kept tensors are still in split.onnx.data, which resolves from the cut: it points
        # into that file (unread, the one write-back's rule) and writes no data file of its own.
        assert kept > 0 and not (tmp_path / "cut-ext.onnx.data").exists()
        assert locations == {"split.onnx.data"}
    else:
        assert locations == {"cut-ext.onnx.data"}
        data = (tmp_path / "cut-ext.onnx.data").stat().st_size
        assert kept <= data < kept + dropped, (kept, data, dropped)
    for path in ("cut-ext.onnx", "cut.onnxz"):
        again = wirecodec.load(tmp_path / path)
        assert again.graph.node == cut.graph.node, path
        assert [(t.name, bytes(t.raw_data)) for t in again.graph.initializer] == [
            (t.name, bytes(t.raw_data)) for t in cut.graph.initializer
        ], path

    feeds = dict(zip(inputs, export.inputs, strict=True))
    (expected,) = _run(tmp_path / "from-single.onnx", feeds)
    for path in ("cut-ext.onnx", "cut.onnxz"):
        (value,) = _run(tmp_path / path, feeds)
        np.testing.assert_array_equal(value, expected, err_msg=path)


def _typed_mlp() -> ModelProto:
    from wirecodec.examples.build_mlp import build

    model = build()
    model.graph.value_info.append(helper.make_tensor_value_info("a", 1, ["N", 16]))
    return model


def test_errors_name_what_is_wrong(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "mlp.onnx"
    wirecodec.save(_typed_mlp(), src)
    out = tmp_path / "out.onnx"
    cases: list[tuple[list[str], list[str], str]] = [
        (["x"], ["nowhere"], "output_names: 'nowhere' not found in the graph"),
        (["x"], ["relu"], "'relu' names a node: its outputs are 'a'"),
        (["ghost", "x"], ["y"], "input_names: 'ghost' not found"),
        (["x"], ["h"], "'h' without a type"),
        ([], ["y"], "input_names: no tensor names given"),
        (["x", "x"], ["y"], "input_names: 'x' given more than once"),
        (["a"], ["a", "y", "a"], "output_names: 'a' given more than once"),
        # y needs a, which needs x: starting at a typed tensor downstream leaves w2/b2 fine,
        # but cutting at y alone from an unrelated input leaves x undefined.
        (["y"], ["a"], "reads 'x'"),
    ]
    for inputs, outputs, message in cases:
        with pytest.raises(GraphError, match=message.replace("(", r"\(")):
            extract_model(src, out, inputs, outputs, infer_shapes=False)
        assert not out.exists()
    # Without inference 'h' stays untyped; with it (onnx's default), 'h' has its inferred
    # type and the file is onnx's, byte for byte.
    with pytest.raises(GraphError, match="'h' without a type"):
        extract_model(src, out, ["x"], ["h"], infer_shapes=False)
    assert not out.exists()
    extract_model(src, out, ["x"], ["h"], infer_shapes=True)
    onnx.utils.extract_model(str(src), str(tmp_path / "onnx_h.onnx"), ["x"], ["h"], infer_shapes=True)
    assert out.read_bytes() == (tmp_path / "onnx_h.onnx").read_bytes()
    out.unlink()
    with pytest.raises(GraphError, match="not the string"):
        extract_model(src, out, "x", ["y"])
    with pytest.raises(FileNotFoundError):
        extract_model(tmp_path / "missing.onnx", out, ["x"], ["y"])
    # Without the check, the undefined cut is written, as onnx writes it.
    extract_model(src, out, ["y"], ["a"], check_model=False)
    assert [n.op_type for n in wirecodec.load(out).graph.node] == ["Gemm", "Relu"]


def test_duplicate_producers_and_sparse_initializers() -> None:
    model = _typed_mlp()
    model.graph.node[2].output[0] = "a"
    message = r"graph.node\[2\].output: 'a' is already the output of graph.node\[1\]"
    with pytest.raises(GraphError, match=message):
        Extractor(model)
    model = _typed_mlp()
    # b2 as a sparse initializer: onnx refuses such graphs; the cut keeps it when used.
    dense = model.graph.initializer.pop()
    values = helper.make_tensor("b2", 1, [3], wirecodec.to_array(dense).tolist())
    indices = helper.make_tensor("b2_i", 7, [3], [0, 1, 2])
    model.graph.sparse_initializer.append(helper.make_sparse_tensor(values, indices, [3]))
    assert len(Extractor(model).extract_model(["x"], ["y"]).graph.sparse_initializer) == 1
    assert len(Extractor(model).extract_model(["x"], ["a"]).graph.sparse_initializer) == 0


def test_cli_extract(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "mlp.onnx"
    wirecodec.save(_typed_mlp(), src)
    assert main(["extract", str(src), str(tmp_path / "head.onnx"), "--outputs", "a"]) == 0
    assert "2 of 3 nodes" in capsys.readouterr().out
    extract_model(src, tmp_path / "lib.onnx", ["x"], ["a"])
    assert (tmp_path / "head.onnx").read_bytes() == (tmp_path / "lib.onnx").read_bytes()
    assert main(["extract", str(src), str(tmp_path / "tail.onnxz"), "--inputs", "a"]) == 0
    tail = wirecodec.load(tmp_path / "tail.onnxz")
    assert [n.op_type for n in tail.graph.node] == ["Gemm"] and [v.name for v in tail.graph.input] == ["a"]
    capsys.readouterr()
    assert main(["extract", str(src), str(tmp_path / "x.onnx")]) == 2
    assert main(["extract", str(src), str(tmp_path / "x.onnx"), "--outputs", "a,nowhere"]) == 2
    assert "'nowhere' not found" in capsys.readouterr().err
    assert main(["extract", str(tmp_path / "missing.onnx"), str(tmp_path / "x.onnx"), "--outputs", "a"]) == 1
    assert not (tmp_path / "x.onnx").exists()


def test_initializers_read_by_bodies_are_kept(tmp_path: pathlib.Path) -> None:
    """An If branch reading an initializer of the main graph: onnx's cut drops it (its checker
    then refuses the result); ours keeps it, and both checkers accept the model."""
    float_ = onnx.TensorProto.FLOAT
    branch = onnx.helper.make_graph(
        [onnx.helper.make_node("Add", ["x", "w"], ["out"])],
        "then",
        [],
        [onnx.helper.make_tensor_value_info("out", float_, [2])],
    )
    other = onnx.helper.make_graph(
        [onnx.helper.make_node("Identity", ["x"], ["out2"])],
        "else",
        [],
        [onnx.helper.make_tensor_value_info("out2", float_, [2])],
    )
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("If", ["c"], ["y"], then_branch=branch, else_branch=other)],
        "g",
        [
            onnx.helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, []),
            onnx.helper.make_tensor_value_info("x", float_, [2]),
        ],
        [onnx.helper.make_tensor_value_info("y", float_, [2])],
        initializer=[
            onnx.numpy_helper.from_array(np.ones(2, np.float32), "w"),
            onnx.numpy_helper.from_array(np.zeros(2, np.float32), "unused"),
        ],
    )
    src = tmp_path / "if.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=[onnx.helper.make_opsetid("", 17)]), str(src))
    assert not _theirs(src, tmp_path / "theirs.onnx", ["c", "x"], ["y"])
    extract_model(src, tmp_path / "ours.onnx", ["c", "x"], ["y"])
    onnx.checker.check_model(str(tmp_path / "ours.onnx"))
    assert [t.name for t in wirecodec.load(tmp_path / "ours.onnx").graph.initializer] == ["w"]


def test_past_2_gib_only_the_kept_tensors_are_read(tmp_path: pathlib.Path) -> None:
    """A 2.25 GiB sparse data file: the cut keeping only the small tensor runs in a fresh process
    whose peak memory stays far below the data's size (the big tensor is never read)."""
    import subprocess
    import sys

    from schema_dsl.onnx import StringStringEntryProto, TensorProto

    big, small = (9 << 28), 4096  # 2.25 GiB of holes, then 4 KiB
    with open(tmp_path / "weights.bin", "wb") as data:
        data.truncate(big)
        data.seek(big)
        data.write(np.arange(small // 4, dtype=np.float32).tobytes())

    def external(name: str, offset: int, length: int) -> TensorProto:
        refs = {"location": "weights.bin", "offset": str(offset), "length": str(length)}
        return TensorProto(
            name=name,
            dims=[length // 4],
            data_type=TensorProto.FLOAT,
            data_location=TensorProto.DataLocation.EXTERNAL,
            external_data=[StringStringEntryProto(key=k, value=v) for k, v in refs.items()],
        )

    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "small"], ["a"]), helper.make_node("Mul", ["a", "a"], ["y"])],
        "huge",
        [helper.make_tensor_value_info("x", 1, [small // 4])],
        [helper.make_tensor_value_info("y", 1, [small // 4])],
        initializer=[external("big", 0, big), external("small", big, small)],
        value_info=[helper.make_tensor_value_info("a", 1, [small // 4])],
    )
    wirecodec.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), tmp_path / "m.onnx")
    # The peak of a grandchild forked from a small wrapper: a child's ru_maxrss starts at its
    # parent's size at fork (kept across exec), and this test process may be large.
    child = "import sys, wirecodec.utils as u; u.extract_model(sys.argv[1], sys.argv[2], ['x'], ['a'])"
    wrapper = (
        "import resource, subprocess, sys; "
        "subprocess.run([sys.executable, '-c', sys.argv[1], *sys.argv[2:]], check=True); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    out = tmp_path / "cut.onnx"
    result = subprocess.run(
        [sys.executable, "-c", wrapper, child, str(tmp_path / "m.onnx"), str(out)],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": str(pathlib.Path(__file__).resolve().parents[3])},
    )
    peak_mb = int(result.stdout.strip()) / 1024
    assert peak_mb < 512, peak_mb
    cut = wirecodec.load(out)
    assert [t.name for t in cut.graph.initializer] == ["small"]
    np.testing.assert_array_equal(wirecodec.to_array(cut.graph.initializer[0]), np.arange(small // 4))
    assert out.stat().st_size < 2 * small


def test_a_result_past_2_gib_goes_to_external_data_as_onnx(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """onnx writes ``<out>.data`` when the cut is past protobuf's 2 GiB; so does wirecodec (the
    limit lowered here to make it happen with a small model)."""
    import wirecodec.utils

    graph = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        "g",
        [helper.make_tensor_value_info("x", 1, [1024])],
        [helper.make_tensor_value_info("y", 1, [1024])],
        initializer=[wirecodec.from_array(np.ones(1024, np.float32), "w")],
    )
    src = tmp_path / "mlp.onnx"
    wirecodec.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)]), src)
    monkeypatch.setattr(wirecodec.utils, "MAXIMUM_PROTOBUF", 1024)
    extract_model(src, tmp_path / "cut.onnx", ["x"], ["y"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cut.onnx", "cut.onnx.data", "mlp.onnx"]
    assert (tmp_path / "cut.onnx").stat().st_size < 1024
    extract_model(src, tmp_path / "one.onnx", ["x"], ["y"], external_data=False)
    assert not (tmp_path / "one.onnx.data").exists()
    for path in ("cut.onnx", "one.onnx"):
        assert wirecodec.load(tmp_path / path).graph.node == wirecodec.load(src).graph.node


def test_local_functions_in_the_order_onnx_meets_them(tmp_path: pathlib.Path) -> None:
    """Functions are kept in the order the kept nodes call them (breadth first, through other
    functions), not the model's order; an unused one is dropped: onnx's bytes."""
    float_ = onnx.TensorProto.FLOAT
    opsets = [onnx.helper.make_opsetid("", 21), onnx.helper.make_opsetid("f", 1)]

    def function(name: str, body: list[Any]) -> Any:
        return onnx.helper.make_function("f", name, ["a"], ["b"], body, opsets)

    functions = [
        function("unused", [onnx.helper.make_node("Neg", ["a"], ["b"])]),
        function("inner", [onnx.helper.make_node("Relu", ["a"], ["b"])]),
        function("second", [onnx.helper.make_node("Abs", ["a"], ["b"])]),
        function("first", [onnx.helper.make_node("inner", ["a"], ["b"], domain="f")]),
    ]
    graph = onnx.helper.make_graph(
        [
            onnx.helper.make_node("first", ["x"], ["h"], domain="f"),
            onnx.helper.make_node("second", ["h"], ["y"], domain="f"),
        ],
        "g",
        [onnx.helper.make_tensor_value_info("x", float_, [2])],
        [onnx.helper.make_tensor_value_info("y", float_, [2])],
        value_info=[onnx.helper.make_tensor_value_info("h", float_, [2])],
    )
    src = tmp_path / "f.onnx"
    onnx.save(onnx.helper.make_model(graph, opset_imports=opsets, functions=functions), str(src))
    assert _theirs(src, tmp_path / "theirs.onnx", ["x"], ["y"])
    extract_model(src, tmp_path / "ours.onnx", ["x"], ["y"], infer_shapes=False)
    assert (tmp_path / "ours.onnx").read_bytes() == (tmp_path / "theirs.onnx").read_bytes()
    assert [f.name for f in wirecodec.load(tmp_path / "ours.onnx").functions] == ["first", "second", "inner"]


def test_extract_calls_no_onnx_code(tmp_path: pathlib.Path) -> None:
    """The runtime needs numpy only: extracting (the default infer_shapes=True) imports no onnx."""
    import subprocess
    import sys

    src = tmp_path / "mlp.onnx"
    wirecodec.save(_typed_mlp(), src)
    script = (
        "import sys; sys.modules['onnx'] = None; sys.modules['google.protobuf'] = None\n"
        "import wirecodec.utils as u\n"
        f"u.extract_model({str(src)!r}, {str(tmp_path / 'a.onnx')!r}, ['x'], ['a'])\n"
        f"u.extract_model({str(src)!r}, {str(tmp_path / 'b.onnx')!r}, ['x'], ['a'], infer_shapes=False)\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, cwd=pathlib.Path(__file__).parents[3])
    onnx.utils.extract_model(str(src), str(tmp_path / "onnx_a.onnx"), ["x"], ["a"])
    onnx.utils.extract_model(str(src), str(tmp_path / "onnx_b.onnx"), ["x"], ["a"], infer_shapes=False)
    assert (tmp_path / "a.onnx").read_bytes() == (tmp_path / "onnx_a.onnx").read_bytes()
    assert (tmp_path / "b.onnx").read_bytes() == (tmp_path / "onnx_b.onnx").read_bytes()
    assert main(["extract", str(src), str(tmp_path / "c.onnx"), "--outputs", "a"]) == 0
    assert (tmp_path / "c.onnx").read_bytes() == (tmp_path / "a.onnx").read_bytes()


def test_initializers_read_by_graphs_typed_attributes_are_kept(tmp_path: pathlib.Path) -> None:
    """The bodies a GRAPHS-typed attribute lists (a custom op's) read the main graph's
    tensors like an If branch does: the cut keeps what they read."""
    float_ = onnx.TensorProto.FLOAT
    bodies = [
        onnx.helper.make_graph(
            [onnx.helper.make_node("Add", ["x", read], [f"out{i}"])],
            f"body{i}",
            [],
            [onnx.helper.make_tensor_value_info(f"out{i}", float_, [2])],
        )
        for i, read in enumerate(["w", "v"])
    ]
    graph = onnx.helper.make_graph(
        [onnx.helper.make_node("Fold", ["x"], ["y"], domain="custom.domain", steps=bodies)],
        "g",
        [onnx.helper.make_tensor_value_info("x", float_, [2])],
        [onnx.helper.make_tensor_value_info("y", float_, [2])],
        initializer=[
            onnx.numpy_helper.from_array(np.full(2, value, np.float32), name)
            for value, name in enumerate(["w", "unused", "v"])
        ],
    )
    model = onnx.helper.make_model(
        graph,
        opset_imports=[onnx.helper.make_opsetid("", 17), onnx.helper.make_opsetid("custom.domain", 1)],
    )
    src = tmp_path / "fold.onnx"
    onnx.save(model, str(src))
    extract_model(src, tmp_path / "ours.onnx", ["x"], ["y"])
    assert [t.name for t in wirecodec.load(tmp_path / "ours.onnx").graph.initializer] == ["w", "v"]
