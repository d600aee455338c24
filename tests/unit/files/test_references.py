"""Every reference a user holds sees every write, exactly as with protobuf's messages.

Hypothesis drives random sequences of reads (taking references to unset sub-messages and
repeated fields, several times over), writes through any of them, clears and merges, on
our ValueInfoProto and on onnx's side by side; after every step both must serialize to
the same bytes, the root and every reference held.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

import schema_dsl.onnx as ours
from wirecodec import encode

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")

# Paths of sub-messages under a ValueInfoProto, each ending in a message.
PATHS = [
    "type",
    "type.tensor_type",
    "type.tensor_type.shape",
    "type.sequence_type",
    "type.sequence_type.elem_type",
    "type.sequence_type.elem_type.tensor_type",
    "type.sequence_type.elem_type.tensor_type.shape",
    "type.optional_type.elem_type.tensor_type",
]
# Scalar fields that can be written on a message of each type, with values.
SCALARS: dict[str, list[tuple[str, Any]]] = {
    "TypeProto": [("denotation", "IMAGE"), ("denotation", "")],
    "Tensor": [("elem_type", 1), ("elem_type", 7)],
    "TensorShapeProto": [],
    "Sequence": [],
    "Optional": [],
}


def _follow(root: Any, path: str) -> Any:
    for step in path.split("."):
        root = getattr(root, step)
    return root


class References(RuleBasedStateMachine):
    refs = Bundle("refs")

    def __init__(self) -> None:
        super().__init__()
        self.mine = ours.ValueInfoProto(name="x")
        self.theirs = onnx.ValueInfoProto(name="x")
        self.held: list[tuple[Any, Any]] = []

    @rule(target=refs, path=st.sampled_from(PATHS))
    def take_reference(self, path: str) -> tuple[Any, Any]:
        pair = (_follow(self.mine, path), _follow(self.theirs, path))
        self.held.append(pair)
        return pair

    @rule(pair=refs, choice=st.integers(0, 9))
    def write_scalar(self, pair: tuple[Any, Any], choice: int) -> None:
        mine, theirs = pair
        options = SCALARS[type(theirs).__name__]
        if not options:
            return
        name, value = options[choice % len(options)]
        setattr(mine, name, value)
        setattr(theirs, name, value)

    @rule(pair=refs, value=st.integers(0, 5), symbolic=st.booleans(), twice=st.booleans())
    def append_dim(self, pair: tuple[Any, Any], value: int, symbolic: bool, twice: bool) -> None:
        mine, theirs = pair
        if type(theirs).__name__ != "TensorShapeProto":
            return
        # Two references to the same repeated field, as `a, b = shape.dim, shape.dim`.
        mine_dims = mine.dim if not twice else (mine.dim, mine.dim)[1]
        if symbolic:
            mine_dims.append(ours.TensorShapeProto.Dimension(dim_param=f"d{value}"))
            theirs.dim.add(dim_param=f"d{value}")
        else:
            mine_dims.append(ours.TensorShapeProto.Dimension(dim_value=value))
            theirs.dim.add(dim_value=value)

    @rule(pair=refs, which=st.integers(0, 3))
    def clear_a_field(self, pair: tuple[Any, Any], which: int) -> None:
        mine, theirs = pair
        # Not oneof members: when a reference to an unset member of TypeProto's oneof is
        # held, upb's ClearField of that member clears the member that *is* set (without
        # the reference it is a no-op, as in our messages) - a upb quirk we do not copy.
        names = [f.name for f in theirs.DESCRIPTOR.fields if f.containing_oneof is None]
        if not names:
            return
        name = names[which % len(names)]
        mine.ClearField(name)
        theirs.ClearField(name)

    @rule()
    def clear_the_root(self) -> None:
        # Only the root: Clear() on a detached child that has detached children of its own
        # keeps or drops their links in upb depending on which wrapper objects are alive.
        self.mine.Clear()
        self.theirs.Clear()

    @rule(path=st.sampled_from(PATHS))
    def has_field_reads_do_not_create(self, path: str) -> None:
        head, _, last = path.rpartition(".")
        mine = _follow(self.mine, head) if head else self.mine
        theirs = _follow(self.theirs, head) if head else self.theirs
        assert mine.HasField(last) == theirs.HasField(last), path

    @invariant()
    def same_bytes_everywhere(self) -> None:
        assert encode(self.mine) == self.theirs.SerializeToString()
        for mine, theirs in self.held:
            assert encode(mine) == theirs.SerializeToString(), type(theirs).__name__


References.TestCase.settings = settings(max_examples=150, stateful_step_count=25, deadline=None)
test_references_see_every_write = References.TestCase


def test_the_reported_lost_write() -> None:
    vi = ours.ValueInfoProto(name="x")
    shape = vi.type.tensor_type.shape  # taken before any write
    vi.type.tensor_type.elem_type = 1
    shape.dim.append(ours.TensorShapeProto.Dimension(dim_value=3))
    reference = onnx.ValueInfoProto(name="x")
    reference.type.tensor_type.shape.dim.add(dim_value=3)
    reference.type.tensor_type.elem_type = 1
    assert encode(vi) == reference.SerializeToString()

    node = ours.NodeProto()
    a, b = node.input, node.input
    a.append("a")
    b.append("b")
    assert node.input == ["a", "b"]
    assert encode(node) == onnx.NodeProto(input=["a", "b"]).SerializeToString()


def test_a_reference_taken_before_clearfield_no_longer_writes_into_the_parent() -> None:
    vi = ours.ValueInfoProto()
    kept = vi.type
    vi.ClearField("type")
    kept.denotation = "IMAGE"
    assert not vi.HasField("type")
    theirs = onnx.ValueInfoProto()
    theirs_kept = theirs.type
    theirs.ClearField("type")
    theirs_kept.denotation = "IMAGE"
    assert encode(vi) == theirs.SerializeToString()
