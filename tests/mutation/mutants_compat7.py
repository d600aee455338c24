"""Mutants of issue 42's round ``compat7``: onnx's backend test runner (``BackendTest``:
filtering, output comparison, archive extraction) and the last shape-inference cases aligned
with onnx's tests (Attention-25's refusals and cache outputs, the type a bound type variable
gives under ``check_type``, MeanVarianceNormalization's shape, a sparse Constant, recursive
local functions, a call with too few outputs, a function's attributes in its bodies and
one copy of its body per call)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_RUNNER = ("tests/differential/test_onnx_compat_backend_runner.py",)
_LEFTOVERS = ("tests/differential/test_shape_inference_suite_leftovers_vs_onnx.py",)
_RUNNER_FILE = "wirecodec/onnx_compat/backend/test/runner/__init__.py"
_ENGINE = "wirecodec/shape_inference/_engine.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "compat7-runner-include-all",
        _RUNNER_FILE,
        "if self._include_patterns and not any(p.search(name) for p in self._include_patterns):",
        "if self._include_patterns and not all(p.search(name) for p in self._include_patterns):",
        _RUNNER,
        "a test must match every include pattern to run (onnx runs it when it matches any)",
    ),
    Mutant(
        "compat7-runner-exclude-reason",
        _RUNNER_FILE,
        "item.func = unittest.skip(f'matched exclude pattern \"{exclude.pattern}\"')(item.func)",
        'item.func = unittest.skip(f"matched exclude pattern {exclude.pattern}")(item.func)',
        _RUNNER,
        "an excluded test's skip reason drops the quotes onnx's runner puts around the pattern",
    ),
    Mutant(
        "compat7-runner-dtype-unchecked",
        _RUNNER_FILE,
        "            np.testing.assert_equal(output.dtype, expected.dtype)\n",
        "",
        _RUNNER,
        "outputs of another dtype with close values pass the comparison (onnx's fails them)",
    ),
    Mutant(
        "compat7-runner-extract-unchecked",
        _RUNNER_FILE,
        "if os.path.commonpath([root, target]) != root or member.issym() or member.islnk():",
        "if member.issym() or member.islnk():",
        _RUNNER,
        "a downloaded archive's member named ../x is written outside the models folder",
    ),
    Mutant(
        "compat7-attention-window",
        "wirecodec/shape_inference/ops/misc.py",
        "        if size < -1:\n",
        "        if size < -2:\n",
        _LEFTOVERS,
        "Attention-25 accepts a window size of -2 (onnx: -1 or nonnegative)",
    ),
    Mutant(
        "compat7-attention-half-present",
        "wirecodec/shape_inference/ops/misc.py",
        "if ctx.has_input(4) and ctx.has_input(5) and ctx.has_output(1) and ctx.has_output(2):",
        "if ctx.has_input(4) and ctx.has_input(5) and ctx.has_output(1):",
        _LEFTOVERS,
        "a present key asked without a present value gets a type and the QK product the total "
        "length (onnx infers neither then)",
    ),
    Mutant(
        "compat7-bound-type-not-filled",
        "wirecodec/shape_inference/_check_types.py",
        "            elem = bound.get(param.type_str)\n",
        "            elem = None\n",
        _LEFTOVERS,
        "check_type leaves an output untyped where an input bound its type variable (onnx "
        "gives it that type)",
    ),
    Mutant(
        "compat7-mvn-axis-range",
        "wirecodec/shape_inference/ops/elementwise.py",
        "all(-rank <= a < rank for a in axes)",
        "all(-rank <= a <= rank for a in axes)",
        _LEFTOVERS,
        "MeanVarianceNormalization keeps the shape for an axis equal to the rank (onnx's body fails)",
    ),
    Mutant(
        "compat7-sparse-constant-dims",
        "wirecodec/shape_inference/ops/casts.py",
        "ctx.set_tensor(0, sp.values.data_type, tuple(int(d) for d in sp.dims))",
        "ctx.set_tensor(0, sp.values.data_type, tuple(int(d) for d in sp.values.dims))",
        _LEFTOVERS,
        "a sparse Constant gets the shape of its stored values, not of the tensor it stands for",
    ),
    Mutant(
        "compat7-recursion-not-in-bodies",
        _ENGINE,
        "        for body in bodies(node):\n            yield from _calls(body.node)\n",
        "        for body in ():\n            yield from _calls(body.node)\n",
        _LEFTOVERS,
        "a function calling itself from inside an If branch is not seen as recursive",
    ),
    Mutant(
        "compat7-call-outputs-off-by-one",
        _ENGINE,
        "                if i >= len(node.output):",
        "                if i > len(node.output):",
        _LEFTOVERS,
        "a call with fewer outputs than its function is inferred on (onnx ends the inference)",
    ),
    Mutant(
        "compat7-function-bindings-not-in-bodies",
        _ENGINE,
        "        inner.bindings = self.bindings\n",
        "",
        _LEFTOVERS,
        "inside an If branch of a function's body, a reference to the call's attribute "
        "(Cast's to = @target) stays unbound: the branch's output gets no type",
    ),
    Mutant(
        "compat7-function-body-shared-across-calls",
        _ENGINE,
        "                    inner = copy.copy(inner)\n",
        "                    pass\n",
        _LEFTOVERS,
        "the second call of a function infers the body the first call wrote its types into "
        "(its output keeps the first call's type)",
    ),
    Mutant(
        "compat7-checker-functions-ir-enforced",
        "wirecodec/onnx_compat/checker.py",
        '    if v.rule == "ir-version-feature" and v.path == "functions":',
        '    if v.rule == "ir-version-feature" and v.path == "function":',
        _LEFTOVERS,
        "onnx_compat.checker.check_model refuses model-local functions below IR 8 (onnx's accepts them)",
    ),
)
