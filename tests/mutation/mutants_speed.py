"""Mutants of the read paths made cheaper for long graphs (issue 48, item 7): HasField's
one-lookup answer, the first read of an unset list, and the looks at a list that store
nothing; and of the one way in (issue 47, item 2): load_zip from a pipe or a URL, the one
HTTP client's look at a URL's first bytes (the checker's attribute values; the bodies a node holds are
`bodies-skip-graphs-attributes` in mutants.py)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "speed-hasfield-any-bit",
        "schema_dsl/message.py",
        "            return bool(self._has & bit)\n",
        "            return bool(self._has)\n",
        ("tests/unit/schema/test_message_api.py", "tests/unit/schema/test_message_api_gaps.py"),
        "HasField answers whether any field is stored, not this one",
    ),
    Mutant(
        "speed-singular-bit-includes-repeated",
        "schema_dsl/layout.py",
        "        self.singular_bit = {f.name: 1 << i for i, f in enumerate(self.fields) if not f.repeated}\n",
        "        self.singular_bit = {f.name: 1 << i for i, f in enumerate(self.fields)}\n",
        ("tests/differential/test_hasfield_vs_onnx.py",),
        "HasField of a repeated field answers by its bit instead of raising ValueError as protobuf",
    ),
    Mutant(
        "speed-unset-list-not-stored",
        "schema_dsl/presence.py",
        '    _osa(obj, "_has", obj._has | obj.__schema__.bit[name])\n',
        "    pass\n",
        ("tests/unit/schema/test_containers.py", "tests/differential/test_aliasing.py"),
        "the first read of an unset list stores it without its stored bit: a later read makes another",
    ),
    Mutant(
        "speed-checker-attribute-lists-unseen",
        "wirecodec/checker/attributes.py",
        "if spec.name in _VALUE_NAMES]\n",
        "if spec.name in _VALUE_NAMES and not spec.repeated]\n",
        ("tests/differential/test_check_lists_and_graphs.py",),
        "the checker no longer sees an attribute's list values (ints under type FLOAT passes)",
    ),
    Mutant(
        "doors-zip-from-stdin-refused",
        "wirecodec/files/zip/buffers.py",
        '    if kind in ("stdin", "url"):\n',
        '    if kind == "url":\n',
        ("tests/unit/files/test_front_doors.py",),
        "load_zip('-') is refused (a TypeError) where every other door reads standard input",
    ),
    Mutant(
        "doors-zip-spool-short-pieces",
        "wirecodec/files/zip/buffers.py",
        "        data = file.read(position, min(position + size, file.size))\n",
        "        data = file.read(position, min(position + size, file.size - 1))\n",
        ("tests/unit/files/test_front_doors.py",),
        "a URL's archive spooled a byte short (a truncated container)",
    ),
    Mutant(
        "doors-first-bytes-only-ranged",
        "wirecodec/files/remote/http_client.py",
        "            if head and status in (200, 206):\n",
        "            if head and status == 206:\n",
        ("tests/cli/test_not_a_model.py",),
        "the look at a URL that failed to open reads nothing from a server that ignores Range"
        " (a directory listing is no longer named as an HTML page)",
    ),
)
