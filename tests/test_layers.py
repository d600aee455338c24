"""The layers of docs/architecture.md, read from the import statements of every module."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE_PACKAGES = ("onnx", "google", "onnxruntime", "onnx_ir", "torch")


def _modules(package: str) -> list[pathlib.Path]:
    return sorted((ROOT / package).rglob("*.py"))


def _imports(path: pathlib.Path) -> list[tuple[str, bool]]:
    """Every imported module name, and whether the import runs at module import time."""
    tree = ast.parse(path.read_text(), str(path))
    top_level = {id(node) for node in tree.body}
    found: list[tuple[str, bool]] = []
    for node in ast.walk(tree):
        at_import = id(node) in top_level
        if isinstance(node, ast.Import):
            found += [(alias.name, at_import) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.module, at_import))
    return found


@pytest.mark.parametrize("path", _modules("schema_dsl"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_schema_layer_imports_no_codec(path: pathlib.Path) -> None:
    assert not [name for name, _ in _imports(path) if name.split(".")[0] == "wirecodec"]


@pytest.mark.parametrize("path", _modules("wirecodec/protobuf"), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_protobuf_layer_knows_no_onnx(path: pathlib.Path) -> None:
    onnx_specific = ("schema_dsl.onnx", "wirecodec.tensors", "wirecodec.files", "wirecodec.cli")
    assert not [name for name, _ in _imports(path) if name.startswith(onnx_specific)]


@pytest.mark.parametrize(
    "path", [*_modules("wirecodec"), *_modules("schema_dsl")], ids=lambda p: str(p.relative_to(ROOT))
)
def test_no_reference_package_at_import_time(path: pathlib.Path) -> None:
    imports = _imports(path)
    assert not [name for name, eager in imports if eager and name.split(".")[0] in REFERENCE_PACKAGES]
