"""Issue 45, item 8: every verb's ``--help`` examples and the shell command blocks of
docs/cli.md run, as a user would type them (through bash, with ``wirecodec`` on PATH), in a
folder holding the files they name, so the examples stay true."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import zipfile

import numpy as np
import pytest

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec import helper, load, numpy_helper, save
from wirecodec.cli import EXAMPLE, VERBS, _parser, help_text
from wirecodec.files.zip.container import save_zip

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "cli.md"

pytestmark = pytest.mark.skipif(shutil.which("bash") is None, reason="the examples are shell commands")

# Lines shown as a form to fill in, not a command to run.
_FORMS = re.compile(r"\.\.\.|\[--|MODEL|DIR\b")


def _opset(*extra: tuple[str, int]) -> list[object]:
    return [helper.make_opsetid("", 21), *(helper.make_opsetid(d, v) for d, v in extra)]


def _info(name: str, dims: list[object]) -> object:
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def _model() -> ModelProto:
    """model.onnx as the examples name its parts: inputs x, input, input.1 ([batch,4]), a
    weight fc.weight, the values /encoder/layer.0/Add_output_0, a, b, c, a node
    /layer.3/MatMul, the output y."""
    weight = numpy_helper.from_array(np.eye(4, dtype=np.float32), "fc.weight")
    nodes = [
        helper.make_node("Add", ["x", "input"], ["s0"], name="/pre/Add"),
        helper.make_node(
            "Add", ["s0", "input.1"], ["/encoder/layer.0/Add_output_0"], name="/encoder/layer.0/Add"
        ),
        helper.make_node(
            "MatMul", ["/encoder/layer.0/Add_output_0", "fc.weight"], ["a"], name="/layer.3/MatMul"
        ),
        helper.make_node("Relu", ["a"], ["b"], name="relu"),
        helper.make_node("Add", ["a", "b"], ["c"], name="/post/Add"),
        helper.make_node("Neg", ["c"], ["y"], name="neg"),
    ]
    inputs = [_info(name, ["batch", 4]) for name in ("x", "input", "input.1")]
    graph = helper.make_graph(nodes, "examples", inputs, [_info("y", ["batch", 4])], [weight])
    return helper.make_model(graph, opset_imports=_opset())


def _one(op: str, x: str, y: str) -> ModelProto:
    graph = helper.make_graph(
        [helper.make_node(op, [x], [y])], op.lower(), [_info(x, [1, 4])], [_info(y, [1, 4])]
    )
    return helper.make_model(graph, opset_imports=_opset())


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("examples")
    model = _model()
    for name in (
        "model.onnx",
        "fp16.onnx",
        "before.onnx",
        "after.onnx",
        "quantized.onnx",
        "a.onnx",
        "b.onnx",
        "m.onnx",
    ):
        save(model, folder / name)
    save_zip(model, folder / "model.onnxz")
    (folder / "models").mkdir()
    save(model, folder / "models" / "one.onnx")
    shutil.copy(EXAMPLE, folder / "big.onnx")
    save_zip(load(EXAMPLE), folder / "big.onnxz")
    save(_one("Identity", "raw", "image"), folder / "pre.onnx")
    save(_one("Relu", "input", "logits"), folder / "net.onnx")
    save(_one("Neg", "x", "out"), folder / "post.onnx")
    with (folder / "x.npy").open("wb") as file:
        np.save(file, np.ones((2, 4), np.float32))
    save(model, folder / "weights-of.onnx", external_data="model.safetensors", size_threshold=0)
    index = {"metadata": {}, "weight_map": {"fc.weight": "model.safetensors"}}
    (folder / "m.safetensors.index.json").write_text(json.dumps(index))
    _flipped(folder / "flipped.onnxz")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "wirecodec").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m wirecodec "$@"\n')
    (bin_dir / "wirecodec").chmod(0o755)
    (bin_dir / "python").symlink_to(sys.executable)
    return folder


def _flipped(path: pathlib.Path) -> None:
    """The example as .onnxz with a bit of w1's entry flipped (docs' corrupt container)."""
    save_zip(load(EXAMPLE), path)
    with zipfile.ZipFile(path) as archive:
        entry = next(info for info in archive.infolist() if info.filename.endswith("w1"))
    data = bytearray(path.read_bytes())
    local_extra = int.from_bytes(data[entry.header_offset + 28 : entry.header_offset + 30], "little")
    start = entry.header_offset + 30 + len(entry.filename.encode()) + local_extra
    data[start] ^= 0x01
    path.write_bytes(bytes(data))


def _shell(folder: pathlib.Path, command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PATH": f"{folder / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["bash", "-o", "pipefail", "-c", command],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def _skip_reason(command: str) -> str | None:
    if "run " in command:
        try:
            import onnxruntime  # noqa: F401
        except ImportError:
            return "onnxruntime is not installed"
    if re.search(r"draw \S+ -o \S+\.(svg|png)", command) and shutil.which("dot") is None:
        return "Graphviz's dot is not installed"
    return None


def _help_examples() -> list[tuple[str, str]]:
    found = []
    for verb in VERBS:
        text = help_text(_parser(verb)._subparsers._group_actions[0].choices[verb].description or "")  # type: ignore[union-attr]
        for line in text.splitlines():
            stripped = line.strip()
            command = stripped.split("#")[0]
            if line.startswith("  ") and command.startswith("wirecodec ") and not _FORMS.search(command):
                found.append((verb, stripped))
    return found


HELP_EXAMPLES = _help_examples()


def test_every_verb_has_examples() -> None:
    without = set(VERBS) - {verb for verb, _ in HELP_EXAMPLES} - {"fuzz"}  # fuzz shows forms to fill in
    assert not without, f"verbs whose --help shows no example: {sorted(without)}"


@pytest.mark.parametrize(("verb", "command"), HELP_EXAMPLES, ids=[c for _, c in HELP_EXAMPLES])
def test_help_examples_run(workspace: pathlib.Path, verb: str, command: str) -> None:
    reason = _skip_reason(command)
    if reason is not None:
        pytest.skip(reason)
    done = _shell(workspace, command)
    assert done.returncode == 0, f"{command}\n{done.stderr}"
    assert "Traceback" not in done.stderr


def _doc_blocks() -> list[tuple[str, str]]:
    """(kind, body) of docs/cli.md's ```console and ```bash blocks."""
    return [(m[1], m[2]) for m in re.finditer(r"```(console|bash)\n(.*?)```", DOCS.read_text(), re.S)]


def _sessions(body: str) -> list[tuple[str, list[str]]]:
    """A console block as ``$ command`` and the lines it prints."""
    sessions: list[tuple[str, list[str]]] = []
    for line in body.splitlines():
        if line.startswith("$ "):
            sessions.append((line[2:], []))
        elif sessions:
            sessions[-1][1].append(line)
    return sessions


# Inputs the test cannot make: the docs' own exports.
_UNMADE = {"cnn-torchscript.onnx": "the docs' PyTorch CNN exports (their numbers are theirs)"}


@pytest.mark.parametrize(("kind", "body"), _doc_blocks(), ids=lambda value: value.splitlines()[0][:60])
def test_docs_shell_blocks_run(workspace: pathlib.Path, kind: str, body: str) -> None:
    for name, reason in _UNMADE.items():
        if name in body:
            pytest.skip(reason)
    if kind == "bash":
        done = _shell(workspace, body)
        assert done.returncode == 0, f"{body}\n{done.stderr}"
        return
    code = 0
    for command, expected in _sessions(body):
        if command == "echo $?":
            assert expected == [str(code)], f"{command}: {code}"
            continue
        done = _shell(workspace, command)
        code = done.returncode
        printed = (done.stdout + done.stderr).splitlines()
        assert printed == expected, f"$ {command}"
