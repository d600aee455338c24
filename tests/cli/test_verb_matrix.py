"""Every verb x every layout the project writes x models of different shapes, and every verb x bad input.

The models are built with the onnx package (initializers; weights held in Constant
nodes; an If whose branches hold weights of their own), written as a single file by
onnx, then converted by ``wirecodec convert`` to external data (attribute tensors
moved too) and to an ``.onnxz`` container; the single file is also piped through
standard input, and served by a real nginx on the loopback (``url``: the single file by
URL; ``url-external``: the external-data model by URL, its data file beside it; skipped
with the reason where nginx is absent). Every verb must succeed on every cell and agree
with the single file:
``check`` clean, ``diff`` equal, the same tensor list and parameter count. Every verb
must refuse every bad input with exit code 1 or 2 and exactly one line on standard
error (an exception escaping ``main`` fails the test: no traceback).
"""

from __future__ import annotations

import io
import json
import pathlib
import shutil
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from tests.support.http_server import Nginx
from wirecodec.cli import VERBS, main

onnx = pytest.importorskip("onnx", reason="the matrix's models are built with the onnx package")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

_RNG = np.random.default_rng(7)


def _weights(name: str, *shape: int) -> Any:
    return numpy_helper.from_array(_RNG.standard_normal(shape).astype(np.float32), name)


def _io(name: str, *shape: int | str) -> Any:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, list(shape))


def _initializers() -> Any:
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
        helper.make_node("Add", ["h", "b"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "inits", [_io("x", "N", 32)], [_io("y", "N", 32)], [_weights("w", 32, 32), _weights("b", 32)]
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _constants() -> Any:
    # PaddlePaddle's and some PyTorch exports keep every weight in a Constant node.
    nodes = [
        helper.make_node("Constant", [], ["w"], value=_weights("w_value", 32, 32), name="const_w"),
        helper.make_node("Constant", [], ["b"], value=_weights("b_value", 32), name="const_b"),
        helper.make_node("MatMul", ["x", "w"], ["h"], name="mm"),
        helper.make_node("Add", ["h", "b"], ["y"], name="add"),
    ]
    graph = helper.make_graph(nodes, "constants", [_io("x", "N", 32)], [_io("y", "N", 32)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _subgraphs() -> Any:
    def branch(tag: str) -> Any:
        nodes = [
            helper.make_node("Constant", [], [f"k_{tag}"], value=_weights(f"kv_{tag}", 32, 32)),
            helper.make_node("MatMul", ["x", f"k_{tag}"], [f"m_{tag}"]),
            helper.make_node("Add", [f"m_{tag}", f"bias_{tag}"], [f"out_{tag}"]),
        ]
        return helper.make_graph(nodes, tag, [], [_io(f"out_{tag}", "N", 32)], [_weights(f"bias_{tag}", 32)])

    nodes = [helper.make_node("If", ["cond"], ["y"], then_branch=branch("then"), else_branch=branch("else"))]
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    graph = helper.make_graph(nodes, "subgraphs", [cond, _io("x", "N", 32)], [_io("y", "N", 32)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


MODELS: dict[str, Callable[[], Any]] = {
    "initializers": _initializers,
    "constants": _constants,
    "subgraphs": _subgraphs,
}
LAYOUTS = ("single", "external", "zip", "safetensors", "stdin", "url", "url-external")
# Every verb reads a model by URL (the one opener has the layout); a zip container by URL
# is refused with a one-line error (test_remote), so it has no cell here.
URL_LAYOUTS = {"url": "single", "url-external": "external"}
# Every verb that reads a model; each entry: argv after the model (OUT stands for a fresh output path).
READING_VERBS: dict[str, list[str]] = {
    "inspect": ["--json"],
    "check": ["--json"],
    "dump": ["graph.node[0]"],
    "tensors": ["--json"],
    "diff": ["SINGLE"],
    "edit": ["-o", "OUT", "--set-metadata", "matrix=yes"],
    "convert": ["OUT", "--to", "single"],
    "attach-weights": ["WEIGHTS", "OUT", "--convert-attribute"],
    "extract": ["OUT", "--outputs", "y"],
    "merge": ["SINGLE", "OUT", "--io-map", "y:x", "--prefix2", "b/"],
    "run": ["--seed", "1", "--compare", "SINGLE"],  # exit 1 if the layout computes otherwise
    "draw": ["-o", "OUT.dot"],
    "infer-shapes": ["OUT"],
    "convert-opset": ["OUT", "--to-opset", "18"],
    "fuzz": ["-n", "2", "-o", "OUT"],  # rewrite (the default action): OUT is a directory
}


@pytest.fixture(scope="module")
def layouts(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], pathlib.Path]:
    """Each model in each layout the project writes (stdin: the single file, piped by the test)."""
    made: dict[tuple[str, str], pathlib.Path] = {}
    for name, build in MODELS.items():
        folder = tmp_path_factory.mktemp(name)
        model = build()
        onnx.checker.check_model(model)
        single = folder / "single.onnx"
        onnx.save(model, str(single))
        (folder / "external").mkdir()
        external = folder / "external" / "model.onnx"
        zipped = folder / "model.onnxz"
        assert main(["convert", str(single), str(external), "--to", "external", "--size-threshold", "0",
                     "--convert-attribute"]) == 0  # fmt: skip
        assert main(["convert", str(single), str(zipped), "--to", "zip"]) == 0
        (folder / "safetensors").mkdir()
        safetensors = folder / "safetensors" / "model.onnx"
        assert main(["convert", str(single), str(safetensors), "--to", "safetensors", "--size-threshold", "0",
                     "--convert-attribute"]) == 0  # fmt: skip
        made.update({(name, "single"): single, (name, "external"): external, (name, "zip"): zipped})
        made[(name, "safetensors")] = safetensors
        made[(name, "stdin")] = single
        made[(name, "url")], made[(name, "url-external")] = single, external
    return made


def _served(request: pytest.FixtureRequest, model: str, layout: str) -> str:
    """The URL of ``model`` in ``layout`` on the loopback nginx (copied there on first use)."""
    server: Nginx = request.getfixturevalue("nginx_server")  # skips where nginx is absent
    layouts: dict[tuple[str, str], pathlib.Path] = request.getfixturevalue("layouts")
    path = layouts[(model, URL_LAYOUTS[layout])]
    folder = server.root / model / layout
    if not folder.exists():
        shutil.copytree(path.parent, folder)
    return server.url(f"{model}/{layout}/{path.name}")


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, stdin: bytes | None
) -> tuple[int, str, str]:
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def _weights_of(single: pathlib.Path, folder: pathlib.Path) -> pathlib.Path:
    """A safetensors file holding the single file's weights (Constant values too), under ``folder``."""
    import wirecodec

    (folder / "w").mkdir(exist_ok=True)
    wirecodec.save(
        wirecodec.load(single),
        folder / "w" / "m.onnx",
        external_data="m.safetensors",
        size_threshold=0,
        convert_attribute=True,
    )
    return folder / "w" / "m.safetensors"


def _argv(verb: str, model: str, single: pathlib.Path, out: pathlib.Path) -> list[str]:
    def one(arg: str) -> str:
        if arg == "WEIGHTS":
            return str(_weights_of(single, out.parent))
        if arg == "OUT.dot":
            return str(out.with_suffix(".dot"))
        return str(single) if arg == "SINGLE" else str(out) if arg == "OUT" else arg

    return [verb, model, *(one(a) for a in READING_VERBS[verb])]


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("verb", sorted(READING_VERBS))
def test_every_verb_reads_every_layout_and_agrees_with_the_single_file(
    verb: str,
    model: str,
    layout: str,
    request: pytest.FixtureRequest,
    layouts: dict[tuple[str, str], pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, single = layouts[(model, layout)], layouts[(model, "single")]
    piped = path.read_bytes() if layout == "stdin" else None
    suffix = ".onnxz" if layout == "zip" and verb != "attach-weights" else ".onnx"
    out = tmp_path / f"out{suffix}"
    source = "-" if piped else _served(request, model, layout) if layout in URL_LAYOUTS else str(path)
    code, stdout, stderr = _run(_argv(verb, source, single, out), capsys, monkeypatch, piped)
    assert (code, stderr) == (0, ""), (verb, model, layout, stderr)
    if verb == "check":
        assert json.loads(stdout)["violations"] == []
    if verb == "diff":
        assert stdout.startswith("{") or "are equal" in stdout
    if verb in ("edit", "convert", "attach-weights"):
        # The written model equals the single file (but for the edit's metadata).
        code, stdout, _ = _run(["diff", "--json", str(single), str(out)], capsys, monkeypatch, None)
        result = json.loads(stdout)
        changes = [d["message"] for d in result["differences"]]
        assert changes == (
            ["B metadata_props[0]: only in B: StringStringEntryProto 'matrix'"] if verb == "edit" else []
        )


@pytest.mark.parametrize("layout", ["external", "zip", "safetensors", "stdin", "url", "url-external"])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_tensor_lists_and_parameters_agree_across_layouts(
    model: str,
    layout: str,
    request: pytest.FixtureRequest,
    layouts: dict[tuple[str, str], pathlib.Path],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def facts(name: str, stdin: bytes | None) -> tuple[Any, Any, Any]:
        _, listing, _ = _run(["tensors", "--json", name], capsys, monkeypatch, stdin)
        _, summary, _ = _run(["inspect", "--json", name], capsys, monkeypatch, stdin)
        tensors = [(t["names"], t["path"], t["dtype"], t["shape"]) for t in json.loads(listing)["tensors"]]
        parsed = json.loads(summary)
        return tensors, parsed["parameters"], parsed["byte_identical"]

    expected = facts(str(layouts[(model, "single")]), None)
    assert expected[1]["tensors"] > 0  # Constant weights count as parameters
    path = layouts[(model, layout)] if layout not in URL_LAYOUTS else None
    if path is None:  # by URL the round trip is not checked (it would download the weights)
        found = facts(_served(request, model, layout), None)
        assert found[:2] == expected[:2] and found[2] is None
    else:
        assert (
            facts("-" if layout == "stdin" else str(path), path.read_bytes() if layout == "stdin" else None)
            == expected
        )


@pytest.mark.parametrize("layout", ["external", "zip", "safetensors"])
@pytest.mark.parametrize("model", sorted(MODELS))
def test_every_tensor_extracts_alike_from_every_layout(
    model: str,
    layout: str,
    layouts: dict[tuple[str, str], pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    single, other = layouts[(model, "single")], layouts[(model, layout)]
    _, listing, _ = _run(["tensors", "--json", str(single)], capsys, monkeypatch, None)
    paths = [t["path"] for t in json.loads(listing)["tensors"]]
    assert paths
    for i, path in enumerate(paths):
        arrays = []
        for source in (single, other):
            out = tmp_path / f"{i}-{source.suffix}.npy"
            code, _, err = _run(["tensors", str(source), path, "-o", str(out)], capsys, monkeypatch, None)
            assert (code, err) == (0, ""), (path, err)
            arrays.append(np.load(out))
        assert np.array_equal(arrays[0], arrays[1]), path


def _bad_inputs(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    good = _initializers().SerializeToString()
    (folder / "empty.onnx").write_bytes(b"")
    (folder / "truncated.onnx").write_bytes(good[: len(good) // 2])
    (folder / "text.onnx").write_text("import torch\nprint('this is not a model')\n")
    (folder / "a_directory.onnx").mkdir()
    (folder / "garbage.onnxz").write_bytes(b"PK\x03\x04" + bytes(range(256)) * 4)
    names = ("empty", "truncated", "text", "a_directory", "missing", "garbage")
    files = {name: folder / f"{name}.onnx" for name in names}
    files["garbage"] = folder / "garbage.onnxz"
    return files


BAD = ("empty", "truncated", "text", "a_directory", "missing", "garbage")


@pytest.mark.parametrize("bad", BAD)
@pytest.mark.parametrize("verb", sorted(READING_VERBS))
def test_every_verb_refuses_every_bad_input_in_one_line(
    verb: str,
    bad: str,
    layouts: dict[tuple[str, str], pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = _bad_inputs(tmp_path)[bad]
    out = tmp_path / "out.onnx"
    code, _, err = _run(
        _argv(verb, str(path), layouts[("initializers", "single")], out), capsys, monkeypatch, None
    )
    assert code in (1, 2), (verb, bad)
    assert err.count("\n") == 1 and err.startswith(f"wirecodec {verb}: "), err
    assert str(path) in err, err  # the bad input is the file blamed
    assert not out.exists()


@pytest.mark.parametrize("bad", ["missing.onnx", "truncated.onnx", "model.onnxz"])
@pytest.mark.parametrize("verb", sorted(READING_VERBS))
def test_every_verb_refuses_a_bad_url_in_one_line(
    verb: str,
    bad: str,
    nginx_server: Nginx,
    layouts: dict[tuple[str, str], pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A 404; a model cut short; a zip container (not read over a URL: a clear refusal).
    folder = nginx_server.root / "bad"
    if not folder.exists():
        folder.mkdir()
        good = _initializers().SerializeToString()
        (folder / "truncated.onnx").write_bytes(good[: len(good) // 2])
        shutil.copy(layouts[("initializers", "zip")], folder / "model.onnxz")
    url = nginx_server.url(f"bad/{bad}")
    out = tmp_path / "out.onnx"
    code, _, err = _run(_argv(verb, url, layouts[("initializers", "single")], out), capsys, monkeypatch, None)
    assert code in (1, 2), (verb, bad)
    assert err.count("\n") == 1 and err.startswith(f"wirecodec {verb}: ") and url in err, err
    assert not out.exists()


@pytest.mark.parametrize("bad", ["empty", "truncated", "text"])
@pytest.mark.parametrize("verb", sorted(READING_VERBS))
def test_every_verb_refuses_bad_standard_input(
    verb: str,
    bad: str,
    layouts: dict[tuple[str, str], pathlib.Path],
    tmp_path: pathlib.Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    data = _bad_inputs(tmp_path)[bad].read_bytes()
    out = tmp_path / "out.onnx"
    code, _, err = _run(_argv(verb, "-", layouts[("initializers", "single")], out), capsys, monkeypatch, data)
    assert code == 1 and err.count("\n") == 1 and "<stdin>" in err, err
    assert not out.exists()


def test_the_matrix_covers_every_verb() -> None:
    # A new verb that reads a model joins the matrix, or says here why it cannot.
    writing_only: set[str] = set()
    assert set(VERBS) - writing_only == set(READING_VERBS)
