"""Mutants of the full check's verdict (issue 47, item 4): the allowed-type check and the
node paths of shape inference (shape_inference/_check_types.py, _engine.py), the control-flow
and operator rules the verdict matrix brought in (ops/control_flow.py, ops/matmul.py,
ops/elementwise.py), and the checker's inference step (checker/__init__.py, inference.py).
Each is a plausible slip; the verdict matrix (tests/differential/test_check_verdicts.py)
must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_MATRIX = "tests/differential/test_check_verdicts.py"
_TYPES = "wirecodec/shape_inference/_check_types.py"


def _rows(*names: str) -> tuple[str, ...]:
    return tuple(f"{_MATRIX}::test_check_verdicts_agree[{name}]" for name in names)


MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "verdicts-concrete-type-allows-anything",
        _TYPES,
        "            if actual not in allowed.get("
        "param.type_str, frozenset({canonical_type_str(param.type_str)})):\n",
        "            if actual not in allowed.get(param.type_str, frozenset({actual})):\n",
        _rows("reshape_float_shape"),
        "a parameter with a concrete type (Reshape's shape: tensor(int64)) is taken as allowing anything",
    ),
    Mutant(
        "verdicts-sparse-spelled-as-dense",
        _TYPES,
        '        return f"sparse_tensor({name})" if t.sparse else f"tensor({name})"\n',
        '        return f"tensor({name})"\n',
        _rows("sparse_input_to_relu"),
        "a sparse tensor is judged as a dense one of its element type (onnx refuses it)",
    ),
    Mutant(
        "verdicts-type-errors-collected-not-raised",
        "wirecodec/shape_inference/_engine.py",
        "        except TypeCheckError as exc:\n",
        "        except ZeroDivisionError as exc:\n",
        (f"{_MATRIX}::test_type_errors_end_inference_strict_or_not",),
        "a type error is collected like a failed rule: infer_shapes(check_type=True) passes without strict",
    ),
    Mutant(
        "verdicts-scan-body-outputs-truncated",
        "wirecodec/shape_inference/ops/control_flow.py",
        "    if len(outputs) != ctx.n_outputs:\n",
        "    if len(outputs) > ctx.n_outputs + 1:\n",
        _rows("scan_body_output_removed", "scan_body_output_added"),
        "a Scan body with an output too few or too many is inferred from what it has",
    ),
    Mutant(
        "verdicts-gemm-inner-sizes-from-wrong-axis",
        "wirecodec/shape_inference/ops/matmul.py",
        "    k_a, k_b = a[0 if trans_a else 1], b[1 if trans_b else 0]\n",
        "    k_a, k_b = a[1 if trans_a else 0], b[1 if trans_b else 0]\n",
        _rows("gemm_mismatch", "valid_gemm_transposed"),
        "Gemm's inner size is read from A's outer axis",
    ),
    Mutant(
        "verdicts-softmax-axis-default-13",
        "wirecodec/shape_inference/ops/elementwise.py",
        '        axis_in(ctx.attr_int("axis", -1 if ctx.opset >= 13 else 1), len(t.shape))\n',
        '        axis_in(ctx.attr_int("axis", 1), len(t.shape))\n',
        _rows("valid_softmax_default_axis_1d"),
        "Softmax 13's default axis taken as 1 (Softmax of a 1-D input refused)",
    ),
    Mutant(
        "verdicts-inference-on-ir-only",
        "wirecodec/checker/__init__.py",
        "    if full and not found:  # onnx's full_check: strict inference, once every rule holds\n",
        "    if not found:  # onnx's full_check: strict inference, once every rule holds\n",
        (f"{_MATRIX}::test_check_without_full_agrees_with_check_model",),
        "strict inference runs without full (check without --full refuses what onnx's check_model accepts)",
    ),
    Mutant(
        "verdicts-subgraph-path-lost",
        "wirecodec/shape_inference/_engine.py",
        "                if scope.graph is graph:\n                    return scope\n",
        "                if scope.graph is graph:\n                    return self.path\n",
        (f"{_MATRIX}::test_inference_violations_name_the_node",),
        "a finding inside an If branch or a Scan body is reported at the enclosing graph's path",
    ),
    Mutant(
        "verdicts-map-value-bare-type",
        _TYPES,
        "    allowed = {c.type_param_str: frozenset(map(canonical_type_str, c.allowed_type_strs))"
        " for c in constraints}\n",
        "    allowed = {c.type_param_str: frozenset(c.allowed_type_strs) for c in constraints}\n",
        _rows("valid_zip_map"),
        "a schema's type strings taken as written: ZipMap's seq(map(int64, float)) refuses the"
        " seq(map(int64,tensor(float))) it makes (onnx's own test_zip_map fails)",
    ),
)
