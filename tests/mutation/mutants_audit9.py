"""Issue 46: a fresh mutation audit of the last session's code (round 9), by someone who did
not write it. 30 plausible bugs, each in a different place, none repeating an old text of
another mutant module, written from the code before its tests were read: the waiting
containers and their records (schema_dsl/containers.py, wirecodec/protobuf/lazy.py), the
code cache, the encoder of changed elements, onnx's backend-test runner, the bodies built
per node and the evaluator's input kinds, the write-back and the safetensors files. Each
names the tests of its area that *should* notice it (never tests/onnx_suite). The kill
ratio before any test was added, the survivors and the tests that now kill them:
docs/testing.md ("a fresh audit of round 9").

    python -m tests.mutation --onnx-suite off $(grep -o '"audit9-[a-z0-9-]*"' \
        tests/mutation/mutants_audit9.py | sort -u | tr -d '"' | sed 's/^/--only /')
"""

from __future__ import annotations

import dataclasses

from tests.mutation.mutant import Mutant, tests_in

_CONTAINERS_FILE = "schema_dsl/containers.py"
_LAZY_FILE = "wirecodec/protobuf/lazy.py"
_CACHE_FILE = "wirecodec/protobuf/code_cache.py"
_ORIGIN_FILE = "wirecodec/protobuf/origin.py"
_RUNNER_FILE = "wirecodec/onnx_compat/backend/test/runner/__init__.py"
_EVALUATOR_FILE = "wirecodec/reference/_evaluator.py"
_BODIES_FILE = "wirecodec/reference/_bodies.py"
_WRITEBACK_FILE = "wirecodec/files/writeback.py"
_SAFETENSORS = "wirecodec/files/safetensors/"

# The selections: the tests of each area as they were before this audit (its "before").
_P = "tests/unit/protobuf/"
_T_CONTAINERS = (
    "tests/unit/schema/test_containers.py",
    _P + "test_waiting_containers.py",
    _P + "test_lazy.py",
    _P + "test_pending_runs.py",
    _P + "test_rarely_read.py",
    "tests/differential/test_aliasing.py",
)
_T_LAZY = (
    _P + "test_lazy.py",
    _P + "test_lazy_agreement.py",
    _P + "test_pending_runs.py",
    _P + "test_pending_bytes.py",
    _P + "test_rarely_read.py",
    _P + "test_waiting_containers.py",
    _P + "test_walk_peek.py",
    _P + "test_decode_modes.py",
)
_T_CACHE = (
    _P + "test_code_cache.py",
    _P + "test_compile.py",
    _P + "test_shipped_codecs.py",
    "tests/unit/portability/test_environments.py",
)
_T_ENCODER = (
    _P + "test_reemit.py",
    _P + "test_reemit_edits.py",
    _P + "test_codec.py",
    _P + "test_golden_bytes.py",
)
_T_RUNNER = (
    "tests/differential/test_onnx_compat_backend_runner.py",
    "tests/differential/test_onnx_compat_backend_loader.py",
)
_T_EVALUATOR = (
    *tests_in("tests/unit/reference"),
    "tests/differential/test_reference_context_bodies.py",
    "tests/differential/test_reference_kernels.py",
    "tests/differential/test_reference_feeds_and_extremes.py",
)
_T_WRITEBACK = (
    "tests/unit/files/test_writeback_in_place.py",
    "tests/unit/files/test_writeback_names_and_places.py",
    "tests/unit/files/test_save_options.py",
    "tests/unit/files/test_save_safety.py",
    "tests/unit/files/test_external.py",
    "tests/unit/files/test_moved_tensors.py",
    "tests/unit/files/test_convert.py",
    "tests/unit/files/test_remote.py",
)
_T_SAFETENSORS = (
    "tests/unit/files/test_safetensors.py",
    "tests/differential/test_safetensors_header_vs_package.py",
    "tests/unit/files/test_integrity_in_library.py",
)

_BEFORE: tuple[Mutant, ...] = (
    # -- the waiting containers (4) ------------------------------------------------------------
    Mutant(
        "audit9-container-ne-reads-waiting-storage",
        _CONTAINERS_FILE,
        "    def __ne__(self, other: object) -> bool:\n"
        "        if isinstance(other, WaitingContainer):\n"
        "            WaitingContainer._arrive(other)\n",
        "    def __ne__(self, other: object) -> bool:\n",
        _T_CONTAINERS,
        "a plain container != a waiting one compares with the waiting one's empty storage",
    ),
    Mutant(
        "audit9-waiting-contains-not-arriving",
        _CONTAINERS_FILE,
        '    "__reversed__",\n    "__contains__",\n',
        '    "__reversed__",\n',
        _T_CONTAINERS,
        "`x in field` of a waiting field searches its empty storage: always False",
    ),
    Mutant(
        "audit9-waiting-reversed-not-arriving",
        _CONTAINERS_FILE,
        '    "__iter__",\n    "__reversed__",\n',
        '    "__iter__",\n',
        _T_CONTAINERS,
        "reversed(field) of a waiting field walks its empty storage: no elements",
    ),
    Mutant(
        "audit9-waiting-bool-reads-storage",
        _CONTAINERS_FILE,
        "        return self.__len__() > 0\n",
        "        return list.__len__(self) > 0  # type: ignore[arg-type]\n",
        _T_CONTAINERS,
        "bool(field) of a waiting field is False (its storage is empty until it arrives)",
    ),
    # -- the records the containers wait on (3) ----------------------------------------------
    Mutant(
        "audit9-pending-run-unpacked-value-uncounted",
        _LAZY_FILE,
        "            pieces.append([value])\n        self.count += 1\n",
        "            pieces.append([value])\n",
        _T_LAZY,
        "an unpacked value after a waiting packed run is loaded but not counted: len() is short",
    ),
    Mutant(
        "audit9-pending-head-left-in-container",
        _LAZY_FILE,
        "        record.head = list.__getitem__(head, slice(None))\n        list.clear(head)\n",
        "        record.head = list.__getitem__(head, slice(None))\n",
        _T_LAZY,
        "the elements decoded before the first waiting one stay in the container: twice after arrival",
    ),
    Mutant(
        "audit9-waiting-fields-repeated-only",
        _LAZY_FILE,
        "    return [spec.name for spec in message.__schema__.fields if waiting_record(",
        "    return [spec.name for spec in message.__schema__.fields if spec.repeated and waiting_record(",
        _T_LAZY,
        "waiting_fields leaves out a raw_data still to be fetched (a singular field)",
    ),
    # -- the code cache (4) -----------------------------------------------------------------
    Mutant(
        "audit9-code-cache-relative-xdg-honoured",
        _CACHE_FILE,
        "    if os.path.isabs(xdg):  # the XDG rule: a relative path is to be ignored\n",
        "    if xdg:  # the XDG rule: a relative path is to be ignored\n",
        _T_CACHE,
        "a relative $XDG_CACHE_HOME is used: the cache lands under the current directory",
    ),
    Mutant(
        "audit9-code-cache-group-writable-trusted",
        _CACHE_FILE,
        "    if info.st_mode & 0o022:\n",
        "    if info.st_mode & 0o002:\n",
        _T_CACHE,
        "code is run from a cache folder its group can write to",
    ),
    Mutant(
        "audit9-code-cache-evicts-newest",
        _CACHE_FILE,
        "    for _, name in entries[: len(entries) - CACHE_ENTRIES]:\n",
        "    for _, name in entries[CACHE_ENTRIES:]:\n",
        _T_CACHE,
        "past CACHE_ENTRIES the newest entries are evicted, not the oldest",
    ),
    Mutant(
        "audit9-code-cache-written-without-bytecode",
        _CACHE_FILE,
        "    if sys.dont_write_bytecode:  # the user asked Python for no cache files: none of ours either\n"
        "        return\n",
        "",
        _T_CACHE,
        "the code cache is written though Python was asked to write no bytecode (-B)",
    ),
    # -- the encoder of changed elements (3) ------------------------------------------------
    Mutant(
        "audit9-reuse-field-record-of-128-one-byte-length",
        _ORIGIN_FILE,
        "        record = payload - tag_size - (1 if size < 128 else 2 if size < 16384 else",
        "        record = payload - tag_size - (1 if size <= 128 else 2 if size < 16384 else",
        _T_ENCODER,
        "a changed element whose source payload was 128 bytes is taken to start one byte late",
    ),
    Mutant(
        "audit9-dirty-elements-first-element-taken-for-owner",
        _ORIGIN_FILE,
        "            if marks and starts and marks[0] < starts[0]:\n",
        "            if marks and starts and marks[0] <= starts[0]:\n",
        _T_ENCODER,
        "with many changes, the first element's own change is taken for its owner's and lost",
    ),
    Mutant(
        "audit9-marks-within-end-excluded",
        _ORIGIN_FILE,
        "        return marks[bisect.bisect_left(marks, start) : bisect.bisect_right(marks, end)]\n",
        "        return marks[bisect.bisect_left(marks, start) : bisect.bisect_left(marks, end)]\n",
        _T_ENCODER,
        "a change of an empty last child (starting at the field's end) is not seen by reuse_field",
    ),
    # -- onnx's backend-test runner (4) -----------------------------------------------------
    Mutant(
        "audit9-runner-exclude-anchored",
        _RUNNER_FILE,
        "                    if exclude.search(name):\n",
        "                    if exclude.match(name):\n",
        _T_RUNNER,
        "exclude() patterns must match at the start of the test name (onnx searches)",
    ),
    Mutant(
        "audit9-runner-device-name-upper",
        _RUNNER_FILE,
        '            device_test_name = f"{test_name}_{device.lower()}"\n',
        '            device_test_name = f"{test_name}_{device}"\n',
        _T_RUNNER,
        "tests are named test_abs_CPU, not onnx's test_abs_cpu",
    ),
    # (A first draft here, `audit9-runner-node-tolerances-of-test-kwargs-ignored`: the same
    # bug in ``run_node``, survived and is equivalent: the loader gives every case with a
    # model.onnx its model_dir, so ``run_node`` (a node case without one) never runs a
    # model; a case by URL has no model there. This replaces it, in the path that runs.)
    Mutant(
        "audit9-runner-tolerances-of-test-kwargs-ignored",
        _RUNNER_FILE,
        '                    rtol=kwargs.get("rtol", model_test.rtol),\n'
        '                    atol=kwargs.get("atol", model_test.atol),\n'
        "                    model_dir=model_dir,\n",
        "                    rtol=model_test.rtol,\n"
        "                    atol=model_test.atol,\n"
        "                    model_dir=model_dir,\n",
        _T_RUNNER,
        "a case's rtol/atol given in test_kwargs are not used (data.json's or the default instead)",
    ),
    Mutant(
        "audit9-retry-execute-one-try-short",
        _RUNNER_FILE,
        "            for attempt in range(1, times + 1):\n",
        "            for attempt in range(1, times):\n",
        _T_RUNNER,
        "retry_execute(n) tries n - 1 times, and after the last failure returns None instead of raising",
    ),
    # -- the bodies built per node (2) ------------------------------------------------------
    Mutant(
        "audit9-cast-like-19-without-saturate",
        _BODIES_FILE,
        "    if opset >= 19:\n",
        "    if opset > 19:\n",
        _T_EVALUATOR,
        "CastLike-19's body ignores saturate=0 (the Cast it builds saturates)",
    ),
    Mutant(
        "audit9-depth-to-space-channels-by-blocksize",
        _BODIES_FILE,
        '        helper.make_node("Div", ["C", "BB"], ["Cd"]),\n',
        '        helper.make_node("Div", ["C", "B"], ["Cd"]),\n',
        _T_EVALUATOR,
        "DepthToSpace's body divides the channels by the block size, not its square",
    ),
    # -- the evaluator's input kinds (2) ----------------------------------------------------
    # (A first draft here, `audit9-optional-tensor-inputs-unchecked`: the line reading the
    # tensor types out of optional(tensor(...)) removed, survived and is equivalent: only
    # OptionalGetElement-15 and OptionalHasElement-15 list such types and no plain tensor
    # type, and every kind they list (every float, integer, bool, string, complex) accepts
    # any tensor, while no output shares their input's type variable. This replaces it.)
    Mutant(
        "audit9-fixed-type-inputs-unchecked",
        _EVALUATOR_FILE,
        "        allowed = constraints.get(formal.type_str, (formal.type_str,))\n",
        "        allowed = constraints.get(formal.type_str, ())\n",
        _T_EVALUATOR,
        "an input typed without a type variable (Reshape's shape: tensor(int64)) is never type-checked",
    ),
    Mutant(
        "audit9-variadic-inputs-past-the-first-unchecked",
        _EVALUATOR_FILE,
        "    for index in range(count if formals else 0):\n",
        "    for index in range(min(count, len(formals))):\n",
        _T_EVALUATOR,
        "a variadic input's second and later values are not type-checked (Sum of float and int32)",
    ),
    # -- the write-back (3) ------------------------------------------------------------------
    Mutant(
        "audit9-writeback-small-tensors-page-aligned",
        _WRITEBACK_FILE,
        "        step = options.align if size >= options.align else _SMALL_ALIGN\n",
        "        step = options.align\n",
        _T_WRITEBACK,
        "every tensor in a data file starts at a page: small tensors leave pages of zeros between them",
    ),
    Mutant(
        "audit9-writeback-fetched-inline-not-loaded",
        _WRITEBACK_FILE,
        "            inline = payload.load() if isinstance(payload, PendingBytes) else payload\n",
        "            inline = payload\n",
        _T_WRITEBACK,
        "a small tensor still to be fetched (a model by URL) kept inline gets its record, not its bytes",
    ),
    Mutant(
        "audit9-writeback-tensor-file-leading-dots-kept",
        _WRITEBACK_FILE,
        '    base = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "tensor"\n',
        '    base = re.sub(r"[^A-Za-z0-9._-]", "_", name) or "tensor"\n',
        _T_WRITEBACK,
        "a tensor named '..' or '.w' gets a data file of that name (the parent folder, a hidden file)",
    ),
    # -- safetensors (5) ---------------------------------------------------------------------
    Mutant(
        "audit9-safetensors-trailing-bytes-accepted",
        _SAFETENSORS + "format.py",
        "    if data_start + position != file_size:\n",
        "    if data_start + position > file_size:\n",
        _T_SAFETENSORS,
        "a safetensors file with bytes after its last tensor is accepted (the package refuses it)",
    ),
    Mutant(
        "audit9-safetensors-layout-narrow-first",
        _SAFETENSORS + "format.py",
        "    ordered = sorted(items, key=lambda item: -_BITS[item[1]])\n",
        "    ordered = sorted(items, key=lambda item: _BITS[item[1]])\n",
        _T_SAFETENSORS,
        "a saved safetensors file puts narrow elements first: F32 tensors no longer 4-byte aligned",
    ),
    Mutant(
        "audit9-safetensors-renamed-duplicate-loses-its-name",
        _SAFETENSORS + "names.py",
        '            base = tensor.name if tensor.name and _usable(tensor.name + ".1") else _UNNAMED\n',
        "            base = _UNNAMED\n",
        _T_SAFETENSORS,
        "a second tensor named w is saved as tensor.1, not w.1",
    ),
    Mutant(
        "audit9-safetensors-shard-full-at-exact-size",
        _SAFETENSORS + "save.py",
        "max_shard_size is not None and shards[-1].size and shards[-1].size + size > max_shard_size\n",
        "max_shard_size is not None and shards[-1].size and shards[-1].size + size >= max_shard_size\n",
        _T_SAFETENSORS,
        "tensors that fill max_shard_size exactly are split into two shards",
    ),
    Mutant(
        "audit9-attach-shape-unchecked",
        _SAFETENSORS + "attach.py",
        "    if dtype != entry.dtype or tuple(tensor.dims) != entry.shape:\n",
        "    if dtype != entry.dtype:\n",
        _T_SAFETENSORS,
        "attach_weights points a [2, 3] tensor at a [3, 2] one of the file (same bytes, other shape)",
    ),
)

# The tests written for the survivors, first in their selections.
_FIRST_USE = "tests/unit/protobuf/test_waiting_fields_first_use.py"
_CACHE_TRUST = "tests/unit/protobuf/test_code_cache_location_and_trust.py"
_INPUT_KINDS = "tests/differential/test_reference_input_kinds_variadic_and_fixed_types.py"
_WRITEBACK_EDGES = "tests/unit/files/test_writeback_alignment_fetched_and_dot_names.py"
_KILLERS: dict[str, str] = {
    "audit9-container-ne-reads-waiting-storage": _FIRST_USE,
    "audit9-waiting-contains-not-arriving": _FIRST_USE,
    "audit9-waiting-reversed-not-arriving": _FIRST_USE,
    "audit9-waiting-fields-repeated-only": "tests/unit/protobuf/test_waiting_fields_lists_fetched_bytes.py",
    "audit9-code-cache-relative-xdg-honoured": _CACHE_TRUST,
    "audit9-code-cache-group-writable-trusted": _CACHE_TRUST,
    "audit9-reuse-field-record-of-128-one-byte-length": (
        "tests/differential/test_reemit_edits_at_length_boundaries.py"
    ),
    "audit9-marks-within-end-excluded": (
        "tests/differential/test_edit_of_an_empty_last_child_of_a_long_field.py"
    ),
    "audit9-runner-tolerances-of-test-kwargs-ignored": (
        "tests/differential/test_onnx_compat_backend_runner_test_kwargs.py"
    ),
    "audit9-cast-like-19-without-saturate": "tests/differential/test_reference_cast_like_body_by_opset.py",
    "audit9-variadic-inputs-past-the-first-unchecked": _INPUT_KINDS,
    "audit9-fixed-type-inputs-unchecked": _INPUT_KINDS,
    "audit9-writeback-small-tensors-page-aligned": _WRITEBACK_EDGES,
    "audit9-writeback-fetched-inline-not-loaded": _WRITEBACK_EDGES,
    "audit9-writeback-tensor-file-leading-dots-kept": _WRITEBACK_EDGES,
}

MUTANTS: tuple[Mutant, ...] = tuple(
    dataclasses.replace(m, tests=(_KILLERS[m.name], *m.tests)) if m.name in _KILLERS else m for m in _BEFORE
)
