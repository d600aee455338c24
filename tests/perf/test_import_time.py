"""What ``import wirecodec`` (and the first use of a public name) loads, in fresh processes.

No timings here (they go in ``bench/run.py``): these tests pin *which* modules an import
brings in, which is what the time follows. ``import wirecodec`` loads the package and its
errors only; each public name imports its own module on first use (PEP 562), and opening a
model never imports the writing side of the zip container, the checker or the helpers.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

import wirecodec

ROOT = pathlib.Path(__file__).resolve().parents[2]

# Never loaded by a bare ``import wirecodec``: numpy and the schema come with the first
# call that needs them; the others only with the calls that need them, or never.
NOT_ON_IMPORT = (
    "numpy",
    "schema_dsl.onnx",
    "wirecodec.protobuf",
    "wirecodec.files",
    "wirecodec.tensors",
    "zipfile",
    "json",
    "tempfile",
    "hashlib",
    "mmap",
    "argparse",
    "importlib.metadata",
    "onnx",
    "google.protobuf",
    "onnxruntime",
    "torch",
)
# Never loaded by opening a model (``from wirecodec import load``): the zip container
# (imported by the first one opened), checking, building models, JSON and the reference
# packages.
NOT_ON_LOAD = (
    "zipfile",
    "zlib",
    "wirecodec.files.zip.container",
    "wirecodec.files.zip.replace",
    "wirecodec.files.zip.layout",
    "wirecodec.files.base.atomic",
    "wirecodec.checker",
    "wirecodec.helper",
    "wirecodec.cli",
    "json",
    "argparse",
    "onnx",
    "google.protobuf",
    "onnxruntime",
)


def new_modules(statement: str) -> list[str]:
    """The modules a fresh interpreter has after running ``statement`` that it did not have before."""
    script = textwrap.dedent(
        f"""
        import json, sys
        before = set(sys.modules)
        {statement}
        print(json.dumps(sorted(set(sys.modules) - before)))
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, cwd=ROOT, check=False
    )
    assert done.returncode == 0, done.stderr
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def loaded_among(loaded: list[str], names: tuple[str, ...]) -> list[str]:
    """Which of ``names`` (a module or a package: its submodules count) are in ``loaded``."""
    return sorted(m for m in loaded if any(m == name or m.startswith(name + ".") for name in names))


def test_import_wirecodec_loads_the_package_and_its_errors_only() -> None:
    loaded = new_modules("import wirecodec")
    ours = sorted(m for m in loaded if m.split(".")[0] == "wirecodec")
    assert ours == ["wirecodec", "wirecodec.errors"]
    # The message model comes too (not the ONNX schema): messages made after
    # ``import wirecodec`` must serialize, through the stand-in codec it installs.
    schema = sorted(m for m in loaded if m.split(".")[0] == "schema_dsl")
    assert "schema_dsl.contract" in schema and "schema_dsl.onnx" not in schema
    assert loaded_among(loaded, NOT_ON_IMPORT) == []


def test_opening_a_model_does_not_import_the_writing_side() -> None:
    loaded = new_modules("from wirecodec import load")
    assert "wirecodec.files.load" in loaded  # the statement did import what it names
    assert loaded_among(loaded, NOT_ON_LOAD) == []


def test_a_model_opened_and_read_imports_no_writing_side() -> None:
    loaded = new_modules(
        "import wirecodec\n"
        "        model = wirecodec.load('wirecodec/examples/mlp.onnx')\n"
        "        assert model.graph.node[0].op_type == 'Gemm'\n"
        "        assert wirecodec.to_array(model.graph.initializer[0]).size > 0"
    )
    assert loaded_among(loaded, NOT_ON_LOAD) == []


def test_every_public_name_resolves_to_its_module_attribute() -> None:
    # In a fresh process: here the names may already sit in the module's globals.
    script = (
        "import importlib, wirecodec\n"
        "        for name in wirecodec.__all__:\n"
        "            value = getattr(wirecodec, name)\n"
        "            home = wirecodec._LAZY.get(name, 'wirecodec.errors')\n"
        "            module = importlib.import_module(home)\n"
        "            expected = module if home == 'wirecodec.' + name else getattr(module, name)\n"
        "            assert value is expected, name\n"
        "        namespace = {}\n"
        "        exec('from wirecodec import *', namespace)\n"
        "        assert set(wirecodec.__all__) <= set(namespace), set(wirecodec.__all__) - set(namespace)\n"
        "        assert set(wirecodec.__all__) <= set(dir(wirecodec))"
    )
    new_modules(script)


def test_the_lazy_table_and_all_name_the_same_things() -> None:
    errors = {name for name in wirecodec.__all__ if name.endswith("Error")}
    assert set(wirecodec._LAZY) | errors == set(wirecodec.__all__)
    assert len(wirecodec.__all__) == len(set(wirecodec.__all__))


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'not_a_name'"):
        wirecodec.not_a_name  # type: ignore[attr-defined]  # noqa: B018
    assert not hasattr(wirecodec, "load_everything")


def test_a_submodule_and_a_name_from_it_are_the_ones_imported() -> None:
    from wirecodec import helper, numpy_helper
    from wirecodec.files.zip.container import replace_model
    from wirecodec.files.zip.replace import replace_model as defined
    from wirecodec.tensors import to_array

    assert wirecodec.helper is helper and wirecodec.numpy_helper is numpy_helper
    assert wirecodec.to_array is to_array
    assert replace_model is defined


TYPED_SNIPPET = """
import wirecodec
from wirecodec.files.zip.container import replace_model
reveal_type(wirecodec.load)
reveal_type(wirecodec.helper.make_node)
reveal_type(replace_model)
wirecodec.laod("model.onnx")
"""


def test_a_type_checker_sees_the_real_names_and_flags_a_misspelt_one(tmp_path: pathlib.Path) -> None:
    # A module-level __getattr__ seen by mypy would make every attribute Any, typos included.
    api = pytest.importorskip("mypy.api")
    snippet = tmp_path / "snippet.py"
    snippet.write_text(TYPED_SNIPPET, encoding="utf-8")
    out, _, _ = api.run(["--strict", "--cache-dir", str(tmp_path / "cache"), str(snippet)])
    revealed = [line.split("Revealed type is ", 1)[1] for line in out.splitlines() if "Revealed type" in line]
    assert len(revealed) == 3 and all(kind.startswith('"def (') for kind in revealed), out
    assert "-> schema_dsl.onnx.ModelProto" in revealed[0], out
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'Module has no attribute "laod"' in errors[0], out
