"""Mutants of this round's read and option paths (issue 48): ListFields' one loop over a
class's listing, the checker's value fields from one ListFields, and the verbs' URL options
passed as a parameter (the last context variable of the command line gone)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant, tests_in

_COMMON = "wirecodec/cli/common.py"
_EQUALITY = "tests/differential/test_equality_and_copies_vs_onnx.py"
_TAKES_STATE = "tests/differential/test_copy_from_takes_state_vs_onnx.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "listfields-stops-at-first-unset",
        "schema_dsl/message.py",
        "                elif bit > has:\n                    break\n",
        "                else:\n                    break\n",
        ("tests/unit/schema/test_message_api.py", "tests/differential/test_message_api_vs_onnx.py"),
        "ListFields stops at the first unset field: fields after a gap are not listed",
    ),
    Mutant(
        "listfields-lists-empty-lists",
        "schema_dsl/message.py",
        "                    if value or not repeated:\n",
        "                    if True:\n",
        ("tests/unit/schema/test_message_api.py", "tests/differential/test_message_api_vs_onnx.py"),
        "ListFields lists an empty repeated field once it has been read",
    ),
    Mutant(
        "url-options-not-passed",
        _COMMON,
        "    remote = _remote(options) if url else None\n",
        "    remote = _remote(None) if url else None\n",
        ("tests/cli/test_verb_url_options.py",),
        "a verb's --allow-full-download, --retries and --timeout never reach the URL reader",
    ),
    Mutant(
        "url-options-bad-value-accepted",
        _COMMON,
        "        raise UsageError(str(exc)) from None\n\n\ndef describe_error(",
        "        return RemoteOptions()\n\n\ndef describe_error(",
        ("tests/cli/test_verb_url_options.py",),
        "a bad --retries or --timeout is replaced by the defaults instead of refused",
    ),
    Mutant(
        "walk-any-bit-is-presence",
        "wirecodec/protobuf/walk.py",
        "            elif current._has & bit:  # HasField of a singular message field, in one look\n",
        "            elif current._has:\n",
        ("tests/unit/protobuf/test_walk_peek.py", *tests_in("tests/unit/files")),
        "the walk descends into an unset sub-message whenever any field is set (stores empty children)",
    ),
    Mutant(
        "elements-ignores-pending",
        "wirecodec/protobuf/lazy.py",
        "            loaded: Sequence[Message] = getattr(message, name)\n            return loaded\n",
        "            return ()\n",
        (*tests_in("tests/unit/protobuf"), *tests_in("tests/unit/checker")),
        "a repeated field whose elements still wait is seen as empty by every walk",
    ),
    Mutant(
        "url-external-weights-fetched-whole",
        "wirecodec/files/writeback.py",
        "            payload = _pending(tensor, source) or source.view(tensor)\n",
        "            payload = source.view(tensor)\n",
        ("tests/perf/test_memory_matrix.py::test_external_data_by_url_is_copied_in_pieces",),
        "convert URL --to external fetches every external weight whole, holding them all (638 MB, 600 MB)",
    ),
    Mutant(
        "url-external-inlined-fetched-whole",
        "wirecodec/files/writeback.py",
        "    pending = _pending(tensor, source)\n    if pending is None:\n",
        "    pending = None\n    if pending is None:\n",
        ("tests/perf/test_memory_matrix.py::test_external_data_by_url_is_copied_in_pieces",),
        "convert URL --to single/safetensors fetches every external weight whole before writing",
    ),
    Mutant(
        "records-subgraph-unbounded",
        "wirecodec/protobuf/records.py",
        "    return any(spec.records for spec in cls.__schema__.fields)\n",
        "    return False\n",
        ("tests/differential/test_records.py",),
        "a subgraph of any size is kept in its node's record: every read of the node builds it",
    ),
    Mutant(
        "records-subgraph-refused",
        "wirecodec/protobuf/records.py",
        'be held in a record (see the module docstring)."""\n',
        'be held in a record (see the module docstring)."""\n'
        "    if holds_records(cls):\n        return False\n",
        ("tests/differential/test_records.py", "tests/differential/test_aliasing.py"),
        "a node holding a small subgraph is a message again (the collector visits every If body)",
    ),
    Mutant(
        "eq-source-bytes-always-equal",
        "wirecodec/protobuf/codec.py",
        "    if size != end_b - start_b:\n        return False\n",
        "    if size != end_b - start_b:\n        return True\n",
        (_EQUALITY,),
        "two unchanged decoded messages of different lengths are equal",
    ),
    Mutant(
        "eq-source-pieces-inverted",
        "wirecodec/protobuf/codec.py",
        "        return bytes(view_a[start_a:end_a]) == bytes(view_b[start_b:end_b])\n",
        "        return bytes(view_a[start_a:end_a]) != bytes(view_b[start_b:end_b])\n",
        (_EQUALITY,),
        "two unchanged messages decoded from different buffers compare as unequal when equal",
    ),
    Mutant(
        "eq-fields-of-one-side-only",
        "schema_dsl/message.py",
        "        either = mine_has | their_has\n",
        "        either = mine_has\n",
        (_EQUALITY, "tests/differential/test_message_api_vs_onnx.py", *tests_in("tests/unit/schema")),
        "== looks only at the fields the left side has: a field set on the right alone is missed",
    ),
    Mutant(
        "copy-of-a-part-read-at-whole-offsets",
        "wirecodec/protobuf/codec.py",
        "    if isinstance(whole, (bytes, mmap.mmap)) and view.nbytes == len(whole):\n",
        "    if isinstance(whole, (bytes, mmap.mmap)):\n",
        (_EQUALITY,),
        "a copy of a message decoded from part of a buffer is read at the whole buffer's offsets",
    ),
    Mutant(
        "copy-from-keeps-old-fields",
        "schema_dsl/message.py",
        "        source = copy_message(other)  # first: ``other`` may live inside this message\n"
        "        self.Clear()\n",
        "        source = copy_message(other)  # first: ``other`` may live inside this message\n",
        (_EQUALITY, "tests/differential/test_message_api_vs_onnx.py"),
        "CopyFrom merges into what the message had instead of replacing it",
    ),
    Mutant(
        "validator-unknown-enum-canonical",
        "wirecodec/protobuf/gen/validate.py",
        '                w(ind, f"if _to_i32(v) not in {self._enum_values(spec)}:\\n    nc = 1")\n',
        "                pass\n",
        (
            "tests/differential/test_unknown_enum_values_vs_onnx.py",
            "tests/unit/protobuf/test_shipped_codecs.py",
        ),
        "a waiting element with a value its enum lacks is re-emitted in place, not as protobuf writes it",
    ),
    Mutant(
        "walk-skips-waiting-fields",
        "wirecodec/protobuf/walk.py",
        "        return x is not None and bool(x.lazy)\n",
        "        return False\n",
        (*tests_in("tests/unit/protobuf"), *tests_in("tests/unit/files")),
        "the walk never enters a message whose only fields toward the targets still wait",
    ),
    Mutant(
        "walk-mask-first-field-only",
        "wirecodec/protobuf/walk.py",
        "        if message._has & mask:\n",
        "        if message._has & mask & 1:\n",
        (*tests_in("tests/unit/protobuf"), *tests_in("tests/unit/files")),
        "the walk enters a message only when its first field is present",
    ),
    Mutant(
        "copyfrom-drops-extras",
        "schema_dsl/layout.py",
        '    _osa(message, "_x", fresh._x)\n',
        "    pass\n",
        (_TAKES_STATE,),
        "CopyFrom leaves the copy's extras behind: its unknown fields and waiting elements are lost",
    ),
    Mutant(
        "copyfrom-drops-presence",
        "schema_dsl/layout.py",
        '    _osa(message, "_has", has)\n    _osa(message, "_x", fresh._x)\n',
        '    _osa(message, "_x", fresh._x)\n',
        (_TAKES_STATE,),
        "CopyFrom takes the copy's slots but not its presence bits: the copied fields read as unset",
    ),
    Mutant(
        "clear-keeps-stored-containers",
        "schema_dsl/layout.py",
        "            if has & bit and (spec.repeated or spec.kind is Kind.MESSAGE):\n",
        "            if False:\n",
        (_TAKES_STATE, "tests/unit/schema/test_message_api.py"),
        "Clear leaves stored containers in their slots: a cleared field still reads its old elements",
    ),
    Mutant(
        "search-bytes-inverted",
        "schema_dsl/views.py",
        "                    if own == wanted:\n",
        "                    if own != wanted:\n",
        (_EQUALITY,),
        "index/count/in/remove of a records field answer the opposite for records compared by bytes",
    ),
    Mutant(
        "search-length-shortcut-wrong",
        "schema_dsl/views.py",
        "                if item[2] != len(wanted):\n",
        "                if item[2] >= len(wanted):\n",
        (_EQUALITY,),
        "a record as long as the value looked for is skipped as if it were another size",
    ),
)
