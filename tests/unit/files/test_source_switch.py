"""The one source switch (wirecodec/files/base/source.py): every front door classifies a
source there, opens a source by name there, and takes every kind of source it names."""

from __future__ import annotations

import ast
import io
import pathlib
import subprocess
import sys

import pytest

import wirecodec
from schema_dsl.onnx import TensorProto
from tests.support.http_server import Nginx
from wirecodec.examples.build_mlp import build
from wirecodec.files.base.source import classify, head_of
from wirecodec.files.stream.reader import assemble, stream

ROOT = pathlib.Path(__file__).resolve().parents[3]
FILES = ROOT / "wirecodec" / "files"

# Where a file may be opened or mapped in files/: the switch itself, the base's maps and
# atomic writes, and the layout readers that map their own data files (external data, a
# container, safetensors files) or spool anonymous memory (remote shadows, stream padding).
ALLOWED = {
    "base/source.py",
    "base/mapping.py",
    "base/atomic.py",
    "external/read.py",
    "zip/buffers.py",
    "zip/replace.py",
    "safetensors/format.py",
    "safetensors/attach.py",
    "remote/structure.py",
    "stream/records.py",
}


def _opens(path: pathlib.Path) -> list[str]:
    """The calls in a module that open or map a file: open(), X.open("rb"...), os.open, mmap.mmap."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            found.append(f"open() at line {node.lineno}")
        elif isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
            if (func.value.id, func.attr) in {("os", "open"), ("mmap", "mmap"), ("SourceMap", "open")}:
                found.append(f"{func.value.id}.{func.attr}() at line {node.lineno}")
        elif isinstance(func, ast.Attribute) and func.attr == "open" and node.args:
            mode = node.args[0]
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "r" in mode.value:
                found.append(f".open({mode.value!r}) at line {node.lineno}")
    return found


def test_files_are_opened_only_by_the_switch_and_the_layout_readers() -> None:
    offenders = {
        str(path.relative_to(FILES)): _opens(path)
        for path in FILES.rglob("*.py")
        if str(path.relative_to(FILES)) not in ALLOWED and _opens(path)
    }
    assert offenders == {}


def test_the_source_alias_is_declared_once() -> None:
    declared = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "wirecodec").rglob("*.py")
        for node in ast.parse(path.read_text()).body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "Source" for t in node.targets)
    ]
    assert declared == ["wirecodec/files/base/source.py"]


@pytest.mark.parametrize(
    ("source", "kind"),
    [
        ("-", "stdin"),
        ("m.onnx", "path"),
        (pathlib.Path("-"), "path"),
        ("C://m.onnx", "path"),
        ("https://h/m.onnx", "url"),
        ("s3://b/m.onnx", "url"),
        (b"x", "buffer"),
        (memoryview(b"x"), "buffer"),
        (io.BytesIO(b"x"), "file"),
    ],
)
def test_classify(source: object, kind: str) -> None:
    assert classify(source) == kind


def test_classify_names_what_it_cannot_take() -> None:
    with pytest.raises(TypeError, match="not int"):
        classify(3)


def test_head_of_puts_a_file_object_back() -> None:
    file = io.BytesIO(b"PK\x03\x04rest")
    file.seek(1)
    assert head_of(file, 3) == b"K\x03\x04" and file.tell() == 1


def test_a_container_is_opened_once(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from wirecodec.files.base import source as switch

    path = tmp_path / "m.onnxz"
    wirecodec.save(build(), tmp_path / "m.onnx")
    wirecodec.convert(tmp_path / "m.onnx", path, to="zip")
    opened: list[str] = []
    real = switch.open_source_file

    def counting(given: object) -> object:
        opened.append(str(given))
        return real(given)  # type: ignore[arg-type]

    monkeypatch.setattr(switch, "open_source_file", counting)
    monkeypatch.setattr("wirecodec.files.opener.open_source_file", counting)
    monkeypatch.setattr("wirecodec.files.zip.buffers.open_source_file", counting)
    from wirecodec.files.opener import open_model

    assert open_model(path).layout == "zip"
    assert opened == [str(path)]


@pytest.fixture
def served(nginx_server: Nginx) -> Nginx:
    wirecodec.save(build(), nginx_server.root / "m.onnx")
    tensor = wirecodec.from_array(__import__("numpy").arange(6, dtype="float32"), name="t")
    (nginx_server.root / "t.pb").write_bytes(wirecodec.encode(tensor))
    return nginx_server


def test_stream_takes_a_url(served: Nginx) -> None:
    with stream(served.url("m.onnx")) as events:
        model = assemble(events)
    assert model == wirecodec.load(served.root / "m.onnx")


def test_load_tensor_takes_a_url(served: Nginx) -> None:
    tensor = wirecodec.load_tensor(served.url("t.pb"))
    assert isinstance(tensor, TensorProto) and list(wirecodec.to_array(tensor)) == list(range(6))


def test_stream_takes_standard_input(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.onnx"
    wirecodec.save(build(), path)
    code = (
        "import sys, wirecodec\n"
        "from wirecodec.files.stream.reader import assemble, stream\n"
        "with stream('-') as events:\n"
        "    print(assemble(events) == wirecodec.load(sys.argv[1]))\n"
    )
    with path.open("rb") as stdin:
        done = subprocess.run(
            [sys.executable, "-c", code, str(path)], stdin=stdin, capture_output=True, text=True,
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        )
    assert done.stdout.strip() == "True", done.stderr


def test_the_save_options_are_spelled_out_only_by_the_front_doors() -> None:
    """Writers take one SaveOptions; only the public front doors list the options as keywords."""
    spelled = sorted(
        f"{path.relative_to(FILES)}:{node.name}"
        for path in FILES.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.FunctionDef)
        and "size_threshold" in {a.arg for a in [*node.args.args, *node.args.kwonlyargs]}
    )
    assert spelled == ["convert.py:convert", "convert.py:convert_to_safetensors", "save.py:save"]
