"""Mutants of the read paths made cheaper for long graphs (issue 48, item 7): HasField's
one-lookup answer, the first read of an unset list, and the looks at a list that store
nothing (the checker's attribute values; the bodies a node holds are
`bodies-skip-graphs-attributes` in mutants.py)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "speed-hasfield-any-bit",
        "schema_dsl/message.py",
        "            return bool(self._has & bit)\n",
        "            return bool(self._has)\n",
        ("tests/unit/schema",),
        "HasField answers whether any field is stored, not this one",
    ),
    Mutant(
        "speed-singular-bit-includes-repeated",
        "schema_dsl/layout.py",
        "        self.singular_bit = {f.name: 1 << i for i, f in enumerate(self.fields) if not f.repeated}\n",
        "        self.singular_bit = {f.name: 1 << i for i, f in enumerate(self.fields)}\n",
        ("tests/unit/schema", "tests/differential/test_message_api_vs_onnx.py"),
        "HasField of a repeated field answers by its bit instead of raising ValueError as protobuf",
    ),
    Mutant(
        "speed-unset-list-not-stored",
        "schema_dsl/presence.py",
        '    _osa(obj, "_has", obj._has | obj.__schema__.bit[name])\n',
        "    pass\n",
        ("tests/unit/schema", "tests/differential/test_aliasing.py"),
        "the first read of an unset list stores it without its stored bit: a later read makes another",
    ),
    Mutant(
        "speed-checker-attribute-lists-unseen",
        "wirecodec/checker/attributes.py",
        "        if (elements(attribute, name) if name in _REPEATED else attribute.HasField(name))\n",
        "        if (() if name in _REPEATED else attribute.HasField(name))\n",
        ("tests/differential/test_check_lists_and_graphs.py",),
        "the checker no longer sees an attribute's list values (ints under type FLOAT passes)",
    ),
)
