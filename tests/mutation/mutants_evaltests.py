"""Mutants of the evaluator's onnx-test surface (branch evaltests, issue 43): what onnx's own
evaluator tests read of onnx.reference (errors, rt_nodes_, OpRunExpand, annotations) and the
operator fixes they found. Each is killed by tests/unit/reference/test_onnx_evaluator_surface.py."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_SURFACE = "tests/unit/reference/test_onnx_evaluator_surface.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "evaltests-custom-result-not-a-tuple-accepted",
        "wirecodec/reference/_evaluator.py",
        "        result = instance.run(*args)\n        if not isinstance(result, tuple):",
        "        result = instance.run(*args)\n        if False:",
        (f"{_SURFACE}::test_error_types_onnx_code_catches",),
        "a custom operator's _run returning a bare array is taken (onnx raises TypeError)",
    ),
    Mutant(
        "evaltests-symbolic-dims-not-shared",
        "wirecodec/reference/_annotations.py",
        "bound = bindings.setdefault(dim, int(size))",
        "bound = int(size)",
        (f"{_SURFACE}::test_shape_annotations_are_checked_only_when_asked",),
        "check_shape_annotations never notices a symbolic dimension taking two sizes",
    ),
    Mutant(
        "evaltests-declared-dim-value-unchecked",
        "wirecodec/reference/_annotations.py",
        "        if isinstance(dim, int):\n            if dim != size:",
        "        if isinstance(dim, int):\n            if False:",
        (f"{_SURFACE}::test_shape_annotation_checks_value_rank_and_type",),
        "check_shape_annotations lets a value through whose size differs from a declared dim_value",
    ),
    Mutant(
        "evaltests-op-run-expand-ignored",
        "wirecodec/reference/_evaluator.py",
        'expand = custom is not None and getattr(custom, "expand_", False)',
        "expand = False",
        (f"{_SURFACE}::test_op_run_expand_runs_the_schema_body",),
        "an OpRunExpand class in new_ops is run as a custom operator instead of the schema's body",
    ),
    Mutant(
        "evaltests-function-attributes-lost-in-subgraphs",
        "wirecodec/reference/_evaluator.py",
        'join(join(self.path, "attribute", index), "g"), self.opsets, self._outer',
        'join(join(self.path, "attribute", index), "g"), self.opsets, {}',
        (f"{_SURFACE}::test_a_function_attribute_reaches_a_subgraph_inside_the_function",),
        "a node inside an If of a function body cannot read the calling node's attributes",
    ),
    Mutant(
        "evaltests-nonzero-scalar-true-empty",
        "wirecodec/reference/ops/shape.py",
        "return np.zeros((0, int(bool(x))), dtype=np.int64)",
        "return np.zeros((0, 0), dtype=np.int64)",
        (f"{_SURFACE}::test_operator_fixes",),
        "NonZero of a true 0-d tensor finds nothing (onnx: one column of no rows)",
    ),
    Mutant(
        "evaltests-cast-int4-rounds",
        "wirecodec/reference/ops/misc.py",
        "values = np.trunc(x.astype(np.float64))",
        "values = np.rint(x.astype(np.float64))",
        (f"{_SURFACE}::test_operator_fixes",),
        "Cast of a float to int4/int2 rounds to nearest instead of going toward zero",
    ),
    Mutant(
        "evaltests-noop-empty-axes-returns-reduction",
        "wirecodec/reference/ops/reductions.py",
        '() if ctx.attrs.get("noop_with_empty_axes", 0) else None',
        "None",
        (f"{_SURFACE}::test_operator_fixes",),
        "noop_with_empty_axes reduces over every axis instead of each element alone",
    ),
    Mutant(
        "evaltests-rt-nodes-named-by-model-opset",
        "wirecodec/reference/_evaluator.py",
        "since = schema.since_version if schema is not None else ctx.version",
        "since = ctx.version",
        (f"{_SURFACE}::test_rt_nodes_are_op_run_views_named_by_schema_version",),
        "rt_nodes_ classes are named by the model's opset, not the schema version in effect",
    ),
    Mutant(
        "evaltests-im2col-columns-transposed",
        "wirecodec/reference/ops/conv.py",
        "order = (1, *range(2 + nd, 2 + 2 * nd), 0, *range(2, 2 + nd))",
        "order = (1, *range(2, 2 + nd), 0, *range(2 + nd, 2 + 2 * nd))",
        (f"{_SURFACE}::test_im2col_columns_times_the_flat_weight_is_the_convolution",),
        "Im2Col orders a column's rows by output position instead of kernel offset",
    ),
    Mutant(
        "evaltests-random-seed-ignored",
        "wirecodec/reference/ops/random.py",
        "return np.random.RandomState(int(seed))",
        "return np.random",
        (f"{_SURFACE}::test_random_operators_draw_in_range_with_their_seed",),
        "a seeded random operator draws from the global generator (two runs differ)",
    ),
)
