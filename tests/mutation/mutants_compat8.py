"""Mutants of issue 42 item 5 (as fast as onnx under the client libraries): packed varint
runs encoded in one call per run (wirecodec.protobuf.runtime.varint_run) and ``==`` by the
comparators generated per class (schema_dsl.equality)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_RUNS = "tests/differential/test_packed_varint_runs.py"
_KINDS = "tests/differential/test_equality_by_field_kind_vs_onnx.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "compat8-run-drops-continuation",
        "wirecodec/protobuf/runtime.py",
        "                append(v & 127 | 128)\n",
        "                append(v & 127)\n",
        (_RUNS,),
        "a packed value past 127 is written without its continuation bits",
    ),
    Mutant(
        "compat8-run-no-upper-bound",
        "wirecodec/protobuf/runtime.py",
        "        if type(v) is int and 0 <= v < below:\n",
        "        if type(v) is int and 0 <= v:\n",
        (_RUNS,),
        "a packed int32 or int64 past its kind's range is written instead of refused",
    ),
    Mutant(
        "compat8-run-range-before-type",
        "wirecodec/protobuf/runtime.py",
        "            if not checked:\n                for x in values:\n                    check_int(x)\n",
        "            if not checked:\n",
        (_RUNS,),
        "a run holding a value out of range and a wrong type names the range, not the type",
    ),
    Mutant(
        "compat8-eq-repeated-lengths-unchecked",
        "schema_dsl/equality.py",
        "and len({mine}) != len({theirs}):",
        "and False:",
        (_KINDS,),
        "a repeated field set on one side and empty on the other is not a difference",
    ),
    Mutant(
        "compat8-eq-sub-messages-skipped",
        "schema_dsl/equality.py",
        '            test = f"a.{name} != b.{name}"\n',
        '            test = "False"\n',
        (_KINDS,),
        "a singular sub-message present on both sides is never compared",
    ),
    Mutant(
        "compat8-eq-repeated-floats-by-value",
        "schema_dsl/equality.py",
        "            if kind in _PLAIN or kind is Kind.MESSAGE:\n",
        "            if kind is not Kind.BYTES:\n",
        (_KINDS,),
        "repeated floats compare by value: 0.0 == -0.0 and NaN != NaN, where protobuf compares bits",
    ),
    Mutant(
        "compat8-eq-unknown-fields-ignored",
        "schema_dsl/equality.py",
        "    if not ua and not ub:\n",
        "    if True:\n",
        (_KINDS,),
        "messages differing only in their unknown fields compare equal",
    ),
    Mutant(
        "compat8-eq-other-class-compared",
        "schema_dsl/message.py",
        "            not isinstance(other, Message) or other.__schema__ is not self.__schema__\n",
        "            not isinstance(other, Message)\n",
        (_KINDS,),
        "two empty messages of different classes compare equal",
    ),
)
MUTANTS += (
    Mutant(
        "compat8-copy-of-built-is-the-original",
        "schema_dsl/copying.py",
        "        copied: Message = (copier or _copier(message.__schema__))(message)\n",
        "        copied: Message = message\n",
        (
            "tests/differential/test_equality_and_copies_vs_onnx.py",
            "tests/differential/test_copy_from_takes_state_vs_onnx.py",
        ),
        "copy.copy and CopyFrom of a built message give the message itself (changes show through)",
    ),
)
