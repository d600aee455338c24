"""Issue 46: a fresh mutation audit of the last two sessions' code (round 10), by someone who
did not write it. 30 plausible bugs, each in a different place, none repeating an old text
of another mutant module, written from the code before any test was read: equality and
copies (schema_dsl), the packed varint runs, safetensors names, zip entry names, the source
switch, the checker (required fields, opsets, attributes, names), shape inference's recent
rules, the opset converter's adapters, the reference evaluator (CastMap, STFT, values, feeds),
``inspect`` and ``onnx_compat.defs``. Each names the tests of its area that *should* notice
it (never tests/onnx_suite). The kill ratio before any test was added, the survivors and
the sweeps that now kill them: docs/testing.md ("a fresh audit of round 10").

    python -m tests.mutation --onnx-suite off $(grep -o '"audit10-[a-z0-9-]*"' \
        tests/mutation/mutants_audit10.py | sort -u | tr -d '"' | sed 's/^/--only /')
"""

from __future__ import annotations

import dataclasses

from tests.mutation.mutant import Mutant, tests_in

# The selections: the tests a maintainer would run for each area before this audit.
_D = "tests/differential/"
_T_MESSAGES = (
    "tests/unit/schema/test_message_api.py",
    "tests/unit/schema/test_message_api_gaps.py",
    _D + "test_equality_and_copies_vs_onnx.py",
    _D + "test_equality_by_field_kind_vs_onnx.py",
    _D + "test_copy_from_takes_state_vs_onnx.py",
    _D + "test_message_api_vs_onnx.py",
)
_T_VARINTS = (
    "tests/unit/protobuf/test_codec.py",
    "tests/unit/protobuf/test_golden_bytes.py",
    "tests/unit/schema/test_assignment_bounds.py",
    _D + "test_packed_varint_runs.py",
    _D + "test_packed_enum_unknown_values_vs_upb.py",
)
_T_SAFETENSORS = (
    "tests/unit/files/test_safetensors.py",
    _D + "test_safetensors_header_vs_package.py",
    "tests/unit/files/test_integrity_in_library.py",
)
_T_ZIP = (
    "tests/unit/files/test_zip_container.py",
    "tests/unit/files/test_container_check.py",
    "tests/unit/files/test_zip_hostile.py",
)
_T_SOURCE = (
    "tests/unit/files/test_source_switch.py",
    "tests/unit/files/test_front_doors.py",
    "tests/unit/files/test_front_doors_odd_sources.py",
    "tests/unit/files/test_file_objects.py",
    "tests/unit/files/test_one_way_in.py",
)
_T_CHECKER = (
    *tests_in("tests/unit/checker"),
    _D + "test_check_verdicts.py",
    _D + "test_checker_opset_edges.py",
    _D + "test_check_lists_and_graphs.py",
    _D + "test_check_empty_list_attributes.py",
    _D + "test_check_attribute_references_in_functions.py",
    _D + "test_check_sparse_initializer_paths.py",
    _D + "test_check_bodies_reading_outer_initializers.py",
)
_T_SHAPES = (
    *tests_in("tests/unit/shape_inference"),
    _D + "test_shape_inference_vs_onnx.py",
    _D + "test_shape_inference_ops_vs_onnx.py",
    _D + "test_shape_inference_refusals_vs_onnx.py",
    _D + "test_shape_inference_suite_leftovers_vs_onnx.py",
    _D + "test_shape_inference_edges.py",
)
_T_CONVERTER = (
    *tests_in("tests/unit/version_converter"),
    _D + "test_version_converter_adapters.py",
    _D + "test_version_converter_onnx.py",
    _D + "test_version_converter_defaults.py",
    _D + "test_version_converter_completeness.py",
)
_T_EVALUATOR = (
    *tests_in("tests/unit/reference"),
    _D + "test_reference_kernels.py",
    _D + "test_reference_feeds_and_extremes.py",
    _D + "test_reference_zero_d.py",
)
_T_ML = (
    _D + "test_reference_ml_nodes.py",
    _D + "test_reference_ml_boundaries_and_defaults.py",
    _D + "test_reference_ml_one_score_and_sparse_maps.py",
)
_T_SIGNAL = (
    _D + "test_reference_stft_window_in_input_type.py",
    _D + "test_reference_kernels.py",
    _D + "test_reference_backend.py",
)
_T_INSPECT = (
    "tests/cli/test_cli.py",
    "tests/cli/test_inspect_counts_constants_of_either_default_domain_name.py",
    "tests/cli/test_inspect_reads_nodes_once.py",
    "tests/cli/test_inspect_toposort_diff_reports.py",
)
_T_DEFS = (
    *tests_in("tests/unit/defs"),
    "tests/unit/onnx/test_compat_schemas_functions_drawer.py",
    "tests/unit/onnx/test_compat_history_aliases_and_labels.py",
    _D + "test_onnx_compat.py",
    _D + "test_onnx_compat_registered_schemas.py",
)

_BEFORE: tuple[Mutant, ...] = (
    # -- equality and copies (4) --------------------------------------------------------------
    Mutant(
        "audit10-equality-singular-float-by-value",
        "schema_dsl/equality.py",
        '            test = f"bits((a.{name},), {kind is Kind.FLOAT}) '
        '!= bits((b.{name},), {kind is Kind.FLOAT})"\n',
        '            test = f"a.{name} != b.{name}"\n',
        _T_MESSAGES,
        "a singular float or double compares by value: a NaN attribute f is unequal to its copy, 0.0 == -0.0",
    ),
    Mutant(
        "audit10-equality-repeated-floats-by-value",
        "schema_dsl/equality.py",
        '                test = f"bits(x, {kind is Kind.FLOAT}) != bits(y, {kind is Kind.FLOAT})"\n',
        '                test = "x != y"\n',
        _T_MESSAGES,
        "repeated floats compare by value: float_data [nan] != its copy, [0.0] == [-0.0]",
    ),
    Mutant(
        "audit10-deep-copy-keeps-views",
        "schema_dsl/copying.py",
        "    if isinstance(value, memoryview):\n        return value.tobytes()\n",
        "    if isinstance(value, memoryview):\n        return value\n",
        _T_MESSAGES,
        "copy.deepcopy of a decoded tensor keeps raw_data as a view of the source buffer, not bytes",
    ),
    Mutant(
        "audit10-lazy-copy-shares-sub-messages",
        "schema_dsl/copying.py",
        "        elif _is_message(value):\n            value = copy_message(value)\n",
        "        elif _is_message(value):\n            pass\n",
        _T_MESSAGES,
        "a copy of a message with a field still waiting shares its singular sub-messages with the original",
    ),
    # -- packed varint runs (1) ---------------------------------------------------------------
    Mutant(
        "audit10-varint-run-128-one-byte",
        "wirecodec/protobuf/runtime.py",
        "            while v >= 128:\n",
        "            while v > 128:\n",
        _T_VARINTS,
        "a packed int32/int64/uint64 value of exactly 128 is written as the single byte 0x80",
    ),
    # -- safetensors names (2) ----------------------------------------------------------------
    Mutant(
        "audit10-safetensors-suffix-checked-once",
        "wirecodec/files/safetensors/names.py",
        '            while f"{base}.{n}" in taken:\n',
        '            if f"{base}.{n}" in taken:\n',
        _T_SAFETENSORS,
        "a renamed tensor skips one taken suffix only: w.1 and w.2 both kept -> a second w.2",
    ),
    Mutant(
        "audit10-safetensors-metadata-name-kept",
        "wirecodec/files/safetensors/names.py",
        "    if not name or name == METADATA_KEY:\n",
        "    if not name:\n",
        _T_SAFETENSORS,
        "a tensor named __metadata__ keeps its name: the header's reserved key holds a tensor",
    ),
    # -- zip entry names (1) ------------------------------------------------------------------
    Mutant(
        "audit10-zip-entry-names-case-sensitive",
        "wirecodec/files/zip/layout.py",
        "        while candidate.lower() in self._used:\n",
        "        while candidate in self._used:\n",
        _T_ZIP,
        "entry names unique only with case: conv_weight and Conv_weight both "
        "written (one file when unpacked on macOS/Windows)",
    ),
    # -- the source switch (1) ----------------------------------------------------------------
    Mutant(
        "audit10-mmap-classified-as-file",
        "wirecodec/files/base/source.py",
        '    if isinstance(source, _BUFFERS):\n        return "buffer"\n    '
        'if hasattr(source, "read"):\n        return "file"\n',
        '    if hasattr(source, "read"):\n        return "file"\n    if '
        'isinstance(source, _BUFFERS):\n        return "buffer"\n',
        _T_SOURCE,
        "an mmap (it has read()) is classified as a file object, not a buffer",
    ),
    # -- the checker (5) ----------------------------------------------------------------------
    Mutant(
        "audit10-checker-sparse-main-io-shape-unchecked",
        "wirecodec/checker/required.py",
        '    elif which in ("tensor_type", "sparse_tensor_type") and not '
        'getattr(type_proto, which).HasField("shape"):\n',
        '    elif which == "tensor_type" and not getattr(type_proto, which).HasField("shape"):\n',
        _T_CHECKER,
        "a main-graph input of sparse tensor type without a shape passes (onnx.checker refuses it)",
    ),
    Mutant(
        "audit10-checker-opset-import-required-from-4",
        "wirecodec/checker/opsets.py",
        "    if ir is not None and ir >= 3 and not model.opset_import:\n",
        "    if ir is not None and ir > 3 and not model.opset_import:\n",
        _T_CHECKER,
        "a model of IR version 3 without opset_import passes (onnx: IR >= 3 must import)",
    ),
    Mutant(
        "audit10-checker-optional-without-elem-type",
        "wirecodec/checker/required.py",
        '    elif which in ("sequence_type", "optional_type"):\n',
        '    elif which == "sequence_type":\n',
        _T_CHECKER,
        "an optional type without elem_type passes (onnx.checker refuses it)",
    ),
    Mutant(
        "audit10-checker-reference-with-one-value-passes",
        "wirecodec/checker/attributes.py",
        "        if present:\n            report.add(\n                join(path, present[0]),\n",
        "        if len(present) > 1:\n            report.add(\n                join(path, present[0]),\n",
        _T_CHECKER,
        "a function body's attribute with ref_attr_name and one value (i=3) passes (onnx refuses it)",
    ),
    Mutant(
        "audit10-checker-initializer-input-rule-at-ir4",
        "wirecodec/checker/names.py",
        "            if main and self.ir_version is not None and self.ir_version < 4:\n",
        "            if main and self.ir_version is not None and self.ir_version <= 4:\n",
        _T_CHECKER,
        "an IR 4 model whose initializer is no graph input is refused (the rule ends at IR 3)",
    ),
    # -- shape inference (4) ------------------------------------------------------------------
    Mutant(
        "audit10-mvn-13-keeps-shape-without-axes",
        "wirecodec/shape_inference/ops/elementwise.py",
        "    if ctx.opset < 13:\n        ctx.set(0, TensorType(t.elem, t.shape))\n",
        "    if ctx.opset <= 13:\n        ctx.set(0, TensorType(t.elem, t.shape))\n",
        _T_SHAPES,
        "MeanVarianceNormalization in an opset-13 model keeps the "
        "shape without axes (onnx: element type only)",
    ),
    Mutant(
        "audit10-nll-scalar-weight-accepted",
        "wirecodec/shape_inference/ops/misc.py",
        "    if weight is not None and len(weight) != 1:  # (its size is not checked, as in onnx)\n",
        "    if weight is not None and len(weight) > 1:  # (its size is not checked, as in onnx)\n",
        _T_SHAPES,
        "NegativeLogLikelihoodLoss takes a weight of rank 0 (onnx: rank 1)",
    ),
    Mutant(
        "audit10-attention-present-with-nonpad-accepted",
        "wirecodec/shape_inference/ops/misc.py",
        "    cached = ctx.has_input(4) or ctx.has_input(5) or ctx.has_output(1) or ctx.has_output(2)\n",
        "    cached = ctx.has_input(4) or ctx.has_input(5)\n",
        _T_SHAPES,
        "Attention-25 with nonpad_kv_seqlen and present outputs (no past) is accepted (onnx refuses)",
    ),
    Mutant(
        "audit10-dequantize-output-dtype-ignored",
        "wirecodec/shape_inference/ops/casts.py",
        '    elem = ctx.attr_int("output_dtype", 0) or ctx.elem(1)\n',
        "    elem = ctx.elem(1)\n",
        _T_SHAPES,
        "DequantizeLinear-23 with output_dtype gives the scale's element type",
    ),
    # -- the opset converter (3) --------------------------------------------------------------
    Mutant(
        "audit10-gemm-trans-b-zero-taken-as-set",
        "wirecodec/version_converter/_adapters.py",
        "    columns = b[0] if trans_b is not None and trans_b.i == 1 else b[1]\n",
        "    columns = b[0] if trans_b is not None else b[1]\n",
        _T_CONVERTER,
        "Gemm 6<->7 with an explicit transB=0 reads N from B's first axis",
    ),
    Mutant(
        "audit10-broadcast-axis-at-the-end-refused",
        "wirecodec/version_converter/_adapters.py",
        "        if not 0 <= at <= len(first) - len(second):\n",
        "        if not 0 <= at < len(first) - len(second):\n",
        _T_CONVERTER,
        "Add 6->7 with broadcast=1 and an axis placing B at A's end (or same rank, axis 0) is refused",
    ),
    Mutant(
        "audit10-broadcast-backward-ones-refused",
        "wirecodec/version_converter/_adapters.py",
        "    if axis < 0 or any(b != first[axis + i] and b != 1 for i, b in "
        "enumerate(second)):\n        raise scope.fail(\n",
        "    if axis < 0 or any(b != first[axis + i] for i, b in "
        "enumerate(second)):\n        raise scope.fail(\n",
        _T_CONVERTER,
        "Add 7->6 of [2, 3] and [1, 3] (or [3, 1]) is refused as not broadcastable",
    ),
    # -- the reference evaluator (5) ----------------------------------------------------------
    Mutant(
        "audit10-castmap-sparse-key-at-max-map",
        "wirecodec/reference/ops/ml/maps.py",
        "            if k < size:  # a key past max_map is left out, as onnxruntime does\n",
        "            if k <= size:  # a key past max_map is left out, as onnxruntime does\n",
        _T_ML,
        "CastMap SPARSE with a key equal to max_map fails (IndexError) instead of leaving it out",
    ),
    # (A first draft here, `audit10-stft-onesided-default-off`: STFT's ``onesided`` read with a
    # default of 0, survived and is equivalent: the evaluator fills every attribute the node
    # leaves out with its schema default (1) before the kernel runs, so the fallback of
    # ``attrs.get`` is never read. This replaces it, in the same function.)
    Mutant(
        "audit10-stft-frames-stepped-by-length",
        "wirecodec/reference/ops/signal.py",
        "    starts = np.arange(frames)[:, None] * step + np.arange(length)[None, :]\n",
        "    starts = np.arange(frames)[:, None] * length + np.arange(length)[None, :]\n",
        _T_SIGNAL,
        "STFT takes a frame every frame_length samples, not every frame_step (overlapping frames lost)",
    ),
    Mutant(
        "audit10-waiting-floats-view-of-the-model",
        "wirecodec/reference/_values.py",
        "    return flat.astype(np.float32).reshape(shape)  # a copy, in the host's byte order\n",
        "    return flat.reshape(shape)  # a copy, in the host's byte order\n",
        _T_EVALUATOR,
        "a Constant's waiting float_data is a read-only view of the model's buffer, not a writable array",
    ),
    Mutant(
        "audit10-sparse-linear-indices-as-rows",
        "wirecodec/reference/_values.py",
        "        dense.reshape(-1)[indices] = values\n",
        "        dense[indices] = values\n",
        _T_EVALUATOR,
        "a sparse tensor of rank 2 with linear (1-D) indices fills whole rows",
    ),
    Mutant(
        "audit10-feeds-do-not-override-initializers",
        "wirecodec/reference/_evaluator.py",
        "        if feeds:\n            env.update(feeds)\n",
        "        if feeds:\n            env.update({k: v for k, v in "
        "feeds.items() if k not in self.constants})\n",
        _T_EVALUATOR,
        "a fed value named as an initializer is ignored (onnx.reference's feeds win)",
    ),
    # -- inspect (2) --------------------------------------------------------------------------
    Mutant(
        "audit10-inspect-ai-onnx-domain-named",
        "wirecodec/cli/inspect.py",
        '    return f"{domain}::{node.op_type}" if domain and domain != "ai.onnx" else node.op_type\n',
        '    return f"{domain}::{node.op_type}" if domain else node.op_type\n',
        _T_INSPECT,
        "nodes of domain 'ai.onnx' are counted as ai.onnx::Conv apart from Conv",
    ),
    Mutant(
        "audit10-inspect-sparse-indices-in-dtype-bytes",
        "wirecodec/cli/inspect.py",
        "        buckets = (total,) if indices else (entry, total)\n",
        "        buckets = (entry, total)\n",
        _T_INSPECT,
        "a sparse initializer's int64 indices add their bytes to the int64 weights' row",
    ),
    # -- onnx_compat.defs (2) -----------------------------------------------------------------
    Mutant(
        "audit10-get-schema-version-zero-is-newest",
        "wirecodec/onnx_compat/defs.py",
        "    version = max_inclusive_version if max_inclusive_version is not None else 1 << 30\n",
        "    version = max_inclusive_version or 1 << 30\n",
        _T_DEFS,
        "get_schema('Add', 0) gives the newest Add (onnx: SchemaError)",
    ),
    Mutant(
        "audit10-deregister-leaves-history",
        "wirecodec/onnx_compat/defs.py",
        "    _CONVERTED.pop((domain, op_type, int(max_inclusive_version)), None)\n    _HISTORY.clear()\n",
        "    _CONVERTED.pop((domain, op_type, int(max_inclusive_version)), None)\n",
        _T_DEFS,
        "after deregister_schema, get_all_schemas_with_history still lists the schema",
    ),
)

# The sweeps written after the audit, one per area with a survivor, first in the selections
# of that area's survivors (``_BEFORE`` keeps the selections as audited).
_COPIES = "tests/differential/test_copy_independence_sweep_vs_onnx.py"
_NAMES = "tests/unit/files/test_safetensors_names_sweep.py"
_SOURCES = "tests/unit/files/test_source_kinds_sweep.py"
_CHECKS = "tests/differential/test_checker_ir_rules_sweep_vs_onnx.py"
_INFERENCE = "tests/differential/test_shape_inference_recent_rules_sweep_vs_onnx.py"
_CONVERSIONS = "tests/differential/test_version_converter_broadcast_sweep_vs_onnx.py"
_VALUES = "tests/differential/test_reference_values_and_feeds_sweep.py"
_COUNTS = "tests/cli/test_inspect_counts_sweep_vs_onnx.py"
_LOOKUPS = "tests/unit/onnx/test_compat_defs_lookup_sweep.py"
_KILLERS: dict[str, str] = {
    "audit10-lazy-copy-shares-sub-messages": _COPIES,
    "audit10-safetensors-suffix-checked-once": _NAMES,
    "audit10-mmap-classified-as-file": _SOURCES,
    "audit10-checker-sparse-main-io-shape-unchecked": _CHECKS,
    "audit10-checker-optional-without-elem-type": _CHECKS,
    "audit10-checker-reference-with-one-value-passes": _CHECKS,
    "audit10-checker-initializer-input-rule-at-ir4": _CHECKS,
    "audit10-nll-scalar-weight-accepted": _INFERENCE,
    "audit10-dequantize-output-dtype-ignored": _INFERENCE,
    "audit10-gemm-trans-b-zero-taken-as-set": _CONVERSIONS,
    "audit10-broadcast-axis-at-the-end-refused": _CONVERSIONS,
    "audit10-stft-frames-stepped-by-length": _VALUES,
    "audit10-sparse-linear-indices-as-rows": _VALUES,
    "audit10-inspect-ai-onnx-domain-named": _COUNTS,
    "audit10-inspect-sparse-indices-in-dtype-bytes": _COUNTS,
    "audit10-get-schema-version-zero-is-newest": _LOOKUPS,
}

MUTANTS: tuple[Mutant, ...] = tuple(
    dataclasses.replace(m, tests=(_KILLERS[m.name], *m.tests)) if m.name in _KILLERS else m for m in _BEFORE
)
