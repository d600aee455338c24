"""Without numpy, the reference evaluator says so: one NumpyMissingError naming numpy.

numpy is the evaluator's one dependency (issue 43). Where it cannot be had (the Pyodide
job: its packages come from a CDN the job cannot reach; a minimal container), importing
``wirecodec.reference`` or reaching ``onnx_compat.reference`` raises
:class:`~wirecodec.errors.NumpyMissingError` (a ``WireCodecError`` and a
``ModuleNotFoundError`` whose ``name`` is ``numpy``), not an ImportError from deep inside
an operator module. Natively numpy is hidden by ``sys.modules["numpy"] = None``; inside
WebAssembly (tests/pyodide/runner.py runs this module) it is really absent.
"""

from __future__ import annotations

import importlib
import sys

import pytest

from wirecodec.errors import NumpyMissingError, WireCodecError


@pytest.fixture
def no_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    """numpy cannot be imported, and the evaluator's modules are imported afresh."""
    monkeypatch.setitem(sys.modules, "numpy", None)  # type: ignore[arg-type]
    for name in list(sys.modules):
        if name == "wirecodec.reference" or name.startswith("wirecodec.reference."):
            monkeypatch.delitem(sys.modules, name)


@pytest.mark.quick
@pytest.mark.parametrize("module", ["wirecodec.reference", "wirecodec.reference.fold"])
def test_importing_the_evaluator_names_numpy(no_numpy: None, module: str) -> None:
    with pytest.raises(NumpyMissingError) as raised:
        importlib.import_module(module)
    error = raised.value
    assert isinstance(error, WireCodecError) and isinstance(error, ModuleNotFoundError)
    assert error.name == "numpy"
    assert "needs numpy" in str(error)
    assert error.__traceback__ is not None
    # raised where the package checks, not from inside an operator module
    last = error.__traceback__
    while last.tb_next is not None:
        last = last.tb_next
    assert last.tb_frame.f_code.co_filename.replace("\\", "/").endswith("wirecodec/reference/__init__.py")


def test_onnx_compat_reference_names_numpy(no_numpy: None) -> None:
    import wirecodec.onnx_compat as onnx

    with pytest.raises(NumpyMissingError):
        onnx.reference.ReferenceEvaluator  # noqa: B018  (reaching the name is the call under test)


def test_wirecodec_itself_still_works_without_numpy(no_numpy: None) -> None:
    import wirecodec
    from wirecodec import helper

    graph = helper.make_graph([helper.make_node("Relu", ["X"], ["Y"])], "g", [], [])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    assert wirecodec.decode(type(model), wirecodec.encode(model)).graph.node[0].op_type == "Relu"
