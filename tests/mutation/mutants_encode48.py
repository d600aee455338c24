"""Mutants of the encoder of changed elements of long fields (issue 48, item 7): which
elements changed only themselves (own-fields mode), the field's own change, and the
source records a changed element copies instead of encoding
(wirecodec.protobuf.origin.reuse_field, wirecodec.protobuf.gen.encode)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_EDITS = ("tests/unit/protobuf/test_reemit_edits.py",)

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "encode48-every-changed-element-own-mode",
        "wirecodec/protobuf/origin.py",
        "        size = encode(element, out, view) if alone else encode(element, out)\n",
        "        size = encode(element, out, view)\n",
        _EDITS,
        "an element with a change inside it copies its sub-messages' stale source bytes",
    ),
    Mutant(
        "encode48-second-mark-not-counted",
        "wirecodec/protobuf/origin.py",
        "                own[-1] = False  # a second mark: something inside it changed\n",
        "                pass\n",
        _EDITS,
        "a node renamed and changed inside is taken for one that only changed itself",
    ),
    Mutant(
        "encode48-as-many-marks-as-elements",
        "wirecodec/protobuf/origin.py",
        "            if marks == starts:  # every element changed itself (one comparison, in C)\n",
        "            if len(marks) == len(starts):\n",
        _EDITS,
        "as many changes as elements are taken for every element changing itself",
    ),
    Mutant(
        "encode48-every-element-by-count",
        "wirecodec/protobuf/origin.py",
        "    if None in spans or [span >> _OFFSET_BITS & _OFFSET_MASK for span in spans] != marks:\n",
        "    if None in spans:\n",
        _EDITS,
        "as many changes as elements are taken for every element changing itself (the shortcut)",
    ),
    Mutant(
        "encode48-field-change-behind-owner",
        "wirecodec/protobuf/origin.py",
        "    if marks[0] == marked or (len(marks) > 1 and marks[1] == marked):\n",
        "    if marks[0] == marked:\n",
        _EDITS,
        "a node list changed in a graph that also changed itself is re-emitted from its source",
    ),
    Mutant(
        "encode48-two-byte-header-continuation",
        "wirecodec/protobuf/origin.py",
        "bytes((size & 127 | 128, size >> 7))",
        "bytes((size & 127, size >> 7))",
        _EDITS,
        "a changed element of 128 bytes or more gets a length without its continuation bit",
    ),
    Mutant(
        "encode48-field-records-from-second-byte",
        "wirecodec/protobuf/gen/encode.py",
        "    a = (cs >> {_SHIFT} & {_OFFSETS}) - 1\n",
        "    a = cs >> {_SHIFT} & {_OFFSETS}\n",
        _EDITS,
        "a renamed node's attribute records are copied without their first tag byte",
    ),
    Mutant(
        "encode48-child-record-header-unchecked",
        "wirecodec/protobuf/gen/encode.py",
        "    if w[a : a + len(h)] != h:\n        cs = None\n",
        "    pass\n",
        ("tests/unit/protobuf/test_lazy_agreement.py",),
        "a sub-message whose record in a non-canonical element has a long tag is copied from its source",
    ),
)
