"""Test-only bridges to the reference implementations (onnx's protobuf classes).

Nothing here is imported by the library. Every test that uses it skips cleanly,
with a reason, when onnx/protobuf are not installed.
"""

from __future__ import annotations

import math
import pathlib
import pickle
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

import schema_dsl.onnx as ours
from schema_dsl import Kind, Message

# Messages that travel as whole files or buffers: the fuzzers and property tests cover these.
TOP_LEVEL: list[type[Message]] = [
    ours.ModelProto,
    ours.GraphProto,
    ours.NodeProto,
    ours.AttributeProto,
    ours.TensorProto,
    ours.SparseTensorProto,
    ours.TypeProto,
    ours.SequenceProto,
    ours.MapProto,
    ours.OptionalProto,
    ours.FunctionProto,
    ours.TrainingInfoProto,
    ours.OperatorSetProto,
    ours.NodeDeviceConfigurationProto,
    ours.ValueInfoProto,
]


def all_message_classes() -> list[type[Message]]:
    """Every message class of schema_dsl.onnx, nested ones included, outer before inner."""
    found: list[type[Message]] = []

    def visit(cls: type[Message]) -> None:
        found.append(cls)
        for value in vars(cls).values():
            if isinstance(value, type) and issubclass(value, Message):
                visit(value)

    for name in ours.__all__:
        value = getattr(ours, name)
        if isinstance(value, type) and issubclass(value, Message):
            visit(value)
    return found


def require_onnx() -> Any:
    return pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def pb_class(cls: type[Message]) -> Any:
    """The protobuf class with the same full name as one of ours."""
    onnx = require_onnx()
    full = cls.__schema__.full_name
    assert full.startswith("onnx.")
    parts = full[len("onnx.") :].split(".")
    for module in (onnx.onnx_ml_pb2, onnx.onnx_data_pb2, onnx.onnx_operators_ml_pb2):
        obj: Any = module
        try:
            for p in parts:
                obj = getattr(obj, p)
        except AttributeError:
            continue
        return obj
    raise LookupError(full)


def _float_same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def assert_same(mine: Message, theirs: Any, path: str = "") -> None:
    """Field-by-field equality of our message and a protobuf message (presence included)."""
    path = path or type(mine).__qualname__
    for fd in theirs.DESCRIPTOR.fields:
        spec = mine.__schema__.by_name[fd.name]
        where = f"{path}.{fd.name}"
        if spec.repeated:
            a, b = getattr(mine, fd.name), list(getattr(theirs, fd.name))
            assert len(a) == len(b), f"{where}: {len(a)} != {len(b)} items"
            for i, (x, y) in enumerate(zip(a, b, strict=True)):
                _assert_value(spec.kind, x, y, f"{where}[{i}]")
        else:
            assert mine.HasField(fd.name) == theirs.HasField(fd.name), f"{where}: presence differs"
            if theirs.HasField(fd.name):
                _assert_value(spec.kind, getattr(mine, fd.name), getattr(theirs, fd.name), where)
    # Unknown fields have no field-wise API in upb; tests compare them through
    # re-serialization (our encode vs SerializeToString) instead.


def _assert_value(kind: Kind, a: Any, b: Any, where: str) -> None:
    if kind is Kind.MESSAGE:
        assert_same(a, b, where)
    elif kind is Kind.BYTES:
        assert bytes(a) == bytes(b), where
    elif kind is Kind.STRING:
        # protobuf hands proto2 strings with invalid UTF-8 back as bytes or mangled; compare bytes.
        if isinstance(b, str):
            assert a.encode("utf-8", "surrogateescape") == b.encode("utf-8", "surrogateescape"), where
        else:
            assert a.encode("utf-8", "surrogateescape") == bytes(b), where
    elif kind in (Kind.FLOAT, Kind.DOUBLE):
        assert _float_same(a, b), f"{where}: {a!r} != {b!r}"
    else:
        assert a == b, f"{where}: {a!r} != {b!r}"


# -- the onnx backend corpus, generated at test time from the installed onnx ------------


@dataclass(frozen=True)
class CorpusItem:
    name: str  # e.g. "node/test_abs/model.onnx"
    message: str  # our class name in schema_dsl.onnx
    data: bytes


def _data_message(value: Any, type_proto: Any, name: str) -> tuple[str, bytes]:
    from onnx import TensorProto, numpy_helper

    if type_proto.HasField("map_type"):
        return "MapProto", numpy_helper.from_dict(value, name).SerializeToString()
    if type_proto.HasField("sequence_type"):
        return "SequenceProto", numpy_helper.from_list(value, name).SerializeToString()
    if type_proto.HasField("optional_type"):
        return "OptionalProto", numpy_helper.from_optional(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        return "TensorProto", value.SerializeToString()
    return "TensorProto", numpy_helper.from_array(value, name).SerializeToString()


def _generate() -> list[CorpusItem]:
    require_onnx()
    from onnx.backend.test.case import model as model_cases
    from onnx.backend.test.case import node as node_cases

    items: list[CorpusItem] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = list(node_cases.collect_testcases()) + list(model_cases.collect_testcases())
    for case in cases:
        if case.model is None:
            continue
        base = f"{case.kind}/{case.name}"
        items.append(CorpusItem(f"{base}/model.onnx", "ModelProto", case.model.SerializeToString()))
        for i, (inputs, outputs) in enumerate(case.data_sets or ()):
            for role, values, infos in (
                ("input", inputs, case.model.graph.input),
                ("output", outputs, case.model.graph.output),
            ):
                for j, value in enumerate(values):
                    if j >= len(infos):
                        continue
                    message, data = _data_message(value, infos[j].type, infos[j].name)
                    items.append(CorpusItem(f"{base}/test_data_set_{i}/{role}_{j}.pb", message, data))
    return items


_GENERATED: list[CorpusItem] = []  # built once per test run, whichever module asks first


def backend_corpus(cache_dir: pathlib.Path | None = None) -> list[CorpusItem]:
    """All models and data files of onnx's backend test cases (node and simple models).

    Generated once per process (every test module shares it); ``cache_dir`` also keeps
    it across runs. Callers must not change the items.
    """
    onnx = require_onnx()
    if _GENERATED:
        return list(_GENERATED)
    if cache_dir is not None:
        cached = cache_dir / f"corpus-{onnx.__version__}.pickle"
        if cached.exists():
            items: list[CorpusItem] = pickle.loads(cached.read_bytes())
            _GENERATED.extend(items)
            return list(items)
    items = _generate()
    _GENERATED.extend(items)
    if cache_dir is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        cached.write_bytes(pickle.dumps(items))
    return list(items)


def message_class(name: str) -> type[Message]:
    cls = getattr(ours, name)
    assert isinstance(cls, type) and issubclass(cls, Message)
    return cls


def iter_messages(msg: Message) -> Iterator[Message]:
    """Every message in a tree, depth first (the 'full walk' of the benchmarks too)."""
    yield msg
    for spec, value in msg.ListFields():
        if spec.kind is Kind.MESSAGE:
            for child in value if spec.repeated else (value,):
                yield from iter_messages(child)
