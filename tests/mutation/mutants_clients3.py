"""Mutants of issue 42's third round (branch clients3): onnx_compat's ``reference.ops.load_op``,
the run-time schema registry and onnx-shaped schema records, ``infer_function_output_types``
and ``tools.net_drawer``; each killed by the test named (onnx is the oracle)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_UNIT = "tests/unit/onnx/test_compat_schemas_functions_drawer.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "load-op-takes-ai-onnx",
        "wirecodec/onnx_compat/reference/ops/__init__.py",
        'if domain != "":\n        raise ValueError',
        'if domain not in ("", "ai.onnx"):\n        raise ValueError',
        (f"{_UNIT}::test_load_op_refuses_what_onnx_refuses",),
        "load_op serves 'ai.onnx', which onnx refuses (onnxscript would fold what onnx does not)",
    ),
    Mutant(
        "load-op-single-output-in-a-tuple",
        "wirecodec/onnx_compat/reference/ops/__init__.py",
        "return result[0] if len(result) == 1 else result",
        "return result",
        (f"{_UNIT}::test_load_op_eval_gives_onnxs_values",),
        "eval returns a 1-tuple for a one-output operator where onnx returns the array",
    ),
    Mutant(
        "optional-counts-as-required",
        "wirecodec/onnx_compat/defs.py",
        "                elif p.option == FormalParameterOption.Optional:\n                    high += 1",
        "                elif p.option == FormalParameterOption.Optional:\n"
        "                    high += 1\n"
        "                    low = high",
        (f"{_UNIT}::test_a_constructed_schema_reads_as_onnxs",),
        "an Optional parameter raises min_input of a constructed schema",
    ),
    Mutant(
        "registry-ignores-since-version",
        "wirecodec/defs/_registry.py",
        "    history.sort(key=lambda s: s.since_version)\n    table.by_op[key] = tuple(history)",
        "    table.by_op[key] = tuple(history)",
        (f"{_UNIT}::test_register_and_deregister_as_onnx",),
        "a registered version is appended unsorted, so an older one hides it from get_schema",
    ),
    Mutant(
        "deregister-leaves-lookup-table",
        "wirecodec/defs/_registry.py",
        "        table.by_op[key] = kept\n        table._since[key] = [s.since_version for s in kept]",
        "        table.by_op[key] = kept",
        (f"{_UNIT}::test_register_and_deregister_as_onnx",),
        "deregistering one of two versions leaves the version index stale (lookups read the wrong one)",
    ),
    Mutant(
        "attribute-default-unnamed",
        "wirecodec/onnx_compat/defs.py",
        "self._proto = make_attribute(self.name, value, attr_type=int(self.type))",
        'self._proto = make_attribute("", value, attr_type=int(self.type))',
        (f"{_UNIT}::test_builtin_schemas_parameters_attributes_and_constraints_read_as_onnxs",),
        "a schema attribute's default AttributeProto lacks the attribute's name (onnx-ir reads it)",
    ),
    Mutant(
        "function-attribute-refs-not-bound",
        "wirecodec/onnx_compat/shape_inference.py",
        "value = given.get(attribute.ref_attr_name, defaults.get(attribute.ref_attr_name))",
        "value = defaults.get(attribute.ref_attr_name)",
        (f"{_UNIT}::test_infer_function_output_types_as_onnx",),
        "the call's attributes are not bound into the body (Cast's 'to' stays unset)",
    ),
    Mutant(
        "net-drawer-no-redefinition-count",
        "wirecodec/onnx_compat/tools/net_drawer.py",
        "                written[value] = written.get(value, 0) + 1",
        "                pass",
        (f"{_UNIT}::test_net_drawer_draws_as_onnx_118",),
        "a value written twice is one octagon: readers before the redefinition point at the new one",
    ),
)
