"""Mutants of the reference evaluator (wirecodec/reference, issue 43): plausible bugs, each
with the tests that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_UNIT = "tests/unit/reference/test_evaluator.py"
_BACKEND = "tests/differential/test_reference_backend.py::test_backend_node"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "evaluator-subgraph-sees-no-outer-scope",
        "wirecodec/reference/_evaluator.py",
        "env = {n: self.env[n] for n in compiled.free if n in self.env}",
        "env: dict[str, Any] = {}",
        (f"{_UNIT}::test_if_branches_read_the_outer_scope",),
        "an If/Loop/Scan body cannot read names of the enclosing graph",
    ),
    Mutant(
        "evaluator-schema-defaults-ignored",
        "wirecodec/reference/_evaluator.py",
        "        for name, value in defaults:\n            if name not in attrs:",
        "        for name, value in defaults:\n            if False:",
        (f"{_UNIT}::test_schema_defaults_fill_missing_attributes",),
        "an attribute the node leaves out does not take its schema default",
    ),
    Mutant(
        "evaluator-no-type-check",
        "wirecodec/reference/_evaluator.py",
        "if kind is not None and kind not in listed:",
        "if False:",
        (f"{_UNIT}::test_a_type_the_operator_does_not_take",),
        "an input of a type the operator does not take runs anyway (or fails without naming it)",
    ),
    Mutant(
        "evaluator-subgraph-path-loses-attribute",
        "wirecodec/reference/_evaluator.py",
        'join(join(self.path, "attribute", index), "g")',
        'join(self.path, "g")',
        (f"{_UNIT}::test_errors_inside_a_subgraph_carry_the_whole_path",),
        "an error inside a subgraph names a path the path parser cannot resolve",
    ),
    Mutant(
        "evaluator-loop-state-not-carried",
        "wirecodec/reference/ops/control.py",
        "values = list(out[1 : 1 + n_state])",
        "values = list(state)",
        (f"{_UNIT}::test_loop_carries_state_and_stacks_scan_outputs",),
        "Loop feeds every iteration the initial state instead of the previous iteration's",
    ),
    Mutant(
        "evaluator-softmax-last-axis-only",
        "wirecodec/reference/ops/math.py",
        "return e / np.sum(e, axis=axis, keepdims=True)",
        "return e / np.sum(e, axis=-1, keepdims=True)",
        (f"{_BACKEND}[test_softmax_axis_0]",),
        "Softmax normalises over the last axis whatever its axis attribute says",
    ),
    Mutant(
        "evaluator-gemm-ignores-transb",
        "wirecodec/reference/ops/math.py",
        'bt = b.T if ctx.attrs.get("transB", 0) else b',
        "bt = b",
        (f"{_BACKEND}[test_gemm_transposeB]",),
        "Gemm ignores transB",
    ),
    Mutant(
        "evaluator-slice-negative-step-stops-at-zero",
        "wirecodec/reference/ops/shape.py",
        "end = max(-1, min(dim - 1, end))",
        "end = max(0, min(dim - 1, end))",
        (f"{_UNIT}::test_slice_with_negative_steps_as_numpy",),
        "a Slice with a negative step never reaches index 0",
    ),
)
