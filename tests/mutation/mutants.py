"""The named mutants: one deliberate bug each, as exact text to find and its replacement.

Each says which tests should kill it (``tests``: a pytest selection run in the mutated
copy). The first four are the ones issue 13 names; the rest probe claims nearby. The last
seven are the survivors of issue 26's audit, and the six after them issue 37's (each
survived the whole suite before the test named with it was written). The old text must
occur exactly once in its file and nowhere else in the package (wirecodec/, schema_dsl/;
the harness refuses to run otherwise), so a mutant that no longer matches the code fails
loudly instead of "surviving" unseen, and a guard written twice cannot hide behind its copy.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MUTANTS", "Mutant"]


@dataclass(frozen=True)
class Mutant:
    """A named change to one file of the tree, and the tests expected to notice it."""

    name: str
    file: str  # relative to the repository root
    old: str
    new: str
    tests: tuple[str, ...]
    what: str  # the bug, in words


_LAZY = "tests/test_lazy_agreement.py"
_OFFSETS = "tests/test_offsets_oracle.py"
_ZERO_COPY = "tests/test_zero_copy.py"
_ZIP = "tests/test_zip_hostile.py"
_IO = "tests/test_io_boundaries.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "validator-short-by-one",
        "wirecodec/protobuf/gen/validate.py",
        'if end - pos < {size}:\n    raise _trunc("fixed{size * 8}", {size}, pos, end)\npos += {size}',
        'if end - pos < {size} - 1:\n    raise _trunc("fixed{size * 8}", {size}, pos, end)\npos += {size}',
        (_LAZY,),
        "the deferred-element validator lets a fixed32/fixed64 value one byte short pass",
    ),
    Mutant(
        "copy-bytes-fields-from-bytes",
        "wirecodec/protobuf/gen/decode.py",
        'w(ind, "v = mv[pos:p2]" if spec.view else',
        'w(ind, "v = memoryview(bytes(mv[pos:p2])) if type(buf) is bytes else mv[pos:p2]" if spec.view else',
        (_ZERO_COPY,),
        "the decoder copies every bytes field when the input is a bytes object (still a memoryview)",
    ),
    Mutant(
        "offset-off-by-one-truncated",
        "wirecodec/protobuf/runtime.py",
        '{max(end - pos, 0)} remain", pos)',
        '{max(end - pos, 0)} remain", pos + 1)',
        (_OFFSETS,),
        "a truncated value, length or fixed-width field is reported one byte after where it starts",
    ),
    Mutant(
        "int64-overlong-varint",
        "wirecodec/protobuf/runtime.py",
        'fit in int64")\n    return encode_varint(v + _U64 if v < 0 else v)',
        'fit in int64")\n    return encode_varint(v + _U64 if v < 0 else v) if v < 1 << 56 else '
        "bytes([(v >> 7 * i) & 0x7F | 0x80 for i in range(9)]) + bytes([v >> 63])",
        (
            "tests/test_assignment_bounds.py",
            "tests/test_all_kinds_vs_protobuf.py",
            "tests/test_codec.py",
            "tests/test_properties.py",
        ),
        "the encoder writes int64 values of 2**56 and more as ten-byte varints (valid, not canonical)",
    ),
    Mutant(
        "offset-off-by-one-length",
        "wirecodec/protobuf/runtime.py",
        'only {end - after} bytes remain", at)',
        'only {end - after} bytes remain", at + 1)',
        (_OFFSETS,),
        "a length running past the end is reported one byte into the length",
    ),
    Mutant(
        "validator-packed-run-to-message-end",
        "wirecodec/protobuf/gen/validate.py",
        'f"if not _pcv(buf, pos, p2, {VARINT_RANGE.get(spec.kind',
        'f"if not _pcv(buf, pos, end, {VARINT_RANGE.get(spec.kind',
        (_LAZY,),
        "the validator reads a packed varint run up to the element's end, not the run's",
    ),
    Mutant(
        "validator-depth-not-counted",
        "wirecodec/protobuf/gen/validate.py",
        'f"if not _v_{spec.name}(buf, pos, p2, depth - 1):',
        'f"if not _v_{spec.name}(buf, pos, p2, depth):',
        (_OFFSETS, "tests/test_lazy.py", "tests/test_limits.py"),
        "the validator does not count nesting inside deferred elements against max_depth",
    ),
    Mutant(
        "lazy-threshold-boundary",
        "wirecodec/protobuf/gen/decode.py",
        'w(ind, f"if n >= {small} or',
        'w(ind, f"if n > {small} or',
        (_LAZY, "tests/test_lazy.py", "tests/test_compile.py", "tests/test_limits.py", "tests/test_api.py"),
        "an element of exactly 32 bytes waits, though the docs say only payloads under 32 bytes do",
    ),
    Mutant(
        "packed-varints-unconverted",
        "wirecodec/protobuf/runtime.py",
        "append(convert(v) if convert is not None else v)",
        "append(v)",
        ("tests/test_all_kinds_vs_protobuf.py", "tests/test_codec.py"),
        "packed int64/int32 runs keep negative values as their unsigned 64-bit varints",
    ),
    Mutant(
        "zigzag-sign-lost",
        "wirecodec/protobuf/wire.py",
        "return (value >> 1) ^ -(value & 1)",
        "return (value >> 1) ^ (value & 1)",
        ("tests/test_wire.py", "tests/test_codec.py", "tests/test_all_kinds_vs_protobuf.py"),
        "sint32/sint64 decoding loses the sign",
    ),
    Mutant(
        "group-depth-off-by-one",
        "wirecodec/protobuf/wire.py",
        "if depth_left <= 0:",
        "if depth_left < 0:",
        (_OFFSETS, "tests/test_limits.py", "tests/test_malformed.py"),
        "unknown groups may nest one level deeper than max_depth allows",
    ),
    Mutant(
        "zip-local-method-unchecked",
        "wirecodec/files/zip/records.py",
        "if flags & _ANY_ENCRYPTION or method != STORED:",
        "if flags & _ANY_ENCRYPTION:",
        (_ZIP,),
        "the local header's compression method is no longer checked (the central record's still is)",
    ),
    Mutant(
        "zip-first-end-record",
        "wirecodec/files/zip/records.py",
        "position = tail.rfind(signature)\n",
        "position = tail.find(signature)\n",
        (_ZIP,),
        "the first end-of-central-directory signature is taken instead of the last",
    ),
    Mutant(
        "zip-tensor-from-model-entry",
        "wirecodec/files/zip/container.py",
        "if entry is None or entry.name == MODEL_ENTRY:",
        "if entry is None:",
        (_ZIP,),
        "a tensor may take its bytes from the __MODEL_PROTO entry",
    ),
    Mutant(
        "pread-chunks-from-the-start",
        "wirecodec/files/stream/input.py",
        "view[got : got + _CHUNK], self._base + offset + got)",
        "view[got : got + _CHUNK], self._base + offset)",
        (_IO,),
        "a payload over 16 MiB read with read(): every chunk re-read from the payload's start",
    ),
    Mutant(
        "fsync-before-flush",
        "wirecodec/files/_base/atomic.py",
        "            yield file\n            file.flush()\n            if self._durable:\n"
        "                os.fsync(file.fileno())\n",
        "            yield file\n            if self._durable:\n                os.fsync(file.fileno())\n"
        "            file.flush()\n",
        (_IO,),
        "an atomic save fsyncs each file before flushing Python's buffer into it",
    ),
    Mutant(
        "complex-typed-length-halved",
        "wirecodec/checker/tensors.py",
        "if info.code in _COMPLEX:\n        return 2 * count",
        "if info.code in _COMPLEX:\n        return count",
        ("tests/test_typed_lengths.py",),
        "the checker counts one float per COMPLEX64/128 element in the typed field, not two",
    ),
    Mutant(
        "uint32-bound-off-by-one",
        "schema_dsl/assign.py",
        # The next two rows too: wirecodec/_helper/args.py has its own UINT32 row.
        "Kind.UINT32: (0, (1 << 32) - 1),\n    Kind.FIXED32: (0, (1 << 32) - 1),\n"
        "    Kind.UINT64: (0, (1 << 64) - 1),",
        "Kind.UINT32: (0, 1 << 32),\n    Kind.FIXED32: (0, (1 << 32) - 1),\n"
        "    Kind.UINT64: (0, (1 << 64) - 1),",
        ("tests/test_assignment_bounds.py",),
        "a uint32 field accepts 2**32 (upper bound off by one)",
    ),
    # -- issue 37: the six survivors of round 3's audit, each killed by the test named ------------
    Mutant(
        "remote-range-first-byte-unchecked",
        "wirecodec/files/remote/http_client.py",
        "if first != start or last != expected_last or",
        "if last != expected_last or",
        (
            "tests/test_remote.py::test_a_range_starting_late_is_refused_even_with_a_body_that_matches_its_header",
        ),
        "a 206 answer whose Content-Range starts one byte late (with a body to match) is taken",
    ),
    Mutant(
        "bodies-skip-graphs-attributes",
        "wirecodec/_graphs.py",
        "yield from attribute.graphs",
        "yield from ()",
        (
            "tests/test_compose.py::test_add_prefix_renames_inside_graphs_typed_attributes_as_onnx",
            "tests/test_utils_extract.py::test_initializers_read_by_graphs_typed_attributes_are_kept",
        ),
        "compose and extract ignore the bodies of GRAPHS-typed attributes",
    ),
    Mutant(
        "walk-peek-loads",
        "wirecodec/protobuf/walk.py",
        "items = lazy.peek(current, name, needles) if peek else lazy.elements(current, name)",
        "items = lazy.elements(current, name)",
        ("tests/unit/protobuf/test_walk_peek.py",),
        "walk(..., peek=True) loads the waiting elements it was to peek at",
    ),
    Mutant(
        "file-object-mapped-from-byte-0",
        "wirecodec/files/opener.py",
        "return info.st_size if stat.S_ISREG(info.st_mode) and at_start else None",
        "return info.st_size if stat.S_ISREG(info.st_mode) else None",
        ("tests/unit/files/test_file_objects.py",),
        "load(f) of a file object positioned past its start maps the file from byte 0",
    ),
    Mutant(
        "code-cache-key-without-stamp",
        "wirecodec/protobuf/schema_cache.py",
        "return hashlib.sha256(_stamp() + text.encode()).hexdigest()",
        "return hashlib.sha256(text.encode()).hexdigest()",
        ("tests/test_schema_cache.py",),
        "the code cache's key drops the library's stamp: older generators' entries taken as current",
    ),
    Mutant(
        "check-tensor-from-model-entry",
        "wirecodec/files/zip/container.py",
        "if entry is None or entry.name == MODEL_ENTRY:",
        "if entry is None:",
        ("tests/unit/files/test_container_check.py",),
        "check and inspect take a tensor's bytes from __MODEL_PROTO (the guard's locate() path)",
    ),
)
