"""Mutants of the one live view per element (issue 48): schema_dsl/views.py and the
small-message fixes, each killed by the aliasing matrix against onnx or a named test."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_ALIASING = "tests/differential/test_aliasing.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "views-live-view-not-looked-up",
        "schema_dsl/views.py",
        "        entry = live.get(key)\n        if entry is not None:\n            element = entry()",
        "        entry = None\n        if entry is not None:\n            element = entry()",
        (f"{_ALIASING}::test_two_references_read_at_different_times_are_one_object",),
        "every read of an unwritten element builds a new view: two references, two messages",
    ),
    Mutant(
        "views-iteration-over-a-snapshot",
        "schema_dsl/views.py",
        "        at = 0\n        while at < _llen(self):\n            item = _lget(self, at)",
        "        for at in range(_llen(self)):\n            item = _lget(self, at)",
        (f"{_ALIASING}::test_changing_the_field_while_iterating_it",),
        "iteration walks the length it started with: removing while iterating raises",
    ),
    Mutant(
        "views-a-tuple-equals-the-container",
        "schema_dsl/views.py",
        "        if not isinstance(other, list):\n            return NotImplemented",
        "        if not isinstance(other, (list, tuple)):\n            return NotImplemented",
        (f"{_ALIASING}::test_container_comparisons_as_onnx",),
        "a records container equals a tuple of its elements (protobuf's never does)",
    ),
    Mutant(
        "views-equal-to-a-prefix",
        "schema_dsl/views.py",
        "        return _llen(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))",
        "        return all(a == b for a, b in zip(self, other, strict=False))",
        (f"{_ALIASING}::test_container_comparisons_as_onnx",),
        "a records container equals any list it is a prefix of",
    ),
    Mutant(
        "views-pop-out-of-range-silent",
        "schema_dsl/containers.py",
        '        warnings.warn("pop index out of range", FutureWarning, stacklevel=3)\n'
        "        position = -1\n    return position",
        "        position = -1\n    return position",
        (f"{_ALIASING}::test_pop_out_of_range_warns_as_protobuf",),
        "pop out of range pops the last element without protobuf's FutureWarning",
    ),
    Mutant(
        "views-materialize-builds-anew",
        "schema_dsl/views.py",
        '        entry = getattr(self, "_live", {}).get(key)\n'
        "        element = None if entry is None else entry()",
        "        entry = None\n        element = None if entry is None else entry()",
        (f"{_ALIASING}::test_every_reference_sees_every_write[node-index-3000]",),
        "sort/reverse build every element anew: a held view no longer writes into the graph",
    ),
    Mutant(
        "assign-keeps-a-writable-buffer",
        "schema_dsl/assign.py",
        "        if view and isinstance(value, memoryview) and value.readonly:",
        "        if view and isinstance(value, memoryview):",
        (f"{_ALIASING}::test_a_buffer_assigned_is_copied_never_the_callers",),
        "raw_data keeps the caller's writable view: changing the buffer later changes the tensor",
    ),
    Mutant(
        "fromstring-takes-any-buffer",
        "schema_dsl/message.py",
        "    if isinstance(data, (bytes, bytearray, memoryview)):\n        return data",
        "    if isinstance(data, object):\n        return data",
        (f"{_ALIASING}::test_parsing_takes_what_protobuf_takes",),
        "FromString takes a numpy array (protobuf refuses anything but serialized bytes)",
    ),
    Mutant(
        "detached-child-not-attached",
        "schema_dsl/presence.py",
        "    x = message._x\n    if x is not None and x.owner is not None:\n        attach(message)",
        "    x = message._x\n    if x is not None and x.owner is None:\n        attach(message)",
        (f"{_ALIASING}::test_an_unset_sub_message_is_of_its_class",),
        "the first write into an unset field's child leaves the field unset",
    ),
)
MUTANTS += (
    Mutant(
        "records-oneof-twice-kept",
        "wirecodec/protobuf/records.py",
        '            w(ind, f"if g_{spec.oneof}:\\n    return False\\ng_{spec.oneof} = 1")',
        '            w(ind, f"g_{spec.oneof} = 1")',
        (
            "tests/differential/test_records.py::test_a_oneof_set_twice_in_an_element_reads_as_protobuf_reads_it",
        ),
        "the record scanner keeps an element whose oneof has both members (a Dimension with both)",
    ),
)
