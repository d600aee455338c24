"""The layers of docs/architecture.md, read from the import statements of every module."""

from __future__ import annotations

import ast
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]
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


# -- the files layer's rooms (docs/architecture.md) ---------------------------------------

_FILES = ROOT / "wirecodec" / "files"
_FRONT_DOORS = frozenset({"opener", "load", "save", "convert"})


def _room_of(module: str) -> str | None:
    """The room a ``wirecodec.files`` module lives in: a subpackage's name, or ``front:<module>``."""
    parts = module.split(".")
    if parts[:2] != ["wirecodec", "files"] or len(parts) < 3:
        return None
    return parts[2] if (_FILES / parts[2]).is_dir() else f"front:{parts[2]}"


def _room_edges() -> dict[str, set[str]]:
    edges: dict[str, set[str]] = {}
    for path in _FILES.rglob("*.py"):
        module = ".".join(("wirecodec", *path.relative_to(ROOT / "wirecodec").with_suffix("").parts))
        room = _room_of(module)
        assert room is not None
        for name, _ in _imports(path):
            target = _room_of(name)
            if target is not None and target != room:
                edges.setdefault(room, set()).add(target)
    return edges


def test_no_import_cycle_between_the_rooms_of_files() -> None:
    edges = _room_edges()
    rooms = [room for room in edges if not room.startswith("front:")]

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    assert [room for room in rooms if reaches(room, room)] == []


def test_a_layout_room_never_calls_a_front_door() -> None:
    edges = _room_edges()
    calls = {
        (room, target)
        for room, targets in edges.items()
        if not room.startswith("front:")
        for target in targets
        if target.startswith("front:") and target.split(":")[1] in _FRONT_DOORS
    }
    assert calls == set()


def test_the_base_builds_on_no_room() -> None:
    assert {t for t in _room_edges().get("base", set()) if not t.startswith("front:")} == set()


@pytest.mark.parametrize("package", ["wirecodec", "schema_dsl"])
def test_no_folder_keeps_a_family_of_modules_in_disguise(package: str) -> None:
    """Three or more modules sharing a prefix (``zip_*``, ``gen_*``) are a subpackage."""
    families: dict[tuple[pathlib.Path, str], list[str]] = {}
    for path in (ROOT / package).rglob("*.py"):
        stem = path.stem.lstrip("_")
        if "_" in stem:
            families.setdefault((path.parent, stem.split("_")[0]), []).append(path.name)
    crowded = {
        f"{folder.relative_to(ROOT)}/{prefix}_*": names
        for (folder, prefix), names in families.items()
        if len(names) >= 3
    }
    assert crowded == {}
