"""The decode-mode matrix stays whole: every switch of the codec is a mode (or says why not),
every mode really flips its switches, and the core differential tests run in every mode.

A new mode added to ``tests/support/decode_modes.py: MODES`` runs the differential suite with
nothing else to do; a new switch in the codec (a context variable under ``wirecodec/``,
a keyword of ``decode`` or ``encode``, a field of ``Representation``) fails here until a
mode covers it or ``SWITCHES`` says why
it is not one.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import os
import pathlib
import re

import pytest

import wirecodec
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto
from schema_dsl.views import RecordContainer
from tests.support.decode_modes import MODES, SWITCHES, DecodeMode
from wirecodec.protobuf.codec import encode_chunks
from wirecodec.protobuf.lazy import Pending, waiting_record
from wirecodec.protobuf.representation import Representation

ROOT = pathlib.Path(__file__).resolve().parents[3]
# The core differential tests: every test in them takes the decode_mode fixture, except these.
CORE = {
    "test_corpus.py": {"test_corpus_is_the_real_thing"},
    "test_properties.py": set(),
    "test_all_kinds_vs_protobuf.py": set(),
    "test_malformed.py": set(),
}


def _switches_in_the_source() -> set[str]:
    names = set()
    for path in (ROOT / "wirecodec").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r"ContextVar(?:\[[^\n]*?\])?\(\s*\"([^\"]+)\"", text))
    for function in (wirecodec.decode, wirecodec.encode):
        keywords = inspect.signature(function).parameters.values()
        keyword_only = [p.name for p in keywords if p.kind is inspect.Parameter.KEYWORD_ONLY]
        names |= {f"{function.__name__}({name}=)" for name in keyword_only}
    names |= {f"Representation.{f.name}" for f in dataclasses.fields(Representation)}
    return names


def test_every_switch_is_covered() -> None:
    found = _switches_in_the_source()
    assert len(found) >= 6, found  # the scan itself works
    assert found - set(SWITCHES) == set(), "a switch no mode covers: add a mode, or say why in SWITCHES"
    assert set(SWITCHES) - found == set(), "SWITCHES names a switch the codec no longer has"
    names = {mode.name for mode in MODES}
    for switch, how in SWITCHES.items():
        if not how.startswith("not a mode"):
            assert set(re.findall(r"[a-z][a-z-]+", how)) & names, (switch, how)


def test_modes_are_distinct() -> None:
    assert len({mode.name for mode in MODES}) == len(MODES)
    settings = [(m.lazy, m.every_element, m.reemit, m.records) for m in MODES]
    assert len(set(settings)) == len(settings)


def _small_model(count: int = 40) -> bytes:
    nodes = [NodeProto(op_type="Relu", input=[str(i)], output=[str(i + 1)]) for i in range(count)]
    return wirecodec.encode(ModelProto(ir_version=10, graph=GraphProto(name="g", node=nodes)))


def _waiting(model: ModelProto) -> bool:
    return isinstance(waiting_record(model.graph, "node"), Pending)


def test_each_mode_flips_its_switches(decode_mode: DecodeMode) -> None:
    # Every element waits only in the mode that asks (three short nodes are built at once).
    assert _waiting(decode_mode.decode(ModelProto, _small_model(3))) is decode_mode.every_element
    data = _small_model()
    model = decode_mode.decode(ModelProto, data)
    # Records only where asked for (40 nodes are far below the threshold).
    assert isinstance(model.graph.node, RecordContainer) is decode_mode.records
    assert [n.input[0] for n in model.graph.node] == [str(i) for i in range(40)]
    # The encoder re-emits the source bytes (a view of them) unless the mode walks every field.
    chunks, _ = encode_chunks(model, reuse_source=decode_mode.reemit)
    assert any(isinstance(chunk, memoryview) for chunk in chunks) is decode_mode.reemit
    assert decode_mode.encode(model) == data


@pytest.mark.skipif(
    os.environ.get("WIRECODEC_TEST_RECORDS_FROM_START") == "1",
    reason="the --records run keeps records everywhere",
)
def test_a_plain_decode_lets_the_thresholds_choose() -> None:
    assert not _waiting(wirecodec.decode(ModelProto, _small_model(3)))
    model = wirecodec.decode(ModelProto, _small_model())
    assert not isinstance(model.graph.node, RecordContainer)
    chunks, _ = encode_chunks(model)
    assert any(isinstance(chunk, memoryview) for chunk in chunks)


def _autouse(function: ast.FunctionDef) -> bool:
    return any(
        isinstance(d, ast.Call) and any(k.arg == "autouse" for k in d.keywords)
        for d in function.decorator_list
    )


@pytest.mark.parametrize("module", sorted(CORE))
def test_core_differential_tests_take_the_fixture(module: str) -> None:
    (path,) = (ROOT / "tests").rglob(module)  # the module in whichever tier holds it
    tree = ast.parse(path.read_text(encoding="utf-8"))
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef)]
    tests = [n for n in functions if n.name.startswith("test_")]
    assert tests
    if any(_autouse(f) and "decode_mode" in [a.arg for a in f.args.args] for f in functions):
        return  # an autouse fixture puts every test of the module in every mode
    for test in tests:
        if test.name in CORE[module]:
            continue
        arguments = [a.arg for a in test.args.args]
        assert "decode_mode" in arguments, f"{module}::{test.name} does not run in every decode mode"
