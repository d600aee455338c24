"""Mutants of the lead's changes of round 10 (issue 48): a list in front of a repeated
field, and a records build's one-value fast path."""

from __future__ import annotations

from tests.mutation.mutant import Mutant, tests_in

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "list-plus-field-copies-storage",
        "schema_dsl/containers.py",
        "        if isinstance(other, list):\n            return [*other, *self]",
        "        if False:\n            return [*other, *self]",
        ("tests/differential/test_list_plus_field.py",),
        "[] + a records field copies its storage: sealed records and waiting offsets, not elements",
    ),
    Mutant(
        "records-build-one-value-from-the-wrong-place",
        "wirecodec/protobuf/records.py",
        'w(2, "if n == 1:\\n    _lapp(c, r[i + 1])\\nelse:")',
        'w(2, "if n == 1:\\n    _lapp(c, r[i])\\nelse:")',
        ("tests/differential/test_records.py", "tests/differential/test_aliasing.py"),
        "a records view of a node with one input reads its count as the input",
    ),
)
MUTANTS += (
    Mutant(
        "compat-external-save-replaces-a-shared-file",
        "wirecodec/onnx_compat/_external_save.py",
        "            kept = held(where)\n",
        "            kept = None\n",
        (
            "tests/differential/test_onnx_compat_external_save.py",
            "tests/unit/files/test_writers_x_shared_data_file.py",
        ),
        "onnx_compat.save_model replaces a data file other models point into (onnx appends)",
    ),
)
MUTANTS += (
    Mutant(
        "copy-from-a-waiting-field-keeps-the-default",
        "schema_dsl/layout.py",
        "                    _odel(message, spec.name)  # the default clear_slots put there",
        "                    pass",
        ("tests/differential/test_copy_independence_sweep_vs_onnx.py",),
        "CopyFrom of a tensor whose raw_data waits reads b'' where the original says its bytes passed",
    ),
)
MUTANTS += (
    Mutant(
        "opener-container-past-a-prefix-read-from-the-start",
        "wirecodec/files/opener.py",
        "        if _regular_size(given) is None:  # past a prefix: the archive starts here,"
        " as a model would",
        "        if False:",
        ("tests/unit/files/test_source_kinds_sweep.py", "tests/unit/files/test_front_doors_odd_sources.py"),
        "a container in an open file past a prefix is read from the file's start: the directory 'lies'",
    ),
)
_OUTPUTS = "tests/differential/test_reference_outputs_are_the_callers.py"
MUTANTS += (
    Mutant(
        "reference-constant-value-writable",
        "wirecodec/reference/ops/shape.py",
        "            if type(value) is np.ndarray and value.flags.writeable:",
        "            if False:",
        (_OUTPUTS, *tests_in("tests/unit/reference")),
        "a Constant's output is its cached array, writable: a caller's write changes the next run",
    ),
    Mutant(
        "reference-identity-shares",
        "wirecodec/reference/ops/shape.py",
        "    return x.copy() if type(x) is np.ndarray else x",
        "    return x",
        (_OUTPUTS, *tests_in("tests/unit/reference")),
        "Identity hands back its input: a write into the output changes a constant or the feed",
    ),
    Mutant(
        "reference-initializer-writable",
        "wirecodec/reference/_evaluator.py",
        "    if type(value) is np.ndarray and value.flags.writeable:\n        value = value.view()",
        "    if False:\n        value = value.view()",
        (_OUTPUTS, *tests_in("tests/unit/reference")),
        "an initializer output is the evaluator's array, writable: a write changes every later run",
    ),
    Mutant(
        "reference-initializer-frozen-in-place",
        "wirecodec/reference/_evaluator.py",
        "        value = value.view()\n        value.flags.writeable = False",
        "        value.flags.writeable = False",
        (_OUTPUTS,),
        "a ModelContainer's array, the caller's own, is made read-only by building an evaluator",
    ),
)
MUTANTS += (
    Mutant(
        "opener-container-past-a-prefix-mapped-from-the-start",
        "wirecodec/files/opener.py",
        "    rest = memoryview(map_read_only(file.fileno(), info.st_size, name))[start:]",
        "    rest = memoryview(map_read_only(file.fileno(), info.st_size, name))",
        ("tests/unit/files/test_source_kinds_sweep.py", "tests/unit/files/test_front_doors_odd_sources.py"),
        "a container past a prefix is mapped from the file's start: its directory 'lies'",
    ),
)
