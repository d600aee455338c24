"""Issue 46: a fresh mutation audit of the last two sessions' code, by someone who did not
write it. 30 plausible bugs, each in a different function, none repeating an old text of
another mutant module, written from the code before its tests were read; each names the
tests of its area that *should* notice it. The kill ratio before any test was added, the
survivors and the tests that now kill them: docs/testing.md ("Fresh audit, round 6").

    python -m tests.mutation --only audit6-... --onnx-suite off
"""

from __future__ import annotations

import dataclasses

from tests.mutation.mutant import Mutant, tests_in

_SPOOL = "wirecodec/files/base/spool.py"
_STRUCTURE = "wirecodec/files/remote/structure.py"
_FIELDPATH = "wirecodec/protobuf/fieldpath.py"
_WALK = "wirecodec/protobuf/walk.py"
_LAZY = "wirecodec/protobuf/lazy.py"
_LAYOUT = "schema_dsl/layout.py"
_NEWER = "wirecodec/shape_inference/ops/newer.py"
_CONV_POOL = "wirecodec/shape_inference/ops/conv_pool.py"
_CHECK_TYPES = "wirecodec/shape_inference/_check_types.py"
_CONV = "wirecodec/reference/ops/conv.py"
_EVALUATOR = "wirecodec/reference/_evaluator.py"
_ADAPTERS = "wirecodec/version_converter/_adapters.py"
_CONVERT = "wirecodec/version_converter/_convert.py"
_HELPER = "wirecodec/onnx_compat/helper.py"
_ATTRIBUTES = "wirecodec/checker/attributes.py"
_COMMON = "wirecodec/cli/common.py"
_RUNNER = "wirecodec/cli/runner.py"
_SCOPES = "wirecodec/graphs/scopes.py"

# The selections: the tests of each area as they were before this audit (its "before").
_T_SPOOL = (
    "tests/unit/files/test_remote_spool.py",
    "tests/unit/files/test_one_way_in.py",
    "tests/unit/files/test_zip_container.py",
    "tests/unit/files/test_front_doors.py",
    "tests/unit/files/test_front_doors_odd_sources.py",
    "tests/unit/files/test_pipes.py",
)
_T_REMOTE = (
    "tests/unit/files/test_remote.py",
    "tests/unit/files/test_remote_options.py",
    "tests/unit/files/test_remote_spool.py",
    "tests/unit/files/test_stream_url.py",
    "tests/unit/files/test_one_way_in.py",
    "tests/cli/test_remote_requests.py",
    "tests/cli/test_verb_url_options.py",
)
_T_DIFF = (
    "wirecodec/protobuf/fieldpath.py",  # its doctests
    "tests/cli/test_inspect_toposort_diff_reports.py",
    "tests/cli/test_cli.py",
)
_T_WALK = (
    "tests/unit/protobuf/test_walk_peek.py",
    "tests/unit/protobuf/test_one_path_dialect.py",
    *tests_in("tests/unit/checker"),
    "tests/unit/files/test_external.py",
)
_T_LAZY = (
    "tests/unit/protobuf/test_lazy.py",
    "tests/unit/protobuf/test_views_by_negative_index_and_empty_lists.py",
    "tests/unit/protobuf/test_pending_runs.py",
    "tests/unit/protobuf/test_rarely_read.py",
    "tests/differential/test_records.py",
)
_T_LISTING = (
    *tests_in("tests/unit/schema"),
    "tests/differential/test_message_api_vs_onnx.py",
)
_T_SHAPES = (
    *tests_in("tests/unit/shape_inference"),
    "tests/differential/test_shape_inference_ops_vs_onnx.py",
)
_T_CONV_SHAPES = (
    "tests/differential/test_shape_inference_conv_pool.py",
    "tests/differential/test_shape_inference_overflow.py",
    *_T_SHAPES,
)
_T_EVALUATOR = (
    *tests_in("tests/unit/reference"),
    "tests/differential/test_reference_kernels.py",
    "tests/differential/test_reference_feeds_and_extremes.py",
    "tests/differential/test_reference_zero_d.py",
)
_T_CONVERTER = (
    *tests_in("tests/unit/version_converter"),
    "tests/differential/test_version_converter_adapters.py",
    "tests/differential/test_version_converter_defaults.py",
    "tests/differential/test_version_converter_onnx.py",
)
_T_COMPAT = (
    "tests/differential/test_onnx_compat.py",
    "tests/differential/test_onnx_compat_names.py",
    "tests/differential/test_onnx_compat_namespace.py",
    "tests/differential/test_shape_inference_compat_names.py",
    "tests/unit/onnx/test_compat_schemas_functions_drawer.py",
)
_T_CHECKER = (
    *tests_in("tests/unit/checker"),
    "tests/differential/test_type_checks_and_attribute_types.py",
    "tests/differential/test_check_verdicts.py",
)
_T_URL_OPTIONS = ("tests/cli/test_verb_url_options.py", "tests/cli/test_remote_requests.py")
_T_RUN = (
    "tests/cli/test_cli_run.py",
    "tests/cli/test_run_engines.py",
    "tests/cli/test_run_inputs_and_report.py",
    "tests/cli/test_run_unknown_dims_errors.py",
)
_T_SCOPES = (
    "tests/unit/onnx/test_scope_walk.py",
    "tests/unit/onnx/test_scope_walk_edges.py",
    "tests/differential/test_graphs_attribute_bodies.py",
    *tests_in("tests/unit/checker"),
)

_BEFORE: tuple[Mutant, ...] = (
    # -- files: the spool, the remote payloads --------------------------------------------
    Mutant(
        "audit6-spool-not-rewound",
        _SPOOL,
        "        file.flush()\n        file.seek(0)\n",
        "        file.flush()\n",
        _T_SPOOL,
        "the spooled copy of a pipe or URL is handed on positioned at its end: load_zip('-') reads nothing",
    ),
    Mutant(
        "audit6-remote-piece-end-not-shifted",
        _STRUCTURE,
        "        return read(start + lo, start + hi)",
        "        return read(start + lo, hi)",
        _T_REMOTE,
        "a piece [lo:hi) of a pending remote payload is read as [start+lo:hi) of the file: a "
        "payload written a piece at a time gets wrong or missing bytes",
    ),
    Mutant(
        "audit6-remote-shadow-fetches-claimed-payloads",
        _STRUCTURE,
        "            claimed.add(index)\n",
        "",
        _T_REMOTE,
        "load(url) fetches every large payload into the shadow though its tensor left it "
        "pending: a lazy remote load downloads the whole file",
    ),
    Mutant(
        "audit6-remote-data-folder-without-slash",
        _STRUCTURE,
        '        folder = parts.path[: parts.path.rfind("/") + 1] or "/"',
        '        folder = parts.path[: parts.path.rfind("/")] or "/"',
        _T_REMOTE,
        "a remote model's data file URL is the folder glued to the location "
        "(https://h/models + w.bin = https://h/modelsw.bin)",
    ),
    Mutant(
        "audit6-remote-location-backslash-kept",
        _STRUCTURE,
        '        return self.base + urllib.parse.quote(location.replace("\\\\", "/"))',
        "        return self.base + urllib.parse.quote(location)",
        _T_REMOTE,
        "a location written on Windows (sub\\\\w.bin) is requested as sub%5Cw.bin, not sub/w.bin",
    ),
    # -- field paths, walks, the message layout ---------------------------------------------
    Mutant(
        "audit6-fieldpath-element-dotted",
        _FIELDPATH,
        '    return f"{path}[{at}]"',
        '    return f"{path}.{at}"',
        _T_DIFF,
        "diff's paths of list elements read graph.node.3, which no path parser takes",
    ),
    Mutant(
        "audit6-walk-root-path-leading-dot",
        _WALK,
        '        prefix = f"{site.path}." if paths and site.path else ""',
        '        prefix = f"{site.path}." if paths else ""',
        _T_WALK,
        "a walk from a root with an empty path gives '.graph.node[0]' paths",
    ),
    Mutant(
        "audit6-elements-unset-list-stored",
        _LAZY,
        "    if message._has & message.__schema__.bit[name]:\n        stored: Sequence[Message]",
        "    if True:\n        stored: Sequence[Message]",
        _T_LAZY,
        "elements() of an unset repeated field reads it, storing an empty container",
    ),
    Mutant(
        "audit6-listing-in-declaration-order",
        _LAYOUT,
        "        self.listing = tuple((f, 1 << i, f.name, f.repeated) for i, f in enumerate(self.fields))",
        "        self.listing = tuple((f, 1 << i, f.name, f.repeated) for i, f in enumerate(self.declared))",
        _T_LISTING,
        "ListFields pairs each field with the bit of the field at its declaration position: "
        "a class declared out of number order lists the wrong fields",
    ),
    # -- shape inference: the newer operators ------------------------------------------------
    Mutant(
        "audit6-swiglu-symbol-over-size",
        _NEWER,
        "        merged.append(p if isinstance(p, int) else q if isinstance(q, int) else p if p is not None"
        " else q)",
        "        merged.append(p if p is not None else q)",
        ("tests/differential/test_shape_inference_swiglu.py", *_T_SHAPES),
        "SwiGLU(A: [N, 4], B: [2, 4]) infers [N, 4], not [2, 4] (a size known from B is lost)",
    ),
    Mutant(
        "audit6-linear-attention-dv-per-q-head",
        _NEWER,
        "    d_v = first(per_head(v[2], kv_heads) if v is not None else None,",
        "    d_v = first(per_head(v[2], q_heads) if v is not None else None,",
        ("tests/differential/test_shape_inference_linear_attention.py", *_T_SHAPES),
        "LinearAttention's d_v divides value's last dimension by q_num_heads, not kv_num_heads "
        "(grouped heads: a wrong output and state shape)",
    ),
    Mutant(
        "audit6-causal-conv-state-full-kernel",
        _NEWER,
        "            kernel - 1 if isinstance(kernel, int) else None,",
        "            kernel if isinstance(kernel, int) else None,",
        ("tests/differential/test_shape_inference_causal_conv.py", *_T_SHAPES),
        "CausalConvWithState's present_state is (B, C, k), not (B, C, k - 1)",
    ),
    Mutant(
        "audit6-dft-opset20-default-axis-one",
        _NEWER,
        "        given = ctx.ints(2) if ctx.has_input(2) else [-2]",
        "        given = ctx.ints(2) if ctx.has_input(2) else [1]",
        ("tests/differential/test_shape_inference_dft.py", *_T_SHAPES),
        "DFT-20 without an axis input transforms axis 1 (DFT-17's default), not -2",
    ),
    Mutant(
        "audit6-stft-frames-one-short",
        _NEWER,
        "    frames = (signal[1] - length) // step[0] + 1",
        "    frames = (signal[1] - length) // step[0]",
        ("tests/differential/test_shape_inference_signal.py", *_T_SHAPES),
        "STFT counts one frame fewer than it makes",
    ),
    Mutant(
        "audit6-window-type-from-size-input",
        _NEWER,
        '    ctx.set_tensor(0, ctx.attr_int("output_datatype", FLOAT), None if size is None else (size,))',
        "    ctx.set_tensor(0, ctx.elem(0), None if size is None else (size,))",
        ("tests/differential/test_shape_inference_signal.py", *_T_SHAPES),
        "HannWindow's output type is its size input's (int64), not output_datatype (float)",
    ),
    Mutant(
        "audit6-mel-weight-matrix-transposed",
        _NEWER,
        "(dft_length // 2 + 1, bins)",
        "(bins, dft_length // 2 + 1)",
        ("tests/differential/test_shape_inference_signal.py", *_T_SHAPES),
        "MelWeightMatrix's shape is (num_mel_bins, dft_length // 2 + 1), transposed",
    ),
    # -- shape inference: conv/pool attribute checks, arity ---------------------------------
    Mutant(
        "audit6-conv-input-rank-two-accepted",
        _CONV_POOL,
        "    if len(x) < 3:\n",
        "    if len(x) < 2:\n",
        _T_CONV_SHAPES,
        "a Conv or pool of a rank-2 input (no spatial axis) is not refused",
    ),
    Mutant(
        "audit6-conv-transpose-output-shape-unchecked",
        _CONV_POOL,
        '    given = _checked(ctx, "output_shape", n, False)',
        '    given = ctx.attr_ints("output_shape")',
        _T_CONV_SHAPES,
        "ConvTranspose's output_shape of the wrong length (or negative) is taken as the shape",
    ),
    # -- the evaluator -----------------------------------------------------------------------
    Mutant(
        "audit6-conv-result-dtype-not-restored",
        _CONV,
        "    return y.astype(x.dtype, copy=False)\n\n\ndef _correlate(",
        "    return y\n\n\ndef _correlate(",
        _T_EVALUATOR,
        "a float16 depthwise Conv returns float32 (the sum's type), not float16",
    ),
    Mutant(
        "audit6-grouped-pointwise-conv-as-matmul",
        _CONV,
        "    if group == 1 and all(k == 1 for k in kernel):",
        "    if all(k == 1 for k in kernel):",
        _T_EVALUATOR,
        "a grouped 1x1 Conv takes the group-1 matmul path: its weights do not reshape (an error) "
        "or mix every channel",
    ),
    Mutant(
        "audit6-missing-input-names-blank-optional",
        _EVALUATOR,
        "    index, name = next((i, n) for i, n in enumerate(step.inputs) if n and n not in env)",
        "    index, name = next((i, n) for i, n in enumerate(step.inputs) if n not in env)",
        _T_EVALUATOR,
        "the error for an input neither fed nor computed names a blank optional input ('') before it",
    ),
    # -- the version converter ---------------------------------------------------------------
    Mutant(
        "audit6-hardmax-last-axis-rewritten",
        _ADAPTERS,
        '            if "keep_last" not in args:\n                _set_attribute(node, "axis", -1)',
        '            _set_attribute(node, "axis", -1)',
        _T_CONVERTER,
        "Hardmax 12 -> 13 rewrites a last axis written as rank - 1 to -1 (onnx keeps it)",
    ),
    Mutant(
        "audit6-softmax-rank-ignores-value-info",
        _ADAPTERS,
        "def _rank(scope: Scope, name: str) -> int:\n"
        "    for info in (*scope.graph.input, *scope.graph.value_info, *scope.graph.output):",
        "def _rank(scope: Scope, name: str) -> int:\n"
        "    for info in (*scope.graph.input, *scope.graph.output):",
        _T_CONVERTER,
        "Softmax between 12 and 13 of an intermediate value: its rank (from value_info) unknown, "
        "a last axis gets the Flatten/Reshape rewrite or a refusal",
    ),
    Mutant(
        "audit6-no-adapter-came-in-when-going-up",
        _CONVERT,
        "                if end < start and history[0].since_version == start:",
        "                if history[0].since_version == start:",
        _T_CONVERTER,
        "an operator that came in the start opset and changed later, converted up, is refused "
        "as having 'no version at opset N or below'",
    ),
    # -- onnx_compat, the checker ------------------------------------------------------------
    Mutant(
        "audit6-make-function-str-attributes-whole",
        _HELPER,
        "        None if attributes is None else _names(attributes),",
        "        attributes,",
        _T_COMPAT,
        "onnx_compat.helper.make_function(attributes='ab') is not read as onnx reads it "
        "(one character per name)",
    ),
    Mutant(
        "audit6-checker-empty-list-attribute-has-no-value",
        _ATTRIBUTES,
        "    if expected not in _REPEATED and expected not in present:",
        "    if expected not in present:",
        _T_CHECKER,
        "a list attribute carrying another field is also reported as missing its (empty) list",
    ),
    # -- the command line ----------------------------------------------------------------------
    Mutant(
        "audit6-url-retries-not-passed",
        _COMMON,
        '_REMOTE_OPTIONS: Final = ("timeout", "retries", "allow_full_download")',
        '_REMOTE_OPTIONS: Final = ("timeout", "allow_full_download")',
        _T_URL_OPTIONS,
        "--retries N is parsed but a URL is read with the default retries",
    ),
    Mutant(
        "audit6-run-feeds-initializers",
        _RUNNER,
        "    return [_declared(v.name, v.type) for v in model.graph.input if v.name not in initializers]",
        "    return [_declared(v.name, v.type) for v in model.graph.input]",
        _T_RUN,
        "run makes random feeds for graph inputs that are initializers, overriding the weights",
    ),
    Mutant(
        "audit6-run-opposite-infinities-same",
        _RUNNER,
        "        same_inf = np.isinf(x) & (x == y)",
        "        same_inf = np.isinf(x) & np.isinf(y)",
        _T_RUN,
        "run's comparison counts +inf against -inf as no difference",
    ),
    # -- graph scopes --------------------------------------------------------------------------
    Mutant(
        "audit6-given-names-skip-sparse-initializers",
        _SCOPES,
        "    names.update(sparse.values.name for sparse in graph.sparse_initializer)\n",
        "",
        _T_SCOPES,
        "a body reading a sparse initializer of its own graph counts it as read from outside",
    ),
)

# The tests written for this audit's survivors (after the before-run): each runs first in its
# mutant's selection (with -x a kill stops there), the area's older tests after it.
_KILLERS: dict[str, str] = {
    "audit6-spool-not-rewound": "tests/unit/files/test_spool.py",
    "audit6-remote-location-backslash-kept": "tests/unit/files/test_remote_data_locations.py",
    "audit6-elements-unset-list-stored": "tests/unit/protobuf/test_elements_store_nothing.py",
    "audit6-linear-attention-dv-per-q-head": "tests/differential/test_shape_inference_grouped_query_heads.py",
    "audit6-conv-input-rank-two-accepted": (
        "tests/differential/test_shape_inference_input_rank_below_three.py"
    ),
    "audit6-conv-result-dtype-not-restored": "tests/differential/test_reference_conv_keeps_its_dtype.py",
    "audit6-missing-input-names-blank-optional": "tests/unit/reference/test_missing_input_errors.py",
    "audit6-softmax-rank-ignores-value-info": (
        "tests/differential/test_version_converter_softmax_rank_from_value_info.py"
    ),
    "audit6-checker-empty-list-attribute-has-no-value": (
        "tests/differential/test_check_empty_list_attributes.py"
    ),
    "audit6-run-feeds-initializers": "tests/cli/test_run_feeds_and_infinities.py",
    "audit6-run-opposite-infinities-same": "tests/cli/test_run_feeds_and_infinities.py",
    "audit6-given-names-skip-sparse-initializers": "tests/unit/onnx/test_scope_reads_sparse_initializers.py",
}

MUTANTS: tuple[Mutant, ...] = tuple(
    dataclasses.replace(m, tests=(_KILLERS[m.name], *m.tests)) if m.name in _KILLERS else m for m in _BEFORE
)
