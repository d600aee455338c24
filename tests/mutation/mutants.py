"""The named mutants: one deliberate bug each, as exact text to find and its replacement.

Each says which tests should kill it (``tests``: a pytest selection run in the mutated
copy). The first four are the ones issue 13 names; the rest probe claims nearby. The last
seven are the survivors of issue 26's audit (each survived the whole suite before the
test named with it was written). The
old text must occur exactly once in its file (the harness refuses to run otherwise), so
a mutant that no longer matches the code fails loudly instead of "surviving" unseen.
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


_LAZY = "tests/unit/protobuf/test_lazy_agreement.py"
_OFFSETS = "tests/unit/protobuf/test_offsets_oracle.py"
_ZERO_COPY = "tests/unit/protobuf/test_zero_copy.py"
_ZIP = "tests/unit/files/test_zip_hostile.py"
_IO = "tests/unit/files/test_io_boundaries.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "validator-short-by-one",
        "wirecodec/protobuf/gen/validate.py",
        "if end - pos < {size}:",
        "if end - pos < {size} - 1:",
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
            "tests/unit/schema/test_assignment_bounds.py",
            "tests/differential/test_all_kinds_vs_protobuf.py",
            "tests/unit/protobuf/test_codec.py",
            "tests/unit/protobuf/test_properties.py",
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
        'f"if not _pcv(buf, pos, p2, ',
        'f"if not _pcv(buf, pos, end, ',
        (_LAZY,),
        "the validator reads a packed varint run up to the element's end, not the run's",
    ),
    Mutant(
        "validator-depth-not-counted",
        "wirecodec/protobuf/gen/validate.py",
        'f"if not _v_{spec.name}(buf, pos, p2, depth - 1):',
        'f"if not _v_{spec.name}(buf, pos, p2, depth):',
        (_OFFSETS, "tests/unit/protobuf/test_lazy.py", "tests/unit/protobuf/test_limits.py"),
        "the validator does not count nesting inside deferred elements against max_depth",
    ),
    Mutant(
        "lazy-threshold-boundary",
        "wirecodec/protobuf/gen/decode.py",
        'w(ind, f"if n >= {small} or',
        'w(ind, f"if n > {small} or',
        (
            _LAZY,
            "tests/unit/protobuf/test_lazy.py",
            "tests/unit/protobuf/test_compile.py",
            "tests/unit/protobuf/test_limits.py",
            "tests/unit/files/test_api.py",
        ),
        "an element of exactly 32 bytes waits, though the docs say only payloads under 32 bytes do",
    ),
    Mutant(
        "packed-varints-unconverted",
        "wirecodec/protobuf/runtime.py",
        "append(convert(v) if convert is not None else v)",
        "append(v)",
        ("tests/differential/test_all_kinds_vs_protobuf.py", "tests/unit/protobuf/test_codec.py"),
        "packed int64/int32 runs keep negative values as their unsigned 64-bit varints",
    ),
    Mutant(
        "zigzag-sign-lost",
        "wirecodec/protobuf/wire.py",
        "return (value >> 1) ^ -(value & 1)",
        "return (value >> 1) ^ (value & 1)",
        (
            "tests/unit/protobuf/test_wire.py",
            "tests/unit/protobuf/test_codec.py",
            "tests/differential/test_all_kinds_vs_protobuf.py",
        ),
        "sint32/sint64 decoding loses the sign",
    ),
    Mutant(
        "group-depth-off-by-one",
        "wirecodec/protobuf/wire.py",
        "if depth_left <= 0:",
        "if depth_left < 0:",
        (_OFFSETS, "tests/unit/protobuf/test_limits.py", "tests/unit/protobuf/test_malformed.py"),
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
        "[view[got : got + _CHUNK]], self._base + offset + got)",
        "[view[got : got + _CHUNK]], self._base + offset)",
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
        "return 2 * count",
        "return count",
        ("tests/unit/protobuf/test_typed_lengths.py",),
        "the checker counts one float per COMPLEX64/128 element in the typed field, not two",
    ),
    Mutant(
        "uint32-bound-off-by-one",
        "schema_dsl/assign.py",
        "Kind.UINT32: (0, (1 << 32) - 1),",
        "Kind.UINT32: (0, 1 << 32),",
        ("tests/unit/schema/test_assignment_bounds.py",),
        "a uint32 field accepts 2**32 (upper bound off by one)",
    ),
)
