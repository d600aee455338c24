"""Mutants of the evaluator's cheaper first build and the CastMap refusal (branch eval9,
issue 43): raw_data read by array_from_raw when the presence bits say it is the one value
field, a few listed floats made by one np.array, nodes held by their place (not their view),
the schema data parsed line by line on each operator's first lookup, and CastMap SPARSE
refusing a negative key as onnxruntime does."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_FIRST = "tests/unit/reference/test_first_build.py"
_LINES = "tests/unit/defs/test_schema_lines.py"
_MAPS = "tests/differential/test_reference_ml_one_score_and_sparse_maps.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "eval9-raw-only-ignores-a-second-value-field",
        "wirecodec/reference/_values.py",
        '    if not has & bits.bit["raw_data"] or has & _mask(bits, _VALUE_FIELDS):',
        '    if not has & bits.bit["raw_data"]:',
        (f"{_FIRST}::test_raw_data_beside_a_second_value_field_is_refused_by_to_array",),
        "a tensor with raw_data and int64_data runs with the raw bytes instead of being refused",
    ),
    Mutant(
        "eval9-raw-only-a-read-only-view",
        "wirecodec/reference/_values.py",
        "tensor.dims, copy=True, name=tensor.name)",
        "tensor.dims, copy=False, name=tensor.name)",
        (f"{_FIRST}::test_a_raw_tensor_is_a_writable_copy_of_the_buffer",),
        "an initializer is a read-only view of the model's bytes, not the evaluator's own array",
    ),
    Mutant(
        "eval9-listed-floats-take-a-nan",
        "wirecodec/reference/_values.py",
        " or not all(abs(v) <= _FLOAT32_MAX or abs(v) == math.inf for v in values):",
        ":",
        (f"{_FIRST}::test_a_nan_payload_among_listed_floats_keeps_its_bits",),
        "a signalling NaN among a Constant's few floats is quieted by numpy (its payload bits change)",
    ),
    Mutant(
        "eval9-listed-floats-dims-unchecked",
        "wirecodec/reference/_values.py",
        "    if len(shape) > _SHORT or any(d < 0 for d in shape) or math.prod(shape) != len(values):",
        "    if len(shape) > _SHORT or any(d < 0 for d in shape):",
        (f"{_FIRST}::test_listed_floats_that_do_not_fill_the_dims_are_refused",),
        "float_data that does not fill the dims fails in numpy's reshape, not with to_array's error",
    ),
    Mutant(
        "eval9-steps-hold-their-node-views",
        "wirecodec/reference/_evaluator.py",
        "        self._node = node if nodes is None else None",
        "        self._node = node",
        (f"{_FIRST}::test_a_built_evaluator_holds_no_node_views",),
        "every compiled step keeps its node's view alive: thousands of objects the collector walks",
    ),
    Mutant(
        "eval9-step-node-at-the-wrong-place",
        "wirecodec/reference/_evaluator.py",
        'join(path, "node", index), opsets, outer_attrs, nodes, index)',
        'join(path, "node", index), opsets, outer_attrs, nodes, 0)',
        (f"{_FIRST}::test_a_steps_node_is_the_node_at_its_place",),
        "rt_nodes_ (and an operator reading its node) sees the graph's first node for every step",
    ),
    Mutant(
        "eval9-schema-line-key-swapped",
        "wirecodec/defs/_registry.py",
        "    return (domain, name), int(version)",
        "    return (name, domain), int(version)",
        (f"{_LINES}::test_the_lines_give_the_registry_the_whole_parse_gives",),
        "a schema read by its line is filed under (name, domain): get_schema finds nothing",
    ),
    Mutant(
        "eval9-schema-line-escape-taken",
        "wirecodec/defs/_registry.py",
        "or any(c in name + domain for c in '\"\\\\'):",
        "or False:",
        (f"{_LINES}::test_a_line_not_as_the_generator_writes_it_is_not_read_by_its_start",),
        "a line whose name holds an escaped quote is keyed by its raw text, not parsed",
    ),
    Mutant(
        "eval9-cast-map-negative-key-dropped",
        "wirecodec/reference/ops/ml/maps.py",
        "            raise _negative_key(ctx, items[0][0])",
        "            items = [(k, v) for k, v in items if k >= 0]",
        (f"{_MAPS}::test_cast_map_sparse_refuses_a_negative_key_as_onnxruntime",),
        "CastMap SPARSE drops a negative key's value where onnxruntime refuses the map",
    ),
    Mutant(
        "eval9-opener-imports-tempfile-eagerly",
        "wirecodec/files/opener.py",
        "import pathlib\nimport stat\nimport sys\nfrom collections.abc import Iterator\n",
        "import pathlib\nimport stat\nimport sys\nimport tempfile\nfrom collections.abc import Iterator\n",
        (f"{_FIRST}::test_a_first_build_from_a_path_imports_no_module_it_does_not_use",),
        "every load of a path imports tempfile (shutil, random, bz2, lzma) for a pipe's spool",
    ),
    Mutant(
        "eval9-schema-file-through-importlib-resources",
        "wirecodec/defs/_registry.py",
        "    try:\n        with open(os.path.join(",
        "    try:\n        raise OSError\n        with open(os.path.join(",
        (f"{_FIRST}::test_a_first_build_from_a_path_imports_no_module_it_does_not_use",),
        "the first schema lookup reads the data file through importlib.resources (and zipfile)",
    ),
    Mutant(
        "eval9-conv-imports-string",
        "wirecodec/reference/ops/conv.py",
        '_LETTERS = "abcdefghijklmnopqrstuvwxyz"',
        "import string\n\n_LETTERS = string.ascii_lowercase",
        (f"{_FIRST}::test_a_first_build_from_a_path_imports_no_module_it_does_not_use",),
        "a model with a Conv imports the string module for its einsum letters",
    ),
    Mutant(
        "eval9-stft-window-in-float64",
        "wirecodec/reference/ops/signal.py",
        "        framed = framed * window.reshape(1, 1, -1, 1)",
        "        framed = framed.astype(np.float64) * window.astype(np.float64).reshape(1, 1, -1, 1)",
        ("tests/differential/test_reference_stft_window_in_input_type.py",),
        "STFT weights its frames in float64: up to 3e-6 away from onnx's evaluator and onnx's test",
    ),
    Mutant(
        "opener-imports-the-zip-layer-for-any-file",
        "wirecodec/files/base/source.py",
        "    first = head_of(source, 4)\n    return is_zip_head(first)\n",
        "    from wirecodec.files.zip.container import is_zip\n\n    return is_zip(source)\n",
        ("tests/perf/test_import_time.py",),
        "opening a model that is not a zip container imports the zip layer (zlib, its readers)",
    ),
)
