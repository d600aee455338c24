"""Write ``schemas.json`` from the installed onnx: every operator schema, every version.

Run by developers (``python -m wirecodec.defs._generate``) with onnx installed; the
package never imports this module at run time. The facts it writes come from onnx's
Python API, plus three that the API does not expose and that are asked of onnx's own
checker instead (``onnx.checker.check_node`` on probe nodes):

- the input and output counts a schema refuses although they lie within
  ``[min, max]`` (``NumOutputs({1, 3})`` in onnx's C++: old BatchNormalization),
- whether a schema lets unknown attributes through (``AllowUncheckedAttributes``),
- which operator names the checker treats as "experimental" and skips.

``tests/unit/defs/test_generated.py`` regenerates the data in memory and fails if the
shipped file differs.
"""

from __future__ import annotations

import base64
import json
import pathlib
import sys
from typing import Any

__all__ = ["generate", "render", "main"]

DATA_FILE = pathlib.Path(__file__).with_name("schemas.json")

# Probe counts above the minimum up to this many: onnx's only count sets are small.
_PROBE_SPAN = 64
# Names onnx's checker.cc lists as experimental ops; the generator keeps those the
# installed onnx confirms (a node of that name passes the checker without a schema).
_EXPERIMENTAL_CANDIDATES = (
    "ATen",
    "Affine",
    "ConstantFill",
    "Crop",
    "DynamicSlice",
    "GRUUnit",
    "GivenTensorFill",
    "ImageScaler",
    "ParametricSoftplus",
    "Scale",
    "ScaledTanh",
)
_OPTION = {"Single": 0, "Optional": 1, "Variadic": 2}


def _onnx() -> Any:
    try:
        import onnx
    except ImportError as error:  # pragma: no cover - a developer tool
        raise SystemExit("the generator needs onnx installed (pip install onnx)") from error
    return onnx


def _parameters(parameters: Any) -> list[list[Any]]:
    return [
        [p.name, _OPTION[p.option.name], bool(p.is_homogeneous), int(p.min_arity), p.type_str]
        for p in parameters
    ]


def _default(attribute: Any) -> Any:
    """The default as plain JSON: numbers, text (UTF-8 strings) or lists of them; None without one."""
    onnx = _onnx()
    value = attribute.default_value
    if value.type == 0:
        return None
    plain = onnx.helper.get_attribute_value(value)
    if isinstance(plain, bytes):
        return plain.decode("utf-8")
    if isinstance(plain, list):
        return [v.decode("utf-8") if isinstance(v, bytes) else v for v in plain]
    if isinstance(plain, (int, float)):
        return plain
    raise SystemExit(f"default of type {value.type} is not a plain value: extend the generator")


def _attributes(schema: Any) -> list[list[Any]]:
    return [
        [a.name, int(a.type.value), bool(a.required), _default(a)]
        for a in sorted(schema.attributes.values(), key=lambda a: a.name)
    ]


def _check_node(domain: str, version: int, op_type: str, inputs: int, outputs: int, **attrs: Any) -> str:
    """onnx's checker's message for a probe node ('' when it passes)."""
    onnx = _onnx()
    node = onnx.helper.make_node(
        op_type,
        [f"in{i}" for i in range(inputs)],
        [f"out{i}" for i in range(outputs)],
        domain=domain,
        **attrs,
    )
    context = onnx.checker.C.CheckerContext()
    context.ir_version = onnx.IR_VERSION
    context.opset_imports = {domain: version}
    try:
        onnx.checker.check_node(node, context)
    except onnx.checker.ValidationError as error:
        return str(error)
    return ""


def _refused_counts(schema: Any, kind: str) -> list[int] | None:
    """Counts in [min, max] the checker refuses as "not in allowed ... sizes" (None if none)."""
    low = schema.min_input if kind == "input" else schema.min_output
    high = schema.max_input if kind == "input" else schema.max_output
    refused = []
    for count in range(low, min(high, low + _PROBE_SPAN) + 1):
        if kind == "input":
            outputs = max(1, schema.min_output) if schema.max_output >= 1 else 0
            inputs = count
        else:
            inputs = max(1, schema.min_input) if schema.max_input >= 1 else 0
            outputs = count
        message = _check_node(schema.domain, schema.since_version, schema.name, inputs, outputs)
        if f"not in allowed {kind} sizes" in message:
            refused.append(count)
    return refused or None


def _unchecked_attributes(schema: Any) -> bool:
    inputs = schema.min_input or (1 if schema.max_input >= 1 else 0)
    outputs = schema.min_output or (1 if schema.max_output >= 1 else 0)
    message = _check_node(
        schema.domain, schema.since_version, schema.name, inputs, outputs, probe_unknown_attribute=1
    )
    return "Unrecognized attribute" not in message


def _functions(schema: Any) -> dict[str, str]:
    return {
        str(version): base64.b64encode(schema.get_function_with_opset_version(version)).decode("ascii")
        for version in schema.function_opset_versions
    }


def _schema(schema: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "name": schema.name,
        "domain": schema.domain,
        "since_version": schema.since_version,
        "deprecated": bool(schema.deprecated),
        "inputs": _parameters(schema.inputs),
        "outputs": _parameters(schema.outputs),
        "min_input": schema.min_input,
        "max_input": schema.max_input,
        "min_output": schema.min_output,
        "max_output": schema.max_output,
        "attributes": _attributes(schema),
        "type_constraints": [[c.type_param_str, list(c.allowed_type_strs)] for c in schema.type_constraints],
    }
    if not schema.deprecated:
        # A deprecated schema refuses every node before these rules are reached.
        for kind in ("input", "output"):
            refused = _refused_counts(schema, kind)
            if refused:
                record[f"refused_{kind}_counts"] = refused
        if _unchecked_attributes(schema):
            record["unchecked_attributes"] = True
    functions = _functions(schema)
    if functions:
        record["functions"] = functions
    if schema.has_context_dependent_function:
        record["context_dependent_functions"] = list(schema.context_dependent_function_opset_versions)
    return record


def _experimental() -> list[str]:
    onnx = _onnx()
    latest = onnx.defs.onnx_opset_version()
    return [
        name
        for name in _EXPERIMENTAL_CANDIDATES
        if not onnx.defs.has(name) and _check_node("", latest, name, 1, 1) == ""
    ]


def generate() -> dict[str, Any]:
    """The schema data as plain JSON-ready values, from the installed onnx."""
    onnx = _onnx()
    schemas = sorted(
        onnx.defs.get_all_schemas_with_history(), key=lambda s: (s.domain, s.name, s.since_version)
    )
    return {
        "onnx_version": onnx.__version__,
        "domain_versions": {d: list(r) for d, r in sorted(onnx.defs.C.schema_version_map().items())},
        "experimental_ops": _experimental(),
        "schemas": [_schema(s) for s in schemas],
    }


def render(data: dict[str, Any]) -> str:
    """The file's text: one schema per line, so a regeneration's diff reads op by op."""
    head = {key: value for key, value in data.items() if key != "schemas"}
    lines = [json.dumps(schema, separators=(",", ":"), ensure_ascii=False) for schema in data["schemas"]]
    header = json.dumps(head, separators=(",", ":"))[:-1]
    return header + ',\n"schemas":[\n' + ",\n".join(lines) + "\n]}\n"


def main(argv: list[str] | None = None) -> int:
    """Write the data file (or the path given as the one argument)."""
    args = sys.argv[1:] if argv is None else argv
    target = pathlib.Path(args[0]) if args else DATA_FILE
    data = generate()
    target.write_text(render(data), encoding="utf-8")
    print(f"wrote {len(data['schemas'])} schemas from onnx {data['onnx_version']} to {target}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
