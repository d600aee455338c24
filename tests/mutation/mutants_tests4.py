"""Issue 46 (branch tests4): bugs one could plant in what this round wrote or fixed while
writing the survivors' tests: the compat save's threshold, Resize's aspect-ratio policies
and ``mutate``'s depth bound. (The harness's own rules, a skipped killer and the onnx-suite
selection, live in tests/ where no mutant may be planted: tests/unit/mutation/test_harness.py
tests them.)"""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_OPS_VS_ONNX = "tests/differential/test_shape_inference_ops_vs_onnx.py"
_COMPAT = "tests/differential/test_onnx_compat_namespace.py"
_MUTATE = "tests/unit/fuzz/test_mutate.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "resize-aspect-policy-swapped",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "    scale = min(ratios) if not_larger else max(ratios)",
        "    scale = max(ratios) if not_larger else min(ratios)",
        (f"{_OPS_VS_ONNX}::test_op_equal",),
        "Resize's not_larger takes the largest ratio of sizes to dims (and not_smaller the smallest)",
    ),
    Mutant(
        "resize-aspect-rounds-down",
        "wirecodec/shape_inference/ops/shape_ops.py",
        "        dims[a] = math.floor(scale * d + 0.5) if isinstance(d, int) else None",
        "        dims[a] = math.floor(scale * d) if isinstance(d, int) else None",
        (f"{_OPS_VS_ONNX}::test_op_equal",),
        "Resize under an aspect-ratio policy rounds the output dims down, not to the nearest",
    ),
    Mutant(
        "mutate-depth-unbounded",
        "wirecodec/fuzz/mutation.py",
        "    if well_formed:\n        _cut_below(records, DEFAULT_MAX_DEPTH)",
        "    if not well_formed:\n        _cut_below(records, DEFAULT_MAX_DEPTH)",
        (f"{_MUTATE}::test_the_seeds_that_nested_too_deep_no_longer_do",),
        "mutate(..., well_formed=True) returns models nested past the parsers' limit (seeds 24, 26)",
    ),
    Mutant(
        "mutate-depth-cut-one-level-late",
        "wirecodec/fuzz/mutation.py",
        "        if depth >= limit:",
        "        if depth > limit:",
        (_MUTATE,),
        "mutate's depth cut keeps sub-messages one level past the limit (101 deep: refused)",
    ),
)
