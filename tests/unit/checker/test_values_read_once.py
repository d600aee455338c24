"""Each graph's values are read once for the names, required-field and IR-version rules
(wirecodec.checker.values), and that finds exactly what each family finds reading them
itself, in the same order.

The models break value rules in the main graph, in an ``If`` branch and in a training
graph: duplicate and unnamed value_info, an untyped main input, a tensor type without
elem_type, an optional type and value metadata before the IR versions that allow them,
an output nobody defines, an input defined twice.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from schema_dsl.onnx import GraphProto, ModelProto, StringStringEntryProto, TypeProto, ValueInfoProto
from wirecodec import decode, encode, helper
from wirecodec.checker import examine, names, opsets, required, values
from wirecodec.checker.violation import Report, Violation
from wirecodec.checker.walk import walk

F = 1


def _vi(name: str) -> ValueInfoProto:
    return helper.make_tensor_value_info(name, F, [1])


def _model(ir: int = 10) -> ModelProto:
    then = helper.make_graph([helper.make_node("Identity", ["x"], ["t"])], "then", [], [_vi("t")])
    other = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])], "else", [], [_vi("e")])
    cond = helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other)
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]), cond],
        "g",
        [_vi("x"), helper.make_tensor_value_info("c", 9, [])],
        [_vi("y")],
        value_info=[_vi("r")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    model.ir_version = ir
    return model


def _branch(model: ModelProto) -> GraphProto:
    return model.graph.node[1].attribute[0].g


def duplicate_value_info(m: ModelProto) -> None:
    m.graph.value_info.append(_vi("r"))
    _branch(m).value_info.extend([_vi("q"), _vi("q")])


def unnamed_values(m: ModelProto) -> None:
    m.graph.value_info.append(_vi(""))
    _branch(m).output[0].name = ""


def untyped_main_input(m: ModelProto) -> None:
    m.graph.input[0].ClearField("type")
    m.graph.value_info.append(ValueInfoProto(name="untyped"))  # allowed: not a main input or output
    _branch(m).value_info.append(ValueInfoProto(name="t"))


def no_elem_type(m: ModelProto) -> None:
    m.graph.output[0].type.tensor_type.ClearField("elem_type")
    _branch(m).output[0].type.tensor_type.elem_type = 0


def optional_type_before_ir8(m: ModelProto) -> None:
    m.ir_version = 7
    optional = TypeProto()
    optional.optional_type.elem_type.CopyFrom(m.graph.input[0].type)
    m.graph.value_info.append(ValueInfoProto(name="opt", type=optional))
    _branch(m).value_info.append(ValueInfoProto(name="opt2", type=optional))


def value_metadata_before_ir10(m: ModelProto) -> None:
    m.ir_version = 9
    m.graph.value_info[0].metadata_props.append(StringStringEntryProto(key="k", value="v"))
    _branch(m).output[0].metadata_props.append(StringStringEntryProto(key="k", value="v"))


def undefined_output_and_twice_input(m: ModelProto) -> None:
    m.graph.output.append(_vi("nowhere"))
    m.graph.input.append(_vi("x"))
    _branch(m).output.append(_vi("x"))


def training_graph_values(m: ModelProto) -> None:
    algorithm = helper.make_graph([helper.make_node("Relu", ["r"], ["z"])], "algo", [], [_vi("z"), _vi("")])
    algorithm.value_info.extend([_vi("z"), _vi("z")])
    m.training_info.add().algorithm.CopyFrom(algorithm)


BREAKS: list[Callable[[ModelProto], None]] = [
    duplicate_value_info,
    unnamed_values,
    untyped_main_input,
    no_elem_type,
    optional_type_before_ir8,
    value_metadata_before_ir10,
    undefined_output_and_twice_input,
    training_graph_values,
]


def _each_family_reading_itself(model: ModelProto) -> list[Violation]:
    """The three families as they were before the values were shared: each reads them."""
    sites = walk(model)
    report = Report()
    ir = model.ir_version if model.HasField("ir_version") else None
    names.check_names(model, report)
    required.check_required(sites, report, values.read_values(sites, ir))
    opsets.check_opsets(sites, report, values.read_values(sites, ir))
    return report.violations


def _shared(model: ModelProto) -> list[Violation]:
    sites = walk(model)
    report = Report()
    read = values.read_values(sites, model.ir_version if model.HasField("ir_version") else None)
    names.check_names(model, report, read)
    required.check_required(sites, report, read)
    opsets.check_opsets(sites, report, read)
    return report.violations


@pytest.mark.quick
@pytest.mark.parametrize("brk", BREAKS, ids=lambda f: f.__name__)
def test_shared_values_find_what_each_family_finds(brk: Callable[[ModelProto], None]) -> None:
    model = _model()
    brk(model)
    alone = _each_family_reading_itself(model)
    assert alone, "each break breaks a value rule"
    assert _shared(model) == alone
    # and so does the checker on the model decoded from its bytes (records, views)
    decoded = decode(ModelProto, encode(model))
    assert _shared(decoded) == alone
    found = examine(decoded).violations
    assert all(v in found for v in alone)


def test_a_valid_model_has_no_value_findings() -> None:
    model = _model()
    assert _each_family_reading_itself(model) == [] == _shared(model)


def test_each_value_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long graph's value_info elements are views built anew by each read: the required
    rules' look at each value happens once per check, through the shared read."""
    model = _model()
    for i in range(3000):  # past the size where the decoder keeps records
        model.graph.value_info.append(_vi(f"v{i}"))
    decoded = decode(ModelProto, encode(model))
    seen: list[str] = []
    real = required.value_info

    def counted(report: Report, path: str, value: ValueInfoProto, *, main_io: bool) -> None:
        seen.append(path)
        real(report, path, value, main_io=main_io)

    monkeypatch.setattr(values, "value_info", counted)
    monkeypatch.setattr(required, "value_info", counted)
    assert examine(decoded).violations == []
    assert len(seen) == len(set(seen))
    assert "graph.value_info[2999]" in seen
    assert "graph.node[1].attribute[0].g.output[0]" in seen


@pytest.mark.quick
def test_a_main_value_info_is_not_held_to_the_rules_of_inputs_and_outputs() -> None:
    """A main graph's value_info may have no type and no shape; its inputs and outputs may not."""
    model = _model()
    model.graph.value_info.append(ValueInfoProto(name="untyped"))
    no_shape = _vi("shapeless")
    no_shape.type.tensor_type.ClearField("shape")
    model.graph.value_info.append(no_shape)
    decoded = decode(ModelProto, encode(model))
    assert examine(decoded).violations == examine(model).violations == []
    model.graph.input[0].ClearField("type")
    assert [(v.path, v.rule) for v in examine(model).violations] == [("graph.input[0].type", "io-type")]
