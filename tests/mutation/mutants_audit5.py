"""Issue 46, item 3: a fresh mutation audit of this round's code, by someone who did not
write it. 30 plausible bugs, each in a different function, none repeating an old text of
another mutant module, written from the code before its tests were read; each names the
tests of its area that *should* notice it. The kill ratio before any test was added, the
survivors and the tests that now kill them: docs/testing.md ("Fresh audit, round 5").

    python -m tests.mutation --only audit5-... --onnx-suite off --jobs 1
"""

from __future__ import annotations

from tests.mutation.mutant import Mutant, tests_in

_WRITEBACK = "wirecodec/files/writeback.py"
_SOURCE = "wirecodec/files/base/source.py"
_ZIPBUF = "wirecodec/files/zip/buffers.py"
_GRAPHS = "wirecodec/graphs/scopes.py"
_CHECK_TYPES = "wirecodec/shape_inference/_check_types.py"
_ADAPTERS = "wirecodec/version_converter/_adapters.py"
_EVALUATOR = "wirecodec/reference/_evaluator.py"

# Each selection: the test file written for this audit first (with -x a kill stops there),
# then the tests of the area that were there before it (the audit's "before" selection).
_T_WRITEBACK = (
    "tests/unit/files/test_writeback_names_and_places.py",
    "tests/unit/files/test_save_safety.py",
    "tests/unit/files/test_writeback_in_place.py",
    "tests/unit/files/test_save_options.py",
    "tests/unit/files/test_moved_tensors.py",
    "tests/unit/files/test_external.py",
    "tests/unit/files/test_convert.py",
)
_T_DOORS = (
    "tests/unit/files/test_front_doors_odd_sources.py",
    "tests/unit/files/test_source_switch.py",
    "tests/unit/files/test_front_doors.py",
    "tests/unit/files/test_one_way_in.py",
    "tests/unit/files/test_file_objects.py",
    "tests/unit/files/test_zip_container.py",
    "tests/unit/files/test_zip_hostile.py",
    "tests/unit/files/test_remote_spool.py",
)
_T_SCOPES = (
    "tests/unit/onnx/test_scope_walk_edges.py",
    "tests/unit/onnx/test_scope_walk.py",
    "tests/unit/protobuf/test_one_path_dialect.py",
    "tests/differential/test_graphs_attribute_bodies.py",
    *tests_in("tests/unit/checker"),
)
_T_CHECKER = (
    "tests/differential/test_type_checks_and_attribute_types.py",
    *tests_in("tests/unit/checker"),
    *tests_in("tests/unit/shape_inference"),
    "tests/differential/test_check_verdicts.py",
    "tests/differential/test_checker_schemas.py",
)
_T_CONVERTER = (
    "tests/differential/test_version_converter_defaults.py",
    *tests_in("tests/unit/version_converter"),
    "tests/differential/test_version_converter_adapters.py",
    "tests/differential/test_version_converter_onnx.py",
)
_T_EVALUATOR = (
    "tests/differential/test_reference_feeds_and_extremes.py",
    *tests_in("tests/unit/reference"),
    "tests/differential/test_reference_zero_d.py",
)
_T_COMPAT = (
    "tests/unit/onnx/test_compat_history_aliases_and_labels.py",
    "tests/unit/onnx/test_compat_schemas_functions_drawer.py",
    "tests/differential/test_onnx_compat.py",
    "tests/differential/test_onnx_compat_names.py",
    "tests/differential/test_onnx_compat_namespace.py",
)
_T_MESSAGES = (
    "tests/unit/protobuf/test_views_by_negative_index_and_empty_lists.py",
    "tests/unit/protobuf/test_lazy.py",
    "tests/differential/test_records.py",
    "tests/differential/test_message_api_vs_onnx.py",
    "tests/unit/files/test_front_doors.py",
)

MUTANTS: tuple[Mutant, ...] = (
    # -- the write-back ---------------------------------------------------------------------
    # (first written: _reachable's commonpath as a string prefix; equivalent, since
    # check_location refuses the '../out2/w.bin' it then gives: replaced before any run counted)
    Mutant(
        "audit5-writeback-fresh-name-like-a-shard",
        _WRITEBACK,
        '        name = f"{target.name}.data" if n == 0 else f"{target.name}.{n}.data"',
        '        name = f"{target.name}.data" if n == 0 else f"{target.name}.data.{n}"',
        _T_WRITEBACK,
        "when <model>.data is taken the fresh name is <model>.data.1, which is the name of a "
        "shard of <model>.data",
    ),
    Mutant(
        "audit5-writeback-tensor-file-names-case-sensitive",
        _WRITEBACK,
        "    while candidate.lower() in used:",
        "    while candidate in used:",
        _T_WRITEBACK,
        "all_tensors_to_one_file=False: tensors 'W' and 'w' get files 'W' and 'w', one file on "
        "a case-insensitive file system (macOS, Windows)",
    ),
    Mutant(
        "audit5-writeback-shard-full-at-exact-size",
        _WRITEBACK,
        "            and current.size + size > options.max_shard_size",
        "            and current.size + size >= options.max_shard_size",
        _T_WRITEBACK,
        "max_shard_size: a tensor that fills a shard exactly starts a new shard",
    ),
    Mutant(
        "audit5-writeback-kept-reference-location-not-rewritten",
        _WRITEBACK,
        "                if not uses_external_data(tensor) or location != parse_ref(tensor).location:",
        "                if not uses_external_data(tensor):",
        _T_WRITEBACK,
        "a reference kept in place but written from another folder keeps its old location "
        "(sub/m.onnx -> m.onnx: 'w.bin' instead of 'sub/w.bin'): the saved model names a "
        "missing file",
    ),
    # (first written: in_use keeps the path as given, not its realpath; equivalent, since
    # every data file's path reaching it is resolved already: replaced after the first run)
    Mutant(
        "audit5-writeback-sparse-values-moved",
        _WRITEBACK,
        "            sparse=False,\n            functions=options.convert_attribute,",
        "            sparse=True,\n            functions=options.convert_attribute,",
        _T_WRITEBACK,
        "save(external_data=True) moves a sparse initializer's values out too (onnx leaves "
        "them inline, and onnx.load then cannot read them back as onnx's own save would)",
    ),
    # -- the front doors --------------------------------------------------------------------
    Mutant(
        "audit5-empty-zip-not-a-zip",
        _SOURCE,
        '_ZIP_SIGNATURES: Final = (b"PK\\x03\\x04", b"PK\\x05\\x06")',
        '_ZIP_SIGNATURES: Final = (b"PK\\x03\\x04",)',
        _T_DOORS,
        "an empty zip archive (only its end record) is not seen as a container",
    ),
    Mutant(
        "audit5-classify-file-needs-readinto",
        _SOURCE,
        '    if hasattr(source, "read"):',
        '    if hasattr(source, "readinto"):',
        _T_DOORS,
        "a file-like object with read() only (a user's wrapper, a urllib response subset) is "
        "refused with a TypeError",
    ),
    Mutant(
        "audit5-load-zip-url-drops-remote-options",
        _ZIPBUF,
        "    file = open_source(source, remote or RemoteOptions())",
        "    file = open_source(source, RemoteOptions())",
        _T_DOORS,
        "load_zip of a URL ignores remote= (headers, timeouts): a private container cannot be read",
    ),
    Mutant(
        "audit5-zip-copy-not-rewound",
        _ZIPBUF,
        "        mapped = mmap.mmap(-1, info.st_size)\n        file.seek(0)\n",
        "        mapped = mmap.mmap(-1, info.st_size)\n",
        _T_DOORS,
        "load_zip(lazy=False) of a file object not at its start copies from where it stands",
    ),
    Mutant(
        "audit5-zip-buffer-of-wide-items",
        _ZIPBUF,
        '        return view.cast("B") if view.format != "B" or view.ndim != 1 else view.toreadonly()',
        "        return view.toreadonly()",
        _T_DOORS,
        "load_zip of a buffer whose items are not bytes (an array('I'), a 2-D view) indexes items, not bytes",
    ),
    # -- the one scope walk ---------------------------------------------------------------
    Mutant(
        "audit5-definitions-last-producer",
        _GRAPHS,
        '                defined.setdefault(name, join(join(path, "node", i), "output", j))',
        '                defined[name] = join(join(path, "node", i), "output", j)',
        _T_SCOPES,
        "a name produced twice is said to be defined by its last producer, not its first",
    ),
    Mutant(
        "audit5-in-graphs-not-inherited",
        _GRAPHS,
        '            inherited_graphs or not body_path.endswith(".g"),',
        '            not body_path.endswith(".g"),',
        _T_SCOPES,
        "a g body inside a graphs element is not marked in_graphs (type inference enters it)",
    ),
    Mutant(
        "audit5-visible-iter-includes-holder-outputs",
        _GRAPHS,
        "        mine = [*self._given, *(name for name, (at, _) in self._own.items() if at < self._limit)]",
        "        mine = [*self._given, *(name for name, (at, _) in self._own.items() if at <= self._limit)]",
        _T_SCOPES,
        "iterating the names visible to a body lists its holder's own outputs",
    ),
    Mutant(
        "audit5-fieldpath-negative-index-refused",
        "wirecodec/protobuf/fieldpath.py",
        '_STEP: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|#[1-9][0-9]*)(?:\\[(-?\\d+)\\])?")',
        '_STEP: Final = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|#[1-9][0-9]*)(?:\\[(\\d+)\\])?")',
        _T_SCOPES,
        "a field path with a negative index (graph.node[-1]) is refused by parse",
    ),
    # -- the checker's verdicts -----------------------------------------------------------
    Mutant(
        "audit5-canonical-type-keeps-spaces",
        _CHECK_TYPES,
        '    return outer(text.replace(" ", ""))',
        "    return outer(text)",
        _T_CHECKER,
        "a schema type string with spaces (ZipMap's 'seq(map(int64, float))') allows nothing",
    ),
    Mutant(
        "audit5-heterogeneous-variadic-bound",
        _CHECK_TYPES,
        "            if not param.is_homogeneous:\n                continue\n",
        "",
        _T_CHECKER,
        "a heterogeneous variadic (Loop's carried values V) is held to one type: a Loop "
        "carrying a float and an int64 is refused",
    ),
    Mutant(
        "audit5-unknown-element-type-unchecked",
        _CHECK_TYPES,
        '        return f"unknown{elem}"',
        "        return None",
        _T_CHECKER,
        "an element type number no schema knows (99) is not checked against the schema",
    ),
    Mutant(
        "audit5-untyped-attribute-without-ir-version",
        "wirecodec/checker/attributes.py",
        "        if ir is None or ir >= 2:",
        "        if ir is not None and ir >= 2:",
        _T_CHECKER,
        "an attribute without a type in a model without ir_version is not reported",
    ),
    # -- the version converter's adapters -------------------------------------------------
    Mutant(
        "audit5-gemm-transa-ignored",
        _ADAPTERS,
        "    rows = a[1] if trans_a is not None and trans_a.i == 1 else a[0]",
        "    rows = a[0]",
        _T_CONVERTER,
        "Gemm 6<->7: M read from A's first dimension even with transA=1",
    ),
    Mutant(
        "audit5-clip-min-default-zero",
        _ADAPTERS,
        "            created, index = _insert_constant(scope, index, float_constant(_LOWEST_FLOAT))",
        "            created, index = _insert_constant(scope, index, float_constant(0.0))",
        _T_CONVERTER,
        "Clip 10->11 with only max: min becomes 0 instead of the lowest float (a ReLU6 of negatives)",
    ),
    Mutant(
        "audit5-softmax-12-default-axis-last",
        _ADAPTERS,
        "        axis = held.i if held is not None else 1",
        "        axis = held.i if held is not None else -1",
        _T_CONVERTER,
        "Softmax 12->13 without an axis: opset 12's default 1 taken as the last axis",
    ),
    Mutant(
        "audit5-dropout-ratio-default-zero",
        _ADAPTERS,
        "    value = ratio.f if ratio is not None else 0.5",
        "    value = ratio.f if ratio is not None else 0.0",
        _T_CONVERTER,
        "Dropout 11->12 without ratio: the input made is 0.0, not the default 0.5",
    ),
    # -- the evaluator --------------------------------------------------------------------
    Mutant(
        "audit5-initializer-overrides-fed-input",
        _EVALUATOR,
        "        env.update(self.constants)\n"
        "        for name, value in zip(self.inputs, inputs, strict=False):\n"
        "            if name:\n"
        "                env[name] = value\n",
        "        for name, value in zip(self.inputs, inputs, strict=False):\n"
        "            if name:\n"
        "                env[name] = value\n"
        "        env.update(self.constants)\n",
        _T_EVALUATOR,
        "an input with an initializer (a default) is evaluated with the initializer even when fed",
    ),
    Mutant(
        "audit5-numpy-scalar-output",
        _EVALUATOR,
        "                        value = np.asarray(value)",
        "                        pass",
        _T_EVALUATOR,
        "a 0-d result numpy gives as a scalar (np.float32) is returned as one, not an array",
    ),
    Mutant(
        "audit5-logsumexp-of-all-minus-inf",
        "wirecodec/reference/ops/reductions.py",
        "    m = np.where(np.isfinite(m), m, 0)\n",
        "",
        _T_EVALUATOR,
        "ReduceLogSumExp over a row of -inf gives nan (onnx: -inf)",
    ),
    # -- onnx_compat's client-facing names ------------------------------------------------
    Mutant(
        "audit5-register-schema-history-stale",
        "wirecodec/onnx_compat/defs.py",
        "    _CONVERTED[(schema.domain, schema.name, schema.since_version)] = schema\n    _HISTORY.clear()\n",
        "    _CONVERTED[(schema.domain, schema.name, schema.since_version)] = schema\n",
        _T_COMPAT,
        "a schema registered after get_all_schemas_with_history() was called is missing from it",
    ),
    Mutant(
        "audit5-function-opset-alias-ignored",
        "wirecodec/onnx_compat/shape_inference.py",
        '    version = versions.get(domain, versions.get("ai.onnx" if domain == "" else domain))',
        "    version = versions.get(domain)",
        _T_COMPAT,
        "infer_function_output_types of a function importing 'ai.onnx' (not '') does not check "
        "its body's required attributes",
    ),
    Mutant(
        "audit5-net-drawer-unnamed-op-slash",
        "wirecodec/onnx_compat/tools/net_drawer.py",
        '        head = f"{op.name}/{op.op_type}" if op.name else op.op_type',
        '        head = f"{op.name}/{op.op_type}"',
        _T_COMPAT,
        "net_drawer labels an unnamed operator '/Relu (op#0)' (onnx: 'Relu (op#0)')",
    ),
    # -- the message model ----------------------------------------------------------------
    Mutant(
        "audit5-empty-list-counts-as-a-field",
        "wirecodec/protobuf/lazy.py",
        "    return any(not spec.repeated or len(value) for spec, value in stored_fields(message))",
        "    return any(True for spec, value in stored_fields(message))",
        _T_MESSAGES,
        "a model whose only stored field is an empty list (read, never written) counts as "
        "holding a field: open() of such bytes is not refused as 'not an ONNX model'",
    ),
    Mutant(
        "audit5-view-negative-index-position",
        "schema_dsl/views.py",
        "        return self._view(item, index if index >= 0 else index + _llen(self))",
        "        return self._view(item, index)",
        _T_MESSAGES,
        "a records view read by a negative index (graph.node[-1]) is pinned at a negative "
        "position: a later write through it is lost or lands on the wrong element",
    ),
)
