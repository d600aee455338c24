"""``onnx_compat.defs`` lookups over every version edge, against ``onnx.defs``
(wirecodec/onnx_compat/defs.py):

* ``get_schema`` and ``has`` of a sample of operators of every domain onnx knows, at every
  version from 0 to one past the domain's newest, in both call forms (with and without a
  version; ``(op_type, domain)``): the same since_version, or a SchemaError / False alike;
* the lists: ``get_all_schemas``, ``get_all_schemas_with_history`` and ``get_function_ops``
  give the same (domain, name, since_version) sets; ``onnx_opset_version``,
  ``onnx_ml_opset_version`` and ``schema_version_map`` the same numbers;
* a schema registered at versions 1, 3 and 5 and deregistered one version at a time, each
  step followed by every lookup and by the history list: as onnx's registry says.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from wirecodec.onnx_compat import defs as compat_defs
from wirecodec.onnx_compat import helper as compat_helper

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
_C = pytest.importorskip("onnx.onnx_cpp2py_export.defs", reason="onnx's C extension has the version map")

# Operators whose histories hold the edges: many versions, one version, a function body,
# a body built per node, ai.onnx.ml and ai.onnx.preview.training.
_SAMPLE = {
    "": ["Add", "Relu", "Resize", "Gemm", "Softmax", "CastLike", "LayerNormalization", "Identity"],
    "ai.onnx.ml": ["LinearClassifier", "TreeEnsemble", "CastMap"],
    "ai.onnx.preview.training": ["Adam", "Gradient"],
}


def _since(defs: Any, *args: Any) -> int | str:
    try:
        return int(defs.get_schema(*args).since_version)
    except defs.SchemaError:
        return "SchemaError"


def test_get_schema_and_has_at_every_version_edge_as_onnx() -> None:
    disagreements = []
    newest = _C.schema_version_map()
    for domain, names in _SAMPLE.items():
        top = newest[domain][1] + 1
        for name, version in itertools.product(names, range(top + 1)):
            for args in (
                ((name, version, domain), (name, version)) if not domain else ((name, version, domain),)
            ):
                ours, theirs = _since(compat_defs, *args), _since(onnx.defs, *args)
                if ours != theirs:
                    disagreements.append((args, ours, theirs))
                if compat_defs.has(*args) != onnx.defs.has(*args):
                    disagreements.append((args, "has"))
        for name in names:
            for args in ((name,), (name, domain)):
                if _since(compat_defs, *args) != _since(onnx.defs, *args):
                    disagreements.append(args)
    assert disagreements == []


def _keys(schemas: Any) -> set[tuple[str, str, int]]:
    return {(s.domain, s.name, int(s.since_version)) for s in schemas}


_LISTS = """
import json, sys
if sys.argv[1] == "onnx":
    import onnx.defs as defs
    from onnx.onnx_cpp2py_export.defs import schema_version_map
else:
    from wirecodec.onnx_compat import defs
    schema_version_map = defs.schema_version_map

def keys(schemas):
    return sorted([s.domain, s.name, int(s.since_version)] for s in schemas)

print(json.dumps({
    "all": keys(defs.get_all_schemas()),
    "history": keys(defs.get_all_schemas_with_history()),
    "functions": keys(defs.get_function_ops()),
    "opset": defs.onnx_opset_version(),
    "ml": defs.onnx_ml_opset_version(),
    "map": sorted([d, list(v)] for d, v in schema_version_map().items()),
}))
"""


def test_the_lists_and_versions_are_onnx() -> None:
    # Each in a fresh process: tests in this one register and deregister schemas (a
    # deregistered domain stays in both registries' version maps, as onnx keeps it).
    import json
    import subprocess
    import sys

    def lists(library: str) -> Any:
        done = subprocess.run(
            [sys.executable, "-c", _LISTS, library], capture_output=True, text=True, check=True
        )
        return json.loads(done.stdout)

    ours, theirs = lists("wirecodec"), lists("onnx")
    assert ours.keys() == theirs.keys()
    for key in theirs:
        assert ours[key] == theirs[key], key


def _schema(defs: Any, helper: Any, version: int) -> Any:
    s = defs.OpSchema
    return s(
        "SweepOp",
        "sweep.domain",
        version,
        "doc",
        inputs=[s.FormalParameter("X", "T")],
        outputs=[s.FormalParameter("Y", "T")],
        type_constraints=[("T", ["tensor(float)"], "floats")],
    )


@pytest.fixture
def cleaned() -> Iterator[None]:
    yield
    for defs in (compat_defs, onnx.defs):
        for version in (1, 3, 5):
            if any(s.since_version == version for s in _history(defs)):
                defs.deregister_schema("SweepOp", version, "sweep.domain")


def _history(defs: Any) -> list[Any]:
    return [s for s in defs.get_all_schemas_with_history() if s.name == "SweepOp"]


def _state(defs: Any) -> tuple[Any, ...]:
    return (
        [_since(defs, "SweepOp", v, "sweep.domain") for v in range(7)],
        _since(defs, "SweepOp", "sweep.domain"),
        [defs.has("SweepOp", v, "sweep.domain") for v in range(7)],
        sorted(int(s.since_version) for s in _history(defs)),
    )


def test_registering_and_deregistering_one_version_at_a_time_as_onnx(cleaned: None) -> None:
    steps = [
        ("register", 1),
        ("register", 5),
        ("register", 3),
        ("deregister", 5),
        ("deregister", 1),
        ("deregister", 3),
    ]
    for action, version in steps:
        for defs, helper in ((compat_defs, compat_helper), (onnx.defs, onnx.helper)):
            if action == "register":
                defs.register_schema(_schema(defs, helper, version))
            else:
                defs.deregister_schema("SweepOp", version, "sweep.domain")
        assert _state(compat_defs) == _state(onnx.defs), (action, version)
