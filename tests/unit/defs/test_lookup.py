"""wirecodec.defs answers what onnx.defs answers: every operator, every version, every domain."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from tests.support.reference import require_onnx
from wirecodec import defs
from wirecodec.defs import FormalParameterOption


def _onnx_schemas() -> list[Any]:
    onnx = require_onnx()
    return list(onnx.defs.get_all_schemas_with_history())


def test_get_schema_resolves_every_opset_as_onnx_does() -> None:
    onnx = require_onnx()
    ops = {(s.domain, s.name) for s in _onnx_schemas()}
    ranges = onnx.defs.C.schema_version_map()
    checked = 0
    for domain, name in sorted(ops):
        _, highest = ranges[domain]
        for version in range(0, highest + 2):
            mine = defs.get_schema(name, version, domain)
            try:
                theirs = onnx.defs.get_schema(name, version, domain).since_version
            except onnx.defs.SchemaError:
                theirs = None
            assert (mine.since_version if mine else None) == theirs, (domain, name, version)
            assert defs.has_schema(name, version, domain) == onnx.defs.has(name, version, domain)
            checked += 1
    assert checked > 5000


def test_every_schema_matches_onnx_field_by_field() -> None:
    onnx = require_onnx()
    for theirs in _onnx_schemas():
        mine = defs.get_schema(theirs.name, theirs.since_version, theirs.domain)
        assert mine is not None
        where = f"{mine.domain}::{mine.name}:{mine.since_version}"
        assert mine.deprecated == theirs.deprecated, where
        for kind in ("input", "output"):
            assert getattr(mine, f"min_{kind}") == getattr(theirs, f"min_{kind}"), where
            assert getattr(mine, f"max_{kind}") == getattr(theirs, f"max_{kind}"), where
            for p, q in zip(getattr(mine, f"{kind}s"), getattr(theirs, f"{kind}s"), strict=True):
                assert (p.name, p.type_str, p.min_arity, p.is_homogeneous) == (
                    q.name,
                    q.type_str,
                    q.min_arity,
                    q.is_homogeneous,
                ), where
                assert p.option.name == q.option.name, where
        assert set(mine.attributes) == set(theirs.attributes), where
        for name, attribute in mine.attributes.items():
            reference = theirs.attributes[name]
            assert attribute.type == reference.type.value and attribute.required == reference.required
            default = reference.default_value
            expected = onnx.helper.get_attribute_value(default) if default.type else None
            assert attribute.default_value == expected, (where, name)
        assert [(c.type_param_str, list(c.allowed_type_strs)) for c in mine.type_constraints] == [
            (c.type_param_str, list(c.allowed_type_strs)) for c in theirs.type_constraints
        ], where
        assert mine.function_opset_versions == tuple(theirs.function_opset_versions), where
        for version in mine.function_opset_versions:
            assert mine.get_function_with_opset_version(version) == theirs.get_function_with_opset_version(
                version
            ), where
        assert mine.has_context_dependent_function == theirs.has_context_dependent_function


def test_function_bodies_decode_to_what_onnx_holds() -> None:
    onnx = require_onnx()
    bodies = 0
    for schema in defs.get_all_schemas_with_history():
        for version in schema.function_opset_versions:
            body = schema.function_body(version)
            assert body is not None
            reference = onnx.FunctionProto.FromString(schema.get_function_with_opset_version(version))
            assert [n.op_type for n in body.node] == [n.op_type for n in reference.node]
            assert list(body.input) == list(reference.input)
            bodies += 1
    assert bodies >= 40


def test_the_body_in_effect_is_the_latest_written_at_or_before_the_opset() -> None:
    elu = defs.get_schema("Elu", 22)
    assert elu is not None and elu.function_opset_versions == (18,)
    assert elu.get_function_with_opset_version(17) is None
    assert elu.get_function_with_opset_version(25) == elu.get_function_with_opset_version(18)
    relu = defs.get_schema("Relu", 14)  # a body written for opset 18 only
    assert relu is not None and relu.function_body(14) is None
    latest = relu.function_body()  # as onnx's OpSchema.function_body: the latest
    assert latest is not None and [(o.domain, o.version) for o in latest.opset_import] == [("", 18)]


def test_bodies_by_opset_version_are_onnx_answers() -> None:
    onnx = require_onnx()
    for schema in defs.get_all_schemas_with_history():
        if not schema.has_function:
            continue
        theirs = onnx.defs.get_schema(schema.name, schema.since_version, schema.domain)
        for version in range(schema.since_version, defs.onnx_opset_version() + 2):
            expected = theirs.get_function_with_opset_version(version) or None
            assert schema.get_function_with_opset_version(version) == expected, (schema.name, version)


def test_latest_and_history_lists_agree_with_onnx() -> None:
    onnx = require_onnx()
    latest = {(s.domain, s.name, s.since_version) for s in onnx.defs.get_all_schemas()}
    assert {(s.domain, s.name, s.since_version) for s in defs.get_all_schemas()} == latest
    every = {(s.domain, s.name, s.since_version) for s in onnx.defs.get_all_schemas_with_history()}
    assert {(s.domain, s.name, s.since_version) for s in defs.get_all_schemas_with_history()} == every
    assert defs.onnx_opset_version() == onnx.defs.onnx_opset_version()
    assert defs.domain_version_range("ai.onnx.ml") == (1, onnx.defs.onnx_ml_opset_version())
    assert defs.domain_version_range("com.microsoft") is None
    assert defs.schema_onnx_version() == onnx.__version__


def test_the_default_domain_is_registered_under_the_empty_name_only() -> None:
    onnx = require_onnx()
    assert defs.get_schema("Add", 14) is not None
    assert defs.get_schema("Add", 14, "ai.onnx") is None
    assert onnx.defs.has("Add", "ai.onnx") is False
    assert defs.has_schema("Add") and not defs.has_schema("NoSuchOp")


def test_what_the_api_does_not_show_comes_from_onnx_checker() -> None:
    # Old BatchNormalization takes 1 or 5 outputs, not 2..4 (NumOutputs({1, 5}) in onnx's C++).
    batch_norm = defs.get_schema("BatchNormalization", 7)
    assert batch_norm is not None and batch_norm.refused_output_counts == frozenset({2, 3, 4})
    assert [batch_norm.accepts_output_count(n) for n in range(7)] == [
        False,
        True,
        False,
        False,
        False,
        True,
        False,
    ]
    layer_norm = defs.get_schema("LayerNormalization", 17)
    assert layer_norm is not None and layer_norm.allows_unchecked_attributes
    add = defs.get_schema("Add", 14)
    assert add is not None and not add.allows_unchecked_attributes
    assert add.inputs[0].option is FormalParameterOption.Single


@pytest.mark.parametrize(
    "statement", ["import wirecodec", "import wirecodec.defs", "import wirecodec.checker"]
)
def test_importing_does_not_read_the_data(statement: str) -> None:
    code = (
        f"import sys; {statement}; "
        "from wirecodec.defs import _registry; print(_registry.registry.cache_info().currsize)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0"


def test_schemas_are_hashable_and_equal_by_value() -> None:
    first, again = defs.get_schema("Conv", 11), defs.get_schema("Conv", 12)
    assert first is again and {first: 1}[again] == 1
    assert first != defs.get_schema("Conv", 1)
