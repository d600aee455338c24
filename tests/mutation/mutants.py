"""The named mutants: one deliberate bug each, as exact text to find and its replacement.

Each says which tests should kill it (``tests``: a pytest selection run in the mutated
copy). In order: issue 13's eleven, then issue 26's seven survivors, issue 37's six
survivors, and issue 37's fresh audit of round 3 (written from the code before any test
was looked at). docs/testing.md says which first survived and which test kills each now.
The old text must occur exactly once in its file and nowhere else in the package
(wirecodec/, schema_dsl/; the harness refuses to run otherwise), so a mutant that no
longer matches the code fails loudly instead of "surviving" unseen, and a guard written
twice cannot hide behind its copy.

Each area's later mutants live in a module of their own beside this one
(``tests/mutation/mutants_<area>.py``, a ``MUTANTS`` tuple each), gathered here in name order.
"""

from __future__ import annotations

import importlib
import pathlib

from tests.mutation.mutant import Mutant

__all__ = ["MUTANTS", "Mutant"]


_LAZY = "tests/unit/protobuf/test_lazy_agreement.py"
_OFFSETS = "tests/unit/protobuf/test_offsets_oracle.py"
_ZERO_COPY = "tests/unit/protobuf/test_zero_copy.py"
_ZIP = "tests/unit/files/test_zip_hostile.py"
_IO = "tests/unit/files/test_io_boundaries.py"
_REMOTE_SAVE = (
    "tests/unit/files/test_remote.py::test_saving_a_remote_model_elsewhere_keeps_no_tensor_it_fetched"
)
_POSITIONAL = "tests/unit/protobuf/test_positional.py"
_NO_PROC = (
    "tests/unit/onnx/test_process_state.py::test_a_save_without_proc_reads_the_umask_without_setting_it"
)
_LOOKUP = "tests/unit/defs/test_lookup.py"
_OPSET_EDGES = "tests/differential/test_checker_opset_edges.py"
_GAPS = "tests/unit/schema/test_message_api_gaps.py"
_SHAPE_EDGES = "tests/differential/test_shape_inference_edges.py"
_RECORDS = "wirecodec/protobuf/rewrite/records.py"
_REWRITE_VS_UPB = "tests/differential/test_rewrite_parser_vs_upb.py"
_VIEWS = "tests/differential/test_records.py"

_CORE: tuple[Mutant, ...] = (
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
        # With its message: the rewrite tools' record parser (protobuf/rewrite) has its own checks.
        'if depth_left <= 0:\n        raise LimitError("nesting too deep (groups count',
        'if depth_left < 0:\n        raise LimitError("nesting too deep (groups count',
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
        "view[got : got + _CHUNK], self._base + offset + got)",
        "view[got : got + _CHUNK], self._base + offset)",
        (_IO,),
        "a payload over 16 MiB read with read(): every chunk re-read from the payload's start",
    ),
    Mutant(
        "fsync-before-flush",
        "wirecodec/files/base/atomic.py",
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
        ("tests/unit/protobuf/test_typed_lengths.py",),
        "the checker counts one float per COMPLEX64/128 element in the typed field, not two",
    ),
    Mutant(
        "uint32-bound-off-by-one",
        "schema_dsl/assign.py",
        # Down to the table's end: wirecodec/_helper/args.py has its own UINT32 row.
        "Kind.UINT32: (0, (1 << 32) - 1),\n    Kind.FIXED32: (0, (1 << 32) - 1),\n"
        "    Kind.UINT64: (0, (1 << 64) - 1),\n    Kind.FIXED64: (0, (1 << 64) - 1),\n}\n_pack_f32",
        "Kind.UINT32: (0, 1 << 32),\n    Kind.FIXED32: (0, (1 << 32) - 1),\n"
        "    Kind.UINT64: (0, (1 << 64) - 1),\n    Kind.FIXED64: (0, (1 << 64) - 1),\n}\n_pack_f32",
        ("tests/unit/schema/test_assignment_bounds.py",),
        "a uint32 field accepts 2**32 (upper bound off by one)",
    ),
    # -- issue 37: the six survivors of round 3's audit, each killed by the test named ------------
    Mutant(
        "remote-range-first-byte-unchecked",
        "wirecodec/files/remote/http_client.py",
        "if first != start or last != expected_last or",
        "if last != expected_last or",
        (
            "tests/unit/files/test_remote.py::test_a_range_starting_late_is_refused_even_with_a_body_that_matches_its_header",
        ),
        "a 206 answer whose Content-Range starts one byte late (with a body to match) is taken",
    ),
    Mutant(
        "bodies-skip-graphs-attributes",
        "wirecodec/graphs/scopes.py",
        'for k, body in enumerate(elements(attribute, "graphs")):',
        "for k, body in enumerate(()):",
        (
            "tests/unit/onnx/test_compose.py::test_add_prefix_renames_inside_graphs_typed_attributes_as_onnx",
            "tests/unit/onnx/test_utils_extract.py::test_initializers_read_by_graphs_typed_attributes_are_kept",
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
        "check-tensor-from-model-entry",
        "wirecodec/files/zip/container.py",
        "if entry is None or entry.name == MODEL_ENTRY:",
        "if entry is None:",
        ("tests/unit/files/test_container_check.py",),
        "check and inspect take a tensor's bytes from __MODEL_PROTO (the guard's locate() path)",
    ),
    # -- issue 37: a fresh audit of round 3's additions, written from the code before any test
    # was looked at (docs/testing.md lists the ones that first survived, and what kills them) --
    Mutant(
        "url-one-letter-scheme",
        "wirecodec/files/base/source.py",
        "bool(sep) and len(scheme) > 1 and",
        "bool(sep) and len(scheme) > 0 and",
        ("tests/unit/files/test_source_switch.py",),
        "a one-letter scheme (a Windows drive, C://m.onnx) is taken for a URL",
    ),
    Mutant(
        "path-named-dash-is-stdin",
        "wirecodec/files/base/source.py",
        'if isinstance(source, os.PathLike):\n        return "path"',
        'if isinstance(source, os.PathLike):\n        return "stdin" if os.fspath(source) == STDIN else "path"',  # noqa: E501  (the code's exact text)
        ("tests/unit/files/test_source_switch.py",),
        "pathlib.Path('-') reads standard input instead of the file named -",
    ),
    Mutant(
        "head-of-consumes-file",
        "wirecodec/files/base/source.py",
        "            head: bytes = stream.read(size)\n            stream.seek(position)\n",
        "            head: bytes = stream.read(size)\n",
        ("tests/unit/files/test_source_switch.py",),
        "head_of leaves a file object past the bytes it looked at",
    ),
    Mutant(
        "head-of-reads-unseekable",
        "wirecodec/files/base/source.py",
        '            if not stream.seekable():\n                return b""\n',
        "",
        ("tests/unit/files/test_file_objects.py",),
        "head_of reads the head of a file object that cannot seek back (a pipe loses it)",
    ),
    Mutant(
        "save-options-align-zero",
        "wirecodec/files/base/options.py",
        "if self.align < 1 or self.align & (self.align - 1):",
        "if self.align & (self.align - 1):",
        ("tests/unit/files/test_save_options.py",),
        "SaveOptions(align=0) is accepted",
    ),
    Mutant(
        "save-options-empty-location",
        "wirecodec/files/base/options.py",
        "if self.location is not None and not self.location:",
        "if False:",
        ("tests/unit/files/test_save_options.py",),
        "SaveOptions(location='') is accepted",
    ),
    Mutant(
        "pipe-whole-boundary",
        "wirecodec/files/opener.py",
        "if len(head) <= PIPE_WHOLE:  # it ended",
        "if len(head) < PIPE_WHOLE:  # it ended",
        ("tests/unit/files/test_pipes.py",),
        "a pipe of exactly PIPE_WHOLE bytes is read front to back instead of kept whole",
    ),
    Mutant(
        "pipe-keep-boundary",
        "wirecodec/files/opener.py",
        "if lazy_tensor.raw_length <= PIPE_KEEP:",
        "if lazy_tensor.raw_length < PIPE_KEEP:",
        ("tests/unit/files/test_pipes.py",),
        "a payload of exactly PIPE_KEEP bytes from a pipe is passed by, not kept",
    ),
    Mutant(
        "pipe-head-not-spooled",
        "wirecodec/files/opener.py",
        "            out[:n] = data\n        if self._tee is not None:\n            self._tee.write(out[:n])\n",  # noqa: E501  (the code's exact text)
        "            out[:n] = data\n            if self._tee is not None:\n                self._tee.write(out[:n])\n",  # noqa: E501  (the code's exact text)
        ("tests/unit/files/test_pipes.py",),
        "the spool gets only the bytes read after the head: spooled payloads are views at wrong offsets",
    ),
    Mutant(
        "pipe-one-read",
        "wirecodec/files/opener.py",
        "        pieces.append(piece)\n        size += len(piece)\n",
        "        pieces.append(piece)\n        size += len(piece)\n        break\n",
        ("tests/unit/files/test_pipes.py",),
        "a pipe's first short read is taken for its end (a long model kept 'whole', cut short)",
    ),
    Mutant(
        "shallow-copy-loads-left-out",
        "schema_dsl/copying.py",
        "if spec.name not in leave_out and table.record(spec.name) is not None:",
        "if table.record(spec.name) is not None:",
        (_REMOTE_SAVE,),
        "shallow_copy(leave_out=...) loads (fetches) the waiting fields it leaves out",
    ),
    Mutant(
        "shallow-copy-drops-unknown",
        "schema_dsl/copying.py",
        "    if message._unknown:\n        state[_UNKNOWN] = message._unknown\n    return cast(_M, rebuild(message.__schema__.cls, state, convert=False))",  # noqa: E501  (the code's exact text)
        "    return cast(_M, rebuild(message.__schema__.cls, state, convert=False))",
        ("tests/unit/files/test_moved_tensors.py",),
        "shallow_copy with leave_out drops the unknown fields",
    ),
    Mutant(
        "external-write-fetches-and-keeps",
        "wirecodec/files/base/raw.py",
        '    waiting = waiting_bytes(tensor, "raw_data")\n    if waiting is not None:\n        return waiting\n    if tensor.HasField("raw_data"):',  # noqa: E501  (the code's exact text)
        '    if tensor.HasField("raw_data"):',
        (_REMOTE_SAVE,),
        "saving a model by URL to external data fetches each tensor and keeps it on the model",
    ),
    Mutant(
        "write-payload-pending-unloaded",
        "wirecodec/protobuf/payloads.py",
        "        end = min(start + FETCH_PIECE, record.nbytes)\n",
        "        end = min(start + FETCH_PIECE, record.nbytes - 1)\n",
        (_REMOTE_SAVE,),
        "a pending payload written one byte short",
    ),
    Mutant(
        "pread-fallback-position-lost",
        "wirecodec/protobuf/positional.py",
        "        finally:\n            os.lseek(fd, before, os.SEEK_SET)",
        "        finally:\n            pass",
        (_POSITIONAL,),
        "the seek+read fallback of pread leaves the descriptor moved",
    ),
    Mutant(
        "preadinto-fallback-claims-full",
        "wirecodec/protobuf/positional.py",
        "    view[: len(data)] = data\n    return len(data)",
        "    view[: len(data)] = data\n    return view.nbytes",
        (_POSITIONAL,),
        "the fallback preadinto says it filled the view at the end of a file",
    ),
    Mutant(
        "failed-map-copy-from-start",
        "wirecodec/protobuf/payloads.py",
        "got = positional.preadinto(fd, view[done:], done)",
        "got = positional.preadinto(fd, view[done:], 0)",
        (_POSITIONAL,),
        "a file that cannot be mapped is copied from its start at every partial read",
    ),
    Mutant(
        "failed-map-valueerror-uncaught",
        "wirecodec/protobuf/payloads.py",
        "        return kind(fd, 0, access=mmap.ACCESS_READ)\n    except (OSError, ValueError):",
        "        return kind(fd, 0, access=mmap.ACCESS_READ)\n    except OSError:",
        (_POSITIONAL,),
        "a map refused with ValueError gets no fallback copy",
    ),
    Mutant(
        "range-input-window-stale",
        "wirecodec/files/stream/input.py",
        "        self._window = self._pread(max(n, _WINDOW), self.pos)\n        self._window_at = self.pos\n",
        "        self._window = self._pread(max(n, _WINDOW), self.pos)\n",
        ("tests/unit/files/test_stream_url.py", _IO),
        "a positional input (a file, a URL) keeps the first window's position: later headers read "
        "from the wrong place",
    ),
    Mutant(
        "umask-read-as-decimal",
        "wirecodec/files/base/atomic.py",
        "return int(line.split()[1], 8)",
        "return int(line.split()[1])",
        (
            "tests/unit/files/test_save_safety.py::test_written_files_get_the_umask_mode_and_replaced_ones_keep_theirs",
        ),
        "the umask from /proc is read as a decimal number",
    ),
    Mutant(
        "umask-probe-returns-mode",
        "wirecodec/files/base/atomic.py",
        "return 0o666 & ~stat.S_IMODE(os.fstat(fd).st_mode)",
        "return stat.S_IMODE(os.fstat(fd).st_mode)",
        (_NO_PROC,),
        "without /proc the probe returns the probe file's mode instead of the umask",
    ),
    Mutant(
        "umask-probe-left-behind",
        "wirecodec/files/base/atomic.py",
        "        with contextlib.suppress(OSError):\n            os.unlink(probe)",
        "        with contextlib.suppress(OSError):\n            pass",
        (_NO_PROC,),
        "the umask probe file is left in the user's directory",
    ),
    Mutant(
        "program-exit-code-lost",
        "wirecodec/cli/__init__.py",
        "        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())\n    sys.exit(code)",
        "        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())\n    sys.exit(0)",
        ("tests/cli/test_program_exit.py",),
        "python -m wirecodec exits 0 whatever main() returned",
    ),
    Mutant(
        "program-exit-flush-noisy",
        "wirecodec/cli/__init__.py",
        "    except BrokenPipeError:\n        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())\n    sys.exit(code)",  # noqa: E501  (the code's exact text)
        "    except BrokenPipeError:\n        pass\n    sys.exit(code)",
        ("tests/cli/test_program_exit.py",),
        "the program's exit flush complains when its reader went away",
    ),
    Mutant(
        "numpy-missing-no-name",
        "wirecodec/errors.py",
        'super().__init__(f"this needs numpy, which is not installed ({how})", name="numpy")',
        'super().__init__(f"this needs numpy, which is not installed ({how})")',
        ("tests/unit/portability/test_numpy_missing.py",),
        "NumpyMissingError does not name the missing module (name is None)",
    ),
    Mutant(
        "schema-lookup-bisect-left",
        "wirecodec/defs/_registry.py",
        "at = bisect.bisect_right(since, max_inclusive_version)",
        "at = bisect.bisect_left(since, max_inclusive_version)",
        (_LOOKUP,),
        "get_schema at an operator's since_version gives the version before it",
    ),
    Mutant(
        "function-body-bisect-left",
        "wirecodec/defs/_types.py",
        "at = bisect.bisect_right(versions, opset_version)",
        "at = bisect.bisect_left(versions, opset_version)",
        (_LOOKUP,),
        "a function body written for opset N is not found at opset N",
    ),
    Mutant(
        "string-default-not-bytes",
        "wirecodec/defs/_registry.py",
        'if type_ == _STRING:\n        return str(value).encode("utf-8")',
        "if type_ == _STRING:\n        return str(value)",
        (_LOOKUP,),
        "a STRING attribute's default is str, not bytes as onnx gives it",
    ),
    Mutant(
        "latest-schema-is-first",
        "wirecodec/defs/__init__.py",
        "return [history[-1] for _, history in sorted(registry().by_op.items())]",
        "return [history[0] for _, history in sorted(registry().by_op.items())]",
        (_LOOKUP,),
        "get_all_schemas gives each operator's first version, not its latest",
    ),
    Mutant(
        "opset-import-first-wins",
        "wirecodec/checker/schemas.py",
        "return {opset.domain: opset.version for opset in opsets}",
        "return {opset.domain: opset.version for opset in reversed(list(opsets))}",
        (_OPSET_EDGES,),
        "a domain imported twice is checked at its first version (onnx keeps the last)",
    ),
    Mutant(
        "old-ir-implied-opset-boundary",
        "wirecodec/checker/schemas.py",
        "return {_DEFAULT: 1} if ir < 3 else None",
        "return {_DEFAULT: 1} if ir <= 3 else None",
        (_OPSET_EDGES,),
        "a model of IR 3 without imports is checked at opset 1",
    ),
    Mutant(
        "ai-onnx-alias-unchecked",
        "wirecodec/checker/schemas.py",
        "    if domain == _DEFAULT:\n        return imports.get(_DEFAULT_ALIAS)\n    return None",
        "    return None",
        (_OPSET_EDGES,),
        "nodes of '' under a model importing 'ai.onnx' are not checked",
    ),
    Mutant(
        "function-imports-override-model",
        "wirecodec/checker/schemas.py",
        "merged.setdefault(domain, version)",
        "merged[domain] = version",
        ("tests/differential/test_checker_schemas.py::test_function_bodies_are_checked_as_onnx_checks_them",),
        "function opset compatibility judged against the function's own imports",
    ),
    Mutant(
        "last-single-parameter-omission-unchecked",
        "wirecodec/checker/schemas.py",
        "for i, value in enumerate(values[: len(params)]):",
        "for i, value in enumerate(values[: len(params) - 1]):",
        (
            "tests/differential/test_checker_schemas.py::test_verdicts_equal_onnx_on_seeded_models[omit_an_input]",
        ),
        "an omitted ('') last Single input or output is not reported",
    ),
    Mutant(
        "dunder-attributes-not-exempt",
        "wirecodec/checker/schemas.py",
        'if not (schema.allows_unchecked_attributes or name.startswith("__")):',
        "if not schema.allows_unchecked_attributes:",
        (
            "tests/differential/test_checker_schemas.py::test_verdicts_equal_onnx_on_seeded_models[unknown_attribute]",
        ),
        "attributes named '__...' are reported as undeclared",
    ),
    Mutant(
        "untyped-attributes-skipped-always",
        "wirecodec/checker/schemas.py",
        "if actual == _Type.UNDEFINED and typed:",
        "if actual == _Type.UNDEFINED:",
        (_OPSET_EDGES,),
        "an untyped attribute of an IR 1 model is not compared with its schema",
    ),
    Mutant(
        "opset-zero-checked",
        "wirecodec/checker/schemas.py",
        "    if version < 1 or experimental:",
        "    if version < 0 or experimental:",
        (_OPSET_EDGES,),
        "nodes under an opset-0 import get one violation each",
    ),
    Mutant(
        "skipped-counts-builtin",
        "wirecodec/checker/schemas.py",
        "(experimental or (domain not in BUILTIN_DOMAINS and schema is None))",
        "(experimental or schema is None)",
        (_OPSET_EDGES,),
        "skipped_domains counts unknown operators of built-in domains (which are refused, not skipped)",
    ),
    Mutant(
        "function-compat-in-subgraphs",
        "wirecodec/checker/schemas.py",
        "_FUNCTION_NODE.fullmatch(site.path):",
        "_FUNCTION_NODE.match(site.path):",
        (_OPSET_EDGES,),
        "opset compatibility is also judged for nodes inside a function node's subgraphs",
    ),
    Mutant(
        "lone-surrogate-accepted",
        "schema_dsl/assign.py",
        "        if not value.isascii():\n            _check_encodable(name, value)\n",
        "",
        (_GAPS + "::test_a_lone_surrogate_is_refused_at_assignment",),
        "a string with a lone surrogate is accepted at assignment (protobuf refuses it)",
    ),
    Mutant(
        "double-equality-by-value",
        "schema_dsl/equality.py",
        "{Kind.BYTES, Kind.FLOAT, Kind.DOUBLE, Kind.MESSAGE}",
        "{Kind.BYTES, Kind.FLOAT, Kind.MESSAGE}",
        (_GAPS + "::test_equality_tells_the_sign_of_zero_and_keeps_nan_equal",),
        "double fields compare by value: 0.0 == -0.0, and NaN != NaN",
    ),
    Mutant(
        "bytes-field-name-as-repr",
        "schema_dsl/message.py",
        'return name.decode("utf-8", "replace")  # a name',
        "return str(name)  # a name",
        (_GAPS + "::test_in_asks_has_field",),
        "HasField(b'name') / WhichOneof(b'value') look up \"b'name'\"",
    ),
    Mutant(
        "merge-converts-scalars",
        "schema_dsl/message.py",
        "                store_valid(self, spec.name, value)\n        if other._unknown:",
        "                setattr(self, spec.name, value)\n        if other._unknown:",
        (_GAPS + "::test_a_decoded_string_that_is_not_utf8_still_copies_and_merges",),
        "MergeFrom converts scalars again: a decoded string that is not UTF-8 cannot be merged",
    ),
    Mutant(
        "merge-oneof-keeps-other-member",
        "schema_dsl/presence.py",
        "    for other in others:\n        unset(message, other)\n    store(message, name, value)",
        "    store(message, name, value)",
        ("tests/differential/test_message_api_vs_onnx.py",),
        "MergeFrom of a oneof scalar leaves the other member set",
    ),
    # -- issue 37: shape inference and edit --toposort (landed on main during the session) --
    Mutant(
        "broadcast-ones-become-unknown",
        "wirecodec/shape_inference/ops/_util.py",
        "        if value != 1 or not symbols:\n            out.append(value)",
        "        if value != 1:\n            out.append(value)",
        (_SHAPE_EDGES,),
        "a broadcast axis where every input has size 1 is inferred as unknown, not 1",
    ),
    Mutant(
        "axis-equal-to-rank-accepted",
        "wirecodec/shape_inference/ops/_util.py",
        "if not -rank <= axis < rank:",
        "if not -rank <= axis <= rank:",
        (_SHAPE_EDGES,),
        "an axis equal to the rank is taken as in range",
    ),
    Mutant(
        "reverse-slice-stops-short",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "min(max(end, -1), dim - 1)",
        "min(max(end, 0), dim - 1)",
        (_SHAPE_EDGES,),
        "a Slice with a negative step down to the start loses its last element",
    ),
    Mutant(
        "fresh-symbol-reused",
        "wirecodec/shape_inference/_engine.py",
        "            if name not in self.used:\n                self.used.add(name)\n                return name",  # noqa: E501  (the code's exact text)
        "            self.used.add(name)\n            return name",
        (
            "tests/unit/shape_inference/test_infer_shapes.py::test_unknown_axes_get_fresh_symbols_that_avoid_existing_ones",
        ),
        "a fresh unk__N symbol may repeat one the model already uses",
    ),
    Mutant(
        "subgraph-symbols-not-reserved",
        "wirecodec/shape_inference/_engine.py",
        "        for scope in walk_graphs(graph):\n            if scope.depth and not scope.in_graphs:",
        "        for scope in [next(walk_graphs(graph))]:\n"
        "            if scope.depth and not scope.in_graphs:",
        (_SHAPE_EDGES,),
        "symbols used only inside subgraphs are not reserved before fresh ones are made",
    ),
    Mutant(
        "toposort-unstable",
        "wirecodec/cli/graph_order.py",
        "index = heapq.heappop(ready)",
        "index = ready.pop()",
        ("tests/cli/test_toposort_stable.py",),
        "edit --toposort reorders nodes that were already in order (not stable)",
    ),
    Mutant(
        "toposort-ignores-body-reads",
        "wirecodec/cli/graph_order.py",
        "        for name in _reads(node, held.get(index, [])):\n            source = producer.get(name)",
        "        for name in node.input:\n            source = producer.get(name)",
        ("tests/cli/test_toposort.py::test_toposort_follows_what_a_body_reads_and_sorts_bodies",),
        "edit --toposort ignores what a node's bodies read from the graph (If branches)",
    ),
    # -- issue 37: the CLI's integrity checks (landed on main during the session) --------------
    Mutant(
        "crc-restarts-every-chunk",
        "wirecodec/files/integrity.py",
        "crc = zlib.crc32(data.buffer[start : min(start + _CHUNK, entry.data_end)], crc)",
        "crc = zlib.crc32(data.buffer[start : min(start + _CHUNK, entry.data_end)], 0)",
        ("tests/cli/test_integrity_big_entries.py",),
        "check --full computes a container entry's CRC-32 afresh for each 1 MiB piece: big entries are called corrupt",  # noqa: E501
    ),
    Mutant(
        "safetensors-shape-unchecked",
        "wirecodec/files/integrity.py",
        "    if entry.shape != tuple(tensor.dims):\n",
        "    if False:\n",
        ("tests/cli/test_integrity.py::test_every_lying_header_is_refused_in_one_line",),
        "a tensor whose dims differ from its safetensors header entry's shape is not reported",
    ),
    # -- issue 37: the fuzz tools' record parser (landed on main during the session) ------------
    Mutant(
        "rewrite-six-byte-tag-accepted",
        _RECORDS,
        "if number == 0 or tag >= 1 << 32 or pos - start > 5:",
        "if number == 0 or tag >= 1 << 32 or pos - start > 6:",
        (_REWRITE_VS_UPB,),
        "the rewrite tools' record parser takes a tag padded to 6 bytes (upb refuses it)",
    ),
    Mutant(
        "rewrite-packed-remainder-accepted",
        _RECORDS,
        "    if (end - pos) % width:\n        raise DecodeError(",
        "    if False:\n        raise DecodeError(",
        (_REWRITE_VS_UPB,),
        "the record parser takes a packed fixed-width run whose length is not a multiple of the width",
    ),
    Mutant(
        "rewrite-length-one-past-end",
        _RECORDS,
        '            if length > end - pos:\n                raise DecodeError(f"length {length} runs past',
        '            if length > end - pos + 1:\n                raise DecodeError(f"length {length} runs past',  # noqa: E501
        (_REWRITE_VS_UPB,),
        "the record parser takes a length running one byte past the end",
    ),
    Mutant(
        "rewrite-end-group-of-another",
        _RECORDS,
        '            if tag >> 3 != number:\n                raise DecodeError("end-group tag of another group"',  # noqa: E501
        '            if False:\n                raise DecodeError("end-group tag of another group"',
        (_REWRITE_VS_UPB,),
        "the record parser takes a group closed by another field's end-group tag",
    ),
    # Issue 36: records, fragments and views (written with the code, each killed on first run).
    Mutant(
        "records-memo-ignores-class",
        "wirecodec/protobuf/records.py",
        "    if e is not None and e[0] is _T{i}:",
        "    if e is not None:",
        (f"{_VIEWS}::test_equal_bytes_of_two_classes_stay_apart",),
        "the memo of records hands out a fragment made for another class from the same bytes",
    ),
    Mutant(
        "records-subgraph-holder",
        "wirecodec/protobuf/records.py",
        'w(ind, f"if n > {MAX_HELD_GRAPH}:\\n    return False")',
        'w(ind, f"if n >= {MAX_HELD_GRAPH}:\\n    return False")',
        (f"{_VIEWS}::test_a_node_holding_a_subgraph_past_the_limit_is_a_message",),
        "a subgraph of exactly MAX_HELD_GRAPH bytes makes its node a message (off by one)",
    ),
    Mutant(
        "records-threshold-off-by-one",
        "wirecodec/protobuf/records.py",
        "                    if seen > RECORDS_AFTER:",
        "                    if seen >= RECORDS_AFTER:",
        (f"{_VIEWS}::test_only_graphs_with_a_long_field_keep_records",),
        "a graph whose longest field has exactly RECORDS_AFTER elements keeps records",
    ),
    Mutant(
        "fragment-span-end-off-by-one",
        "wirecodec/protobuf/fragments.py",
        'lines.append(f"{o}._span = s + {a << _SHIFT | (a + r[i + 2])}")',
        'lines.append(f"{o}._span = s + {a << _SHIFT | (a + r[i + 2] + 1)}")',
        (f"{_VIEWS}::test_compiled_fragment_builders_build_what_the_generic_builder_does",),
        "a compiled fragment builder gives its messages spans one byte too long",
    ),
    Mutant(
        "records-container-start",
        "schema_dsl/views.py",
        "                    starts.append(item[1])  # a record's first start",
        "                    starts.append(item[2])  # a record's first start",
        (_VIEWS,),
        "a records container tells the encoder a record's length where its start belongs",
    ),
    Mutant(
        "pin-replaces-whatever-is-there",
        "schema_dsl/views.py",
        "        if 0 <= at < _llen(self) and self._raw_at(at) is record:",
        "        if 0 <= at < _llen(self):",
        (_VIEWS,),
        "a pin puts its element where the view was read even after inserts moved the record",
    ),
    Mutant(
        "records-for-tiny-elements",
        "wirecodec/protobuf/records.py",
        "                        return sizes[tag] >= seen * RECORD_MIN_AVERAGE",
        "                        return True",
        ("tests/unit/protobuf/test_lazy.py::test_empty_nodes_cost_four_bytes_each",),
        "a graph of more than RECORDS_AFTER empty nodes keeps records (a tuple each, not 4 bytes)",
    ),
    Mutant(
        "fragment-builders-kept-by-atoms",
        "wirecodec/protobuf/fragments.py",
        "            key = (self.classes[fid], self.payloads[fid])",
        "            key = (self.classes[fid], self.atoms[fid])",
        (f"{_VIEWS}::test_builders_compiled_in_one_decode_are_not_taken_for_anothers_fragments",),
        "a builder compiled in one decode is taken for another's fragment of equal atoms",
    ),
)


def _gathered() -> tuple[Mutant, ...]:
    found: list[Mutant] = list(_CORE)
    for path in sorted(pathlib.Path(__file__).parent.glob("mutants_*.py")):
        found += importlib.import_module(f"tests.mutation.{path.stem}").MUTANTS
    return tuple(found)


MUTANTS: tuple[Mutant, ...] = _gathered()
