"""Mutants of the evaluator's input kinds, first builds and per-node bodies (branch evaltests2,
issue 43): which input types a node takes (the schema's, and others of a kind it lists), the
TypeErrors onnx's code catches, the integer refusal of the log reductions, the quick reads of a
first build (to_array's field presence, a Constant's waiting float runs), and the function
bodies built from a node's input types (CastLike, SpaceToDepth, DepthToSpace)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_KINDS = "tests/unit/reference/test_input_kinds.py"
_FIRST = "tests/unit/reference/test_first_build.py"
_BODIES = "tests/differential/test_reference_context_bodies.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "evaltests2-no-widening-to-a-listed-kind",
        "wirecodec/reference/_evaluator.py",
        "            accepted |= _MEMBERS[family]",
        "            accepted |= set()",
        (f"{_KINDS}::test_a_float_the_schema_does_not_list_is_computed",),
        "float8 to Add (or double to QuantizeLinear) is refused again, where onnx's evaluator computes it",
    ),
    Mutant(
        "evaltests2-unsigned-taken-for-signed",
        "wirecodec/reference/_evaluator.py",
        '"signed": ("int8", "int16", "int32", "int64", "int4", "int2"),',
        '"signed": ("int8", "int16", "int32", "int64", "int4", "int2", "uint8"),',
        (f"{_KINDS}::test_unsigned_integers_are_not_taken_for_signed_ones",),
        "Neg of uint8 runs (and wraps) where its schema lists signed integers only",
    ),
    Mutant(
        "evaltests2-refused-type-not-a-type-error",
        "wirecodec/reference/_errors.py",
        "class InputTypeError(EvaluationError, TypeError):",
        "class InputTypeError(EvaluationError):",
        (f"{_KINDS}::test_an_integer_to_an_operator_of_floats_is_refused",),
        "an input of a kind the operator does not take is no TypeError (code written against onnx misses it)",
    ),
    Mutant(
        "evaltests2-operator-failure-not-a-type-error",
        "wirecodec/reference/_evaluator.py",
        "            except (TypeError, ValueError) as exc:  # onnx's OpRun.run re-raises these as a "
        "TypeError",
        "            except ArithmeticError as exc:",
        (f"{_KINDS}::test_an_operator_refusing_its_inputs_is_a_type_error_too",),
        "an operator refusing its inputs is a plain EvaluationError, not the TypeError onnx raises",
    ),
    Mutant(
        "evaltests2-log-reduction-takes-integers",
        "wirecodec/reference/ops/reductions.py",
        '        if x.dtype.kind in "iu":',
        '        if x.dtype.kind in "c":',
        (f"{_KINDS}::test_log_reductions_refuse_integers_the_old_schemas_list",),
        "ReduceLogSum of int64 at opset 13 or 18 computes (overflowing inside numpy) instead of refusing",
    ),
    Mutant(
        "evaltests2-widened-output-type-unchecked",
        "wirecodec/reference/_evaluator.py",
        "            if got is not None and got != kind:",
        "            if False:",
        (f"{_KINDS}::test_an_output_changing_a_widened_type_is_refused",),
        "an int4 input coming out as int8 (numpy computing wider) changes the output's type silently",
    ),
    Mutant(
        "evaltests2-waiting-floats-ignore-other-value-fields",
        "wirecodec/reference/_values.py",
        "    if tensor._has & _mask(type(tensor).__schema__, _OTHER_FIELDS):",
        "    if False:",
        (f"{_FIRST}::test_two_value_fields_are_refused_by_to_array",),
        "a float tensor holding int64_data beside its float_data is read as valid on the quick path",
    ),
    Mutant(
        "evaltests2-waiting-floats-count-unchecked",
        "wirecodec/reference/_values.py",
        "    if any(d < 0 for d in shape) or math.prod(shape) != run.count:",
        "    if any(d < 0 for d in shape):",
        (f"{_FIRST}::test_dims_that_do_not_fit_are_refused_by_to_array",),
        "dims that do not fit the values reach numpy's reshape (a ValueError, not the tensor error)",
    ),
    Mutant(
        "evaltests2-waiting-floats-first-run-only",
        "wirecodec/reference/_values.py",
        '    flat = parts[0] if len(parts) == 1 else np.concatenate(parts) if parts else np.zeros(0, "<f4")',
        '    flat = parts[0] if parts else np.zeros(0, "<f4")',
        (f"{_FIRST}::test_two_packed_runs_are_joined_in_order",),
        "float_data written as two packed runs is read as its first run only",
    ),
    Mutant(
        "evaltests2-to-array-sees-no-typed-field",
        "wirecodec/tensors/reading.py",
        "    present = [f for f in TYPED_FIELDS if f in listed]",
        "    present = []",
        (f"{_FIRST}::test_two_value_fields_are_refused_by_to_array",),
        "to_array takes a tensor with two value fields (the presence read from ListFields lost)",
    ),
    Mutant(
        "evaltests2-space-to-depth-crd-as-dcr",
        "wirecodec/reference/_bodies.py",
        'perm = [0, 1, 3, 5, 2, 4] if attrs.get("mode", "DCR") == "CRD" else [0, 3, 5, 1, 2, 4]',
        "perm = [0, 3, 5, 1, 2, 4]",
        (_BODIES,),
        "SpaceToDepth's body ignores mode CRD (the channels would lead the block offsets)",
    ),
    Mutant(
        "evaltests2-body-reshape-copies-zero-dims",
        "wirecodec/reference/_bodies.py",
        'helper.make_node("Reshape", ["input", "shape6"], ["blocks"], allowzero=1),',
        'helper.make_node("Reshape", ["input", "shape6"], ["blocks"]),',
        (_BODIES,),
        "a dimension of size 0 in the body's shape copies the input's instead of staying 0",
    ),
    Mutant(
        "evaltests2-cast-like-body-drops-saturate",
        "wirecodec/reference/_bodies.py",
        '        options["saturate"] = attrs.get("saturate", 1)',
        "        pass",
        (_BODIES,),
        "CastLike's body saturates to float8 where the node says saturate=0",
    ),
    Mutant(
        "evaltests2-body-built-every-run",
        "wirecodec/reference/_evaluator.py",
        "            impl = compiled.get((types, sizes))",
        "            impl = None",
        (f"{_BODIES}::test_a_body_is_built_once_per_input_types",),
        "a per-node body is built and compiled again on every run",
    ),
)
