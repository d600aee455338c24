"""Mutants of issue 42's round ``compat6``: the helper builders made in place (``adopt`` and
``build``: checked values stored once, the caller's messages still copied), shape inference's
types built whole, and the refusals and shapes aligned with onnx's tests (Scan's counts,
Concat of one input, Slice's axes/steps of unknown shape, an unknown element type)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_REFUSALS = ("tests/differential/test_shape_inference_refusals_vs_onnx.py",)
_BUILDERS = ("tests/differential/test_onnx_compat_helper_builders.py",)

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "compat6-text-surrogates-unchecked",
        "wirecodec/_helper/args.py",
        '        if not value.isascii():\n            try:\n                value.encode("utf-8")',
        '        if False:\n            try:\n                value.encode("utf-8")',
        _BUILDERS,
        "a builder stores a string with a lone surrogate (the assignment it replaced refused it, "
        "as protobuf does); it would fail only when the model is written",
    ),
    Mutant(
        "compat6-attribute-message-shared",
        "wirecodec/_helper/attributes.py",
        "                fields[field] = copy.copy(value)",
        "                fields[field] = value",
        _BUILDERS,
        "make_attribute keeps the caller's tensor/graph itself: a later change by the caller "
        "reaches the attribute (onnx copies it)",
    ),
    Mutant(
        "compat6-attribute-messages-shared",
        "wirecodec/_helper/attributes.py",
        "        return {field: [copy.copy(m) for m in as_messages(items, cls, where)], "
        '"type": int(attr_type)}',
        '        return {field: as_messages(items, cls, where), "type": int(attr_type)}',
        _BUILDERS,
        "make_attribute keeps the caller's list of tensors itself (onnx copies each)",
    ),
    Mutant(
        "compat6-make-tensor-unconverted-items",
        "wirecodec/_helper/tensor.py",
        "    adopt(tensor, info.field, _field_items(info, flat))",
        "    adopt(tensor, info.field, flat.tolist())",
        _BUILDERS,
        "make_tensor stores numpy's items as they are: float16 values as floats in int32_data, "
        "complex numbers unsplit (the unchecked store trusts _field_items' forms)",
    ),
    Mutant(
        "compat6-scan-inputs-unchecked",
        "wirecodec/shape_inference/ops/control_flow.py",
        "    if n_scan > ctx.n_inputs:",
        "    if n_scan > ctx.n_inputs + 1:",
        _REFUSALS,
        "Scan-9+ takes num_scan_inputs one above its inputs (a negative count of state variables)",
    ),
    Mutant(
        "compat6-scan-states-unchecked",
        "wirecodec/shape_inference/ops/control_flow.py",
        "    if n_state > ctx.n_outputs:",
        "    if n_state > ctx.n_outputs + 1:",
        _REFUSALS,
        "Scan takes one loop state variable more than it has outputs",
    ),
    Mutant(
        "compat6-concat-one-input-any-opset",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "    if len(shapes) == 1 and ctx.opset >= 11:",
        "    if len(shapes) == 1:",
        _REFUSALS,
        "Concat-4 of one input keeps its symbol on the axis (onnx's Concat-4 sums: a fresh symbol)",
    ),
    Mutant(
        "compat6-slice-present-by-name",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "        given_axes, given_steps = ctx.shape(3) is not None, ctx.shape(4) is not None",
        "        given_axes, given_steps = ctx.has_input(3), ctx.has_input(4)",
        _REFUSALS,
        "Slice's axes/steps input of unknown shape counts as given (onnx: as absent, the default)",
    ),
    Mutant(
        "compat6-unknown-element-type-passes",
        "wirecodec/shape_inference/_context.py",
        '        if not t.elem:\n            raise InferenceError(f"Element type of input {i} unknown")',
        '        if t.elem is None:\n            raise InferenceError(f"Element type of input {i} unknown")',
        _REFUSALS,
        "an input whose element type is unknown gives an output of unknown element type "
        "(onnx refuses: Element type of input 0 unknown)",
    ),
)
MUTANTS += (
    Mutant(
        "compat6-instance-name-qualified",
        "schema_dsl/message.py",
        '            return type.__getattribute__(type(self), "__name__")',
        '            return type.__getattribute__(type(self), "__qualname__")',
        ("tests/differential/test_onnx_compat_names.py",),
        "a nested message's instance answers TensorShapeProto.Dimension (upb's: Dimension)",
    ),
)
_REPLACE = ("tests/differential/test_onnx_compat_tools_replace_constants.py",)
MUTANTS += (
    Mutant(
        "compat6-replace-ir3-inputs-at-4",
        "wirecodec/onnx_compat/tools/replace_constants.py",
        "        if ir_version is not None and ir_version <= 3:",
        "        if ir_version is not None and ir_version <= 4:",
        _REPLACE,
        "replace_constants declares the new shape initializers as graph inputs at IR 4 too",
    ),
    Mutant(
        "compat6-replace-graphs-flag-per-body",
        "wirecodec/onnx_compat/tools/replace_constants.py",
        "                changed = changed or body is not graph",
        "                changed = body is not graph",
        _REPLACE,
        "a graphs attribute is rebuilt only when its last body changed (onnx: when any did)",
    ),
    Mutant(
        "compat6-replace-opset-domain-unset",
        "wirecodec/onnx_compat/tools/replace_constants.py",
        "        entry.domain = opset.domain  # set even when empty, as onnx does",
        "        if opset.domain:\n            entry.domain = opset.domain",
        _REPLACE,
        "the default domain's empty name is left unset (onnx sets it: its bytes say so)",
    ),
)
MUTANTS += (
    Mutant(
        "compat6-stored-data-mismatch-ignored",
        "wirecodec/shape_inference/_context.py",
        "            self._values[i] = tensor_values(tensor, refuse_bad_data=True)",
        "            self._values[i] = tensor_values(tensor)",
        _REFUSALS,
        "a stored input whose data does not fit its dims has no known value (onnx refuses it: "
        "Data size mismatch)",
    ),
    Mutant(
        "compat6-spare-raw-bytes-refused",
        "wirecodec/shape_inference/_context.py",
        "    return len(tensor.raw_data) * 8 > count * info.bits",
        "    return len(tensor.raw_data) * 8 < count * info.bits",
        _REFUSALS,
        "fewer raw bytes than the dims need pass as a tensor of unknown value (onnx refuses them)",
    ),
    Mutant(
        "compat6-constant-of-shape-any-ints",
        "wirecodec/shape_inference/ops/casts.py",
        "    if stored is not None and stored != INT64:  # (onnx reads the shape as int64 data only)",
        "    if stored is not None and stored not in (INT64, 6):"
        "  # (onnx reads the shape as int64 data only)",
        _REFUSALS,
        "ConstantOfShape reads an int32 shape tensor (onnx refuses: its data must be int64)",
    ),
    Mutant(
        "compat6-one-hot-indices-any-opset",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "    stored = ctx.value(0) if ctx.opset < 11 else None",
        "    stored = ctx.value(0)",
        _REFUSALS,
        "OneHot refuses negative stored indices from opset 11 too (they count from the end there)",
    ),
)
MUTANTS += (
    Mutant(
        "compat6-split-sizes-on-open-axis",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "        lengths = [*sizes] if isinstance(d, int) else [None] * n",
        "        lengths = [*sizes]",
        _REFUSALS,
        "Split gives its stored sizes to the outputs on an axis of unknown size (onnx: unknown)",
    ),
    Mutant(
        "compat6-quantize-output-dtype-unchecked",
        "wirecodec/shape_inference/ops/casts.py",
        "    if elem and wanted and elem != wanted:",
        "    if elem and wanted and elem != wanted and False:",
        _REFUSALS,
        "QuantizeLinear takes an output_dtype other than its zero point's type (onnx refuses)",
    ),
)
MUTANTS += (
    Mutant(
        "compat6-recurrent-rank-unchecked",
        "wirecodec/shape_inference/ops/misc.py",
        "    if x is not None and len(x) != 3:",
        "    if x is not None and len(x) > 3:",
        _REFUSALS,
        "RNN/GRU/LSTM take an input X of rank 2 (onnx refuses every rank but 3)",
    ),
    Mutant(
        "compat6-batch-norm-ranks-from-15",
        "wirecodec/shape_inference/ops/normalization.py",
        "    if ctx.opset >= 14:  # (onnx checks the ranks from BatchNormalization-14 on)",
        "    if ctx.opset >= 15:  # (onnx checks the ranks from BatchNormalization-14 on)",
        _REFUSALS,
        "BatchNormalization-14 takes statistics of rank 2 (onnx refuses from 14 on)",
    ),
    Mutant(
        "compat6-roi-align-count-from-rois-only",
        "wirecodec/shape_inference/ops/conv_pool.py",
        "    if not isinstance(n, int) and indices and isinstance(indices[0], int):",
        "    if n is None and indices and isinstance(indices[0], int):",
        _REFUSALS,
        "RoiAlign keeps the rois' symbol where batch_indices gives the count (onnx: the count)",
    ),
)
MUTANTS += (
    Mutant(
        "compat6-nll-target-rank-unchecked",
        "wirecodec/shape_inference/ops/misc.py",
        "        if len(x) < 2 or len(target) != len(x) - 1:",
        "        if len(x) < 2:",
        _REFUSALS,
        "NegativeLogLikelihoodLoss takes a target of the input's rank (onnx: one less)",
    ),
    Mutant(
        "compat6-nll-none-shape-from-target",
        "wirecodec/shape_inference/ops/misc.py",
        "        ctx.set_tensor(0, elem, (x[0], *x[2:]))  # the input's sizes (N, d1, ...), as onnx",
        "        ctx.set_tensor(0, elem, ctx.shape(1))  # the input's sizes (N, d1, ...), as onnx",
        _REFUSALS,
        "NegativeLogLikelihoodLoss without reduction gives the target's symbols (onnx: the input's)",
    ),
)
