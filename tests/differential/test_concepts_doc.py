"""Every Python example of the ONNX concepts guide, run with onnx and with wirecodec.

``/work/shared/spec/python-api-concepts.zh.md`` is where users learn ONNX's Python API.
Each of its code examples runs twice, in document order, in two scratch directories:
as written (with onnx), and with its imports rewritten by :data:`IMPORTS` (with
wirecodec). The messages, numpy arrays and bytes it leaves in its namespace, and the
files it writes, must be identical (messages compared as encodings); so must what it
prints, where the printed text does not depend on the library's class names or on
``str()`` of a message (see :data:`EXAMPLES`).

An example that needs what wirecodec does not have is skipped, with the reason, for as
long as it lacks it: :data:`NEEDS` probes each capability, so examples start running by
themselves as the checker and protobuf's message methods arrive. Every example of the
document is in :data:`EXAMPLES`; one that is not (or one listed that the document no
longer has) fails the test.
"""

from __future__ import annotations

import ast
import contextlib
import io
import math
import os
import pathlib
import re
import shutil
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import wirecodec
from schema_dsl import Message
from schema_dsl.onnx import OperatorSetIdProto

onnx = pytest.importorskip("onnx", reason="the examples are onnx code; onnx runs the originals (test extra)")

# The spec lives beside the project's clone (../shared/spec); another clone may not have it.
DOCUMENT = pathlib.Path(__file__).resolve().parents[3] / "shared" / "spec" / "python-api-concepts.zh.md"
if not DOCUMENT.is_file():
    pytest.skip(f"{DOCUMENT} is not beside this clone (../shared/spec)", allow_module_level=True)

# -- the import mapping ----------------------------------------------------------------------

#: Where each name a ``from onnx import ...`` line takes comes from in wirecodec.
NAMES: dict[str, str] = {
    **{name: "schema_dsl.onnx" for name in ("TensorProto", "ModelProto", "GraphProto", "NodeProto")},
    "helper": "wirecodec",
    "numpy_helper": "wirecodec",
    "load_model": "wirecodec",
    "save_model": "wirecodec",
    "load_model_from_string": "wirecodec",
    "load_tensor_from_string": "wirecodec",
    "load": "wirecodec.onnx_compat",
    "save": "wirecodec.onnx_compat",
    "load_tensor": "wirecodec.onnx_compat",
    "save_tensor": "wirecodec.onnx_compat",
}

#: Whole-line rewrites of the other import forms, tried in order.
IMPORTS: list[tuple[str, str]] = [
    (r"^import onnx$", "import wirecodec.onnx_compat as onnx"),
    (r"^from onnx\.helper import", "from wirecodec.helper import"),
    (r"^from onnx\.numpy_helper import", "from wirecodec.numpy_helper import"),
    (r"^from onnx\.checker import check_model$", "from wirecodec import check as check_model"),
]


def translate(code: str) -> str:
    """``code`` with its onnx imports replaced by wirecodec's (and nothing else changed)."""
    out = []
    for line in code.split("\n"):
        match = re.fullmatch(r"from onnx import (.+)", line)
        if match:
            by_module: dict[str, list[str]] = {}
            for name in (n.strip() for n in match.group(1).split(",")):
                by_module.setdefault(NAMES[name], []).append(name)
            line = "; ".join(
                f"from {module} import {', '.join(names)}" for module, names in by_module.items()
            )
        else:
            for pattern, replacement in IMPORTS:
                line = re.sub(pattern, replacement, line)
        out.append(line)
    translated = "\n".join(out)
    for node in ast.walk(ast.parse(translated)):
        modules = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        assert not any(m == "onnx" or m.startswith("onnx.") for m in modules), (
            f"untranslated import in:\n{code}"
        )
    return translated


# -- what wirecodec may lack -----------------------------------------------------------------


def _prints_text_format() -> bool:
    return str(OperatorSetIdProto(version=21)) == "version: 21\n"


#: Capability → (probe, why an example needing it is skipped while the probe fails).
NEEDS: dict[str, tuple[Callable[[], bool], str]] = {
    "runnable": (lambda: False, "not runnable: the document leaves this example empty"),
    "pseudo-code": (lambda: False, "pseudo-code: onnx.Add and `coefficients` do not exist in onnx either"),
}

# How an example's printed output is compared.
SAME = "same"  # must be identical
TEXT_FORMAT = "text format"  # prints messages: identical once str(message) is protobuf's text format
NOT_COMPARED = "not compared"  # prints class names or a repr that differs by design


@dataclass(frozen=True)
class Example:
    needs: tuple[str, ...] = ()
    stdout: str = SAME
    why_stdout: str = ""


#: Every code example of the document, by the line its code block starts on.
EXAMPLES: dict[int, Example] = {
    5: Example(("pseudo-code",)),
    86: Example(),  # the TensorProto element types, from dir(TensorProto)
    143: Example(),  # onnx.__version__ and onnx.defs.onnx_opset_version(): the version it follows
    226: Example((), TEXT_FORMAT),
    362: Example((), TEXT_FORMAT),
    468: Example((), TEXT_FORMAT),
    560: Example((), NOT_COMPARED, "prints the classes' qualified names"),
    585: Example((), NOT_COMPARED, "prints the classes' qualified names"),
    609: Example(),  # the *Proto names of the onnx module
    639: Example((), NOT_COMPARED, "prints the class's qualified name"),
    659: Example((), TEXT_FORMAT),
    748: Example((), TEXT_FORMAT),
    783: Example((), TEXT_FORMAT),
    902: Example(),  # the make_* functions of onnx.helper
    941: Example((), TEXT_FORMAT),
    970: Example(),
    988: Example(),
    1011: Example((), TEXT_FORMAT),
    1127: Example((), TEXT_FORMAT),
    1349: Example(("runnable",)),
    1361: Example((), TEXT_FORMAT),
}

#: Files an example reads that an earlier example writes: when the writer did not run
#: with wirecodec, the reader gets the file onnx's run wrote (a fixture, not a result).
INPUT_FILES = ("linear_regression.onnx", "saved_tensor.pb")


def code_examples(text: str) -> dict[int, str]:
    """Fenced blocks that are Python code (they parse and import or call something), or are empty."""
    blocks: dict[int, str] = {}
    start, body = 0, []
    for number, line in enumerate(text.split("\n"), 1):
        if line.strip().startswith("```"):
            if start:
                blocks[start], start = "\n".join(body), 0
            else:
                start, body = number, []
        elif start:
            body.append(line)
    examples = {}
    for start, code in blocks.items():
        try:
            tree = ast.parse(code)
        except SyntaxError:
            continue  # printed output or pseudo-code that is not Python
        acts = any(isinstance(n, (ast.Call, ast.Import, ast.ImportFrom)) for n in ast.walk(tree))
        if acts or not code.strip():
            examples[start] = code
    return examples


# -- running ---------------------------------------------------------------------------------


@dataclass
class Run:
    namespace: dict[str, Any]
    stdout: str
    files: dict[str, bytes]  # the files the example wrote (new or changed)


def run(code: str, folder: pathlib.Path) -> Run:
    def contents() -> dict[str, bytes]:
        return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}

    earlier = contents()
    namespace: dict[str, Any] = {"__name__": "__example__"}
    out = io.StringIO()
    before = os.getcwd()
    os.chdir(folder)
    try:
        with contextlib.redirect_stdout(out), warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            exec(compile(code, "<example>", "exec"), namespace)
    finally:
        os.chdir(before)
    written = {name: data for name, data in contents().items() if earlier.get(name) != data}
    return Run(namespace, out.getvalue(), written)


def missing(example: Example) -> list[str]:
    return [NEEDS[need][1] for need in example.needs if not NEEDS[need][0]()]


def _look_up_enum_values() -> None:
    """Touch every enum value of onnx's message classes.

    upb lists an enum value in ``dir(cls)`` only once it has been looked up, so the
    ``dir(TensorProto)`` example would print fewer types in a fresh process than the
    document (made with an older protobuf) shows and than our classes give.
    """
    for module in (onnx.onnx_ml_pb2, onnx.onnx_data_pb2):
        for cls in vars(module).values():
            descriptor = getattr(cls, "DESCRIPTOR", None)
            for enum in getattr(descriptor, "enum_types", ()):
                for value in enum.values:
                    getattr(cls, value.name)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Run, Run]]:
    """Each example that can run, run in document order: (onnx's run, wirecodec's run)."""
    _look_up_enum_values()
    theirs_dir, ours_dir = tmp_path_factory.mktemp("onnx"), tmp_path_factory.mktemp("wirecodec")
    results: dict[int, tuple[Run, Run]] = {}
    for start, code in code_examples(DOCUMENT.read_text(encoding="utf-8")).items():
        example = EXAMPLES.get(start)
        if example is None or missing(example):
            # onnx still runs what it can, so later examples find the files it writes.
            if example is not None and not {"runnable", "pseudo-code"} & set(example.needs):
                run(code, theirs_dir)
            continue
        for name in INPUT_FILES:
            if (theirs_dir / name).exists() and not (ours_dir / name).exists():
                shutil.copy(theirs_dir / name, ours_dir / name)
        results[start] = (run(code, theirs_dir), run(translate(code), ours_dir))
    return results


def test_every_example_is_listed() -> None:
    found = set(code_examples(DOCUMENT.read_text(encoding="utf-8")))
    assert found == set(EXAMPLES), (
        f"unlisted: {sorted(found - set(EXAMPLES))}, gone: {sorted(set(EXAMPLES) - found)}"
    )


def _same_value(theirs: Any, ours: Any) -> bool:
    if isinstance(theirs, np.ndarray):
        return (
            isinstance(ours, np.ndarray)
            and ours.dtype == theirs.dtype
            and ours.shape == theirs.shape
            and all(
                a == b or (isinstance(a, float) and math.isnan(a) and math.isnan(b))
                for a, b in zip(theirs.ravel().tolist(), ours.ravel().tolist(), strict=True)
            )
        )
    if isinstance(theirs, bytes):
        return isinstance(ours, bytes) and ours == theirs
    return isinstance(ours, Message) and wirecodec.encode(ours) == theirs.SerializeToString()


def _comparable(value: Any) -> bool:
    is_pb = (
        not isinstance(value, type) and hasattr(value, "SerializeToString") and hasattr(value, "DESCRIPTOR")
    )
    return is_pb or isinstance(value, (np.ndarray, bytes))


@pytest.mark.parametrize("start", sorted(EXAMPLES))
def test_example(start: int, runs: dict[int, tuple[Run, Run]]) -> None:
    example = EXAMPLES[start]
    reasons = missing(example)
    if reasons:
        pytest.skip("; ".join(reasons))
    theirs, ours = runs[start]
    compared = []
    for name, value in theirs.namespace.items():
        if _comparable(value):
            assert name in ours.namespace, f"{name} was not made"
            assert _same_value(value, ours.namespace[name]), f"{name} differs"
            compared.append(name)
    for name, data in theirs.files.items():
        assert ours.files.get(name) == data, f"file {name} differs"
        compared.append(name)
    if example.stdout == SAME or (example.stdout == TEXT_FORMAT and _prints_text_format()):
        assert ours.stdout == theirs.stdout
        compared.append("stdout")
    assert compared, "the example made nothing to compare"
