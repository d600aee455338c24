"""Hypothesis strategies (every message class; models that pass wirecodec.check) and the atheris mutator."""

from __future__ import annotations

import inspect

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schema_dsl.onnx as onnx_schema
from schema_dsl import Message
from schema_dsl.onnx import ModelProto
from wirecodec.checker import violations
from wirecodec.examples.build_mlp import build
from wirecodec.fuzz import atheris_mutator, rewrite
from wirecodec.fuzz.strategies import messages, models
from wirecodec.protobuf.codec import decode, encode

CLASSES = sorted(
    (
        cls
        for _, cls in inspect.getmembers(onnx_schema, inspect.isclass)
        if issubclass(cls, Message) and cls is not Message and cls.__module__ == onnx_schema.__name__
    ),
    key=lambda cls: cls.__name__,
)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))


@pytest.mark.parametrize("cls", CLASSES, ids=lambda cls: cls.__name__)
def test_every_message_class_has_a_strategy_whose_messages_round_trip(cls: type[Message]) -> None:
    @SETTINGS
    @given(messages(cls, max_depth=2))
    def round_trip(message: Message) -> None:
        assert isinstance(message, cls)
        data = encode(message)
        assert decode(cls, data) == message
        assert (
            decode(cls, rewrite(data, seed=len(data), message=cls, kinds=["reorder", "split_message"]))
            == message
        )

    round_trip()


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(models())
def test_generated_models_pass_the_check(model: ModelProto) -> None:
    assert violations(model) == []


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(models())
def test_generated_models_pass_onnx_full_check(model: ModelProto) -> None:
    onnx = pytest.importorskip("onnx")
    onnx.checker.check_model(onnx.ModelProto.FromString(encode(model)), full_check=True)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.integers(0, 1 << 32), st.integers(200, 1 << 20))
def test_the_atheris_mutator_is_deterministic_and_within_max_size(seed: int, max_size: int) -> None:
    mutator = atheris_mutator()
    data = build().SerializeToString()
    out = mutator(data, max_size, seed)
    assert out == mutator(data, max_size, seed)
    assert len(out) <= max_size


def test_the_atheris_mutator_hands_garbage_to_atheris(monkeypatch: pytest.MonkeyPatch) -> None:
    atheris = pytest.importorskip("atheris")  # the fuzz extra
    # atheris.Mutate needs a running libFuzzer (outside one it waits forever): stand in for it.
    handed: list[tuple[bytes, int]] = []

    def mutate(data: bytes, max_size: int) -> bytes:
        handed.append((data, max_size))
        return data[:max_size]

    monkeypatch.setattr(atheris, "Mutate", mutate)
    out = atheris_mutator()(b"\xff\xff not a model", 64, 1)
    assert handed == [(b"\xff\xff not a model", 64)] and out == b"\xff\xff not a model"
