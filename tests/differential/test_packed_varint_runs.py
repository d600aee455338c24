"""Packed varint runs (TensorProto's ``int32_data``, ``int64_data``, ``uint64_data``) are
encoded in one call per run (``runtime.varint_run``): the bytes are protobuf's for runs of
one-byte, multi-byte, negative and extreme values, and a bad value fails as the one-value
encoders make it fail (a wrong type before any range error)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest

import wirecodec
from schema_dsl.onnx import TensorProto
from wirecodec.protobuf import runtime as rt

onnx = pytest.importorskip("onnx", reason="the onnx package (upb) is the reference (test extra)")

_I32 = (-(1 << 31), (1 << 31) - 1)
_I64 = (-(1 << 63), (1 << 63) - 1)
_U64 = (0, (1 << 64) - 1)

_rng = random.Random(42)
RUNS: dict[str, list[int]] = {
    "one-byte": list(range(128)),
    "float16-bits": [_rng.randrange(0, 1 << 16) for _ in range(500)],  # what float16 stores
    "edges": [0, 127, 128, 16383, 16384, (1 << 21) - 1, 1 << 21, (1 << 28) - 1, 1 << 28],
    "two-byte-below-256": [128, 3, 200, 255],
    "single-small": [5],
    "single-large": [300],
    "negative": [-1, 3, -128, 200, -(1 << 20)],
}


def _both(field: str, values: list[int]) -> tuple[bytes, bytes]:
    theirs = onnx.TensorProto()
    getattr(theirs, field).extend(values)
    ours = TensorProto()
    getattr(ours, field).extend(values)
    return wirecodec.encode(ours), theirs.SerializeToString()


@pytest.mark.quick
@pytest.mark.parametrize("run", sorted(RUNS))
@pytest.mark.parametrize("field, bounds", [("int32_data", _I32), ("int64_data", _I64), ("uint64_data", _U64)])
def test_runs_encode_as_protobuf_does(field: str, bounds: tuple[int, int], run: str) -> None:
    low, high = bounds
    values = [v for v in RUNS[run] if low <= v <= high] or [0]
    ours, theirs = _both(field, values)
    assert ours == theirs


@pytest.mark.parametrize("field, bounds", [("int32_data", _I32), ("int64_data", _I64), ("uint64_data", _U64)])
def test_extremes_and_mixed_runs_encode_as_protobuf_does(field: str, bounds: tuple[int, int]) -> None:
    low, high = bounds
    values = [low, high, 0, 1, low + 1, high - 1, 127, 128, *RUNS["float16-bits"][:50]]
    values = [v for v in values if low <= v <= high]
    assert _both(field, values)[0] == _both(field, values)[1]
    # a decoded message encodes its edited run the same way
    decoded = wirecodec.decode(TensorProto, _both(field, values)[1])
    getattr(decoded, field).append(high)
    expected = onnx.TensorProto.FromString(_both(field, values)[1])
    getattr(expected, field).append(high)
    assert wirecodec.encode(decoded) == expected.SerializeToString()


def _per_value(values: list[Any], each: Callable[[Any], bytes]) -> bytes:
    """What the encoders did before: every value's type checked, then one call per value."""
    for x in values:
        rt.check_int(x)
    return b"".join(map(each, values))


def _outcome(fn: Callable[..., bytes], *args: Any) -> Any:
    try:
        return fn(*args)
    except (TypeError, OverflowError) as exc:
        return type(exc), str(exc)


@pytest.mark.quick
@pytest.mark.parametrize(
    "values",
    [
        [True, False, 3],  # bools are ints to protobuf
        [1 << 40, "a"],  # a wrong type is named before a value out of range
        [1, 2.5],
        [1 << 31],
        [-(1 << 31) - 1],
        [200, -5, 1 << 31],
        [],
    ],
    ids=["bools", "type-before-range", "float", "above", "below", "late-overflow", "empty"],
)
def test_a_run_fails_as_the_one_value_encoders_fail(values: list[Any]) -> None:
    for below, each in ((1 << 31, rt.int32_varint), (1 << 63, rt.int64_varint), (1 << 64, rt.uint64_varint)):
        assert _outcome(rt.varint_run, values, below, each) == _outcome(_per_value, values, each)
