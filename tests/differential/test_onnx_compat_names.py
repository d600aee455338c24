"""onnx names that libraries import, on wirecodec.onnx_compat against the real onnx."""

from __future__ import annotations

import importlib
import subprocess
import sys
from typing import Any

import pytest

import wirecodec.onnx_compat as compat
from tests.onnx_suite.run import SHIM
from wirecodec.onnx_compat import NotProvidedError, defs

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")
pytest.importorskip("ml_dtypes", reason="onnx's _mapping needs ml_dtypes")

PB_MODULES = [
    "onnx_pb",
    "onnx_ml_pb2",
    "onnx_data_pb",
    "onnx_data_pb2",
    "onnx_operators_pb",
    "onnx_operators_ml_pb2",
]


@pytest.mark.quick
@pytest.mark.parametrize("name", PB_MODULES)
def test_generated_module_aliases_have_onnxs_public_names(name: str) -> None:
    theirs = importlib.import_module(f"onnx.{name}")
    ours = getattr(compat, name)
    public = sorted(n for n in dir(theirs) if not n.startswith("_") and n != "DESCRIPTOR")
    assert public
    for attribute in public:
        mine, real = getattr(ours, attribute), getattr(theirs, attribute)
        if isinstance(real, int):
            assert mine == real, attribute
        elif attribute == "onnx_dot_onnx__ml__pb2":
            assert mine is compat.onnx_ml_pb2
        else:
            assert mine.DESCRIPTOR.full_name == real.DESCRIPTOR.full_name, attribute
    with pytest.raises(NotProvidedError, match="DESCRIPTOR"):
        ours.DESCRIPTOR  # noqa: B018
    with pytest.raises(AttributeError):
        ours.NoSuchName  # noqa: B018


def test_operators_pb2_is_the_operators_module() -> None:
    assert compat.onnx_operators_pb2.OperatorSetProto is compat.OperatorSetProto


def test_tensor_type_map_is_onnxs() -> None:
    import onnx._mapping

    assert compat._mapping.TENSOR_TYPE_MAP == onnx._mapping.TENSOR_TYPE_MAP
    for code, entry in compat._mapping.TENSOR_TYPE_MAP.items():  # plain ints, as onnx's (their repr shows)
        assert type(code) is int and type(entry.storage_dtype) is int
    assert list(compat._mapping.TensorDtypeMap._fields) == list(onnx._mapping.TensorDtypeMap._fields)


def test_legacy_mapping_tables_follow_the_type_map() -> None:
    import onnx._mapping

    table = onnx._mapping.TENSOR_TYPE_MAP
    mapping = compat.mapping
    assert {k: v.np_dtype for k, v in table.items()} == mapping.TENSOR_TYPE_TO_NP_TYPE
    assert {k: v.storage_dtype for k, v in table.items()} == mapping.TENSOR_TYPE_TO_STORAGE_TENSOR_TYPE
    for dtype, code in mapping.NP_TYPE_TO_TENSOR_TYPE.items():
        assert onnx.helper.np_dtype_to_tensor_dtype(dtype) == code
    for code, field in mapping.STORAGE_TENSOR_TYPE_TO_FIELD.items():
        assert onnx.helper.tensor_dtype_to_field(code) == field


def test_schema_version_map_and_cpp_module_paths_are_onnxs() -> None:
    import onnx.onnx_cpp2py_export.defs as theirs
    import wirecodec.onnx_compat.onnx_cpp2py_export.defs as ours

    assert ours is defs
    assert ours.schema_version_map() == theirs.schema_version_map()
    import wirecodec.onnx_compat.onnx_cpp2py_export.checker as checker
    import wirecodec.onnx_compat.onnx_cpp2py_export.shape_inference as shape_inference

    assert checker is compat.checker and shape_inference is compat.shape_inference


def test_opschema_nested_names_and_support_level_are_onnxs() -> None:
    for name in (
        "AttrType",
        "SupportType",
        "FormalParameterOption",
        "DifferentiationCategory",
        "NodeDeterminism",
    ):
        ours, theirs = getattr(defs.OpSchema, name), getattr(onnx.defs.OpSchema, name)
        assert {m.name: int(m) for m in ours} == {n: v.value for n, v in theirs.__members__.items()}, name
    real = {
        (s.domain, s.name, s.since_version): int(s.support_level)
        for s in onnx.defs.get_all_schemas_with_history()
    }
    mine = {
        (s.domain, s.name, s.since_version): int(s.support_level) for s in defs.get_all_schemas_with_history()
    }
    assert mine == real
    schema = defs.get_schema("Relu")
    assert schema is defs.get_schema("Relu") and isinstance(schema, defs.OpSchema)
    assert schema.support_level == schema.SupportType.COMMON
    assert [p.name for p in schema.inputs] == [p.name for p in onnx.defs.get_schema("Relu").inputs]
    assert isinstance(schema.inputs[0], defs.OpSchema.FormalParameter)
    assert defs.OpSchema.TypeConstraintParam is type(schema.type_constraints[0])


@pytest.mark.parametrize(
    "statement",
    [
        "from onnx import onnx_pb as onnx_proto; print(onnx_proto.TensorProto.DataType.Name(1))",
        "import onnx.onnx_ml_pb2 as m; "
        "print(m.ModelProto.DESCRIPTOR.fields_by_name['graph'].message_type.name)",
        "import onnx.onnx_cpp2py_export.defs as C; print(sorted(C.schema_version_map()))",
        "from onnx.onnx_data_pb2 import SequenceProto as S; "
        "print(S.DataType.DESCRIPTOR.values_by_number[1].name)",
        "from onnx._mapping import TENSOR_TYPE_MAP; print(TENSOR_TYPE_MAP[16].name)",
        "import onnx.defs; s = onnx.defs.get_schema('Upsample', 1); "
        "print(s.support_level == s.SupportType.EXPERIMENTAL)",
        "from onnx.defs import OpSchema as S; "
        "print(int(S.AttrType.GRAPHS), int(S.FormalParameterOption.Variadic))",
    ],
)
def test_import_statements_print_what_they_print_on_onnx(statement: str, tmp_path: object) -> None:
    import pathlib

    folder = pathlib.Path(str(tmp_path)) / "onnx"
    folder.mkdir()
    (folder / "__init__.py").write_text(SHIM.read_text(encoding="utf-8"), encoding="utf-8")
    real = subprocess.run([sys.executable, "-c", statement], capture_output=True, text=True, check=True)
    env_path = f"{folder.parent}{__import__('os').pathsep}{pathlib.Path(__file__).resolve().parents[2]}"
    ours = subprocess.run(
        [sys.executable, "-c", statement],
        capture_output=True,
        text=True,
        check=False,
        env={**__import__("os").environ, "PYTHONPATH": env_path},
    )
    assert ours.returncode == 0, ours.stderr
    assert ours.stdout == real.stdout


@pytest.mark.quick
def test_a_message_equals_itself_without_its_fields_being_compared(monkeypatch: pytest.MonkeyPatch) -> None:
    from schema_dsl.message import Message

    node = compat.NodeProto(op_type="Relu", input=["x"], output=["y"])
    other = compat.NodeProto(op_type="Relu", input=["x"], output=["y"])

    def no_field_lists(self: Message) -> list[object]:
        raise AssertionError("ListFields called")

    with monkeypatch.context() as patched:
        patched.setattr(Message, "ListFields", no_field_lists)
        assert node == node  # the identity shortcut: no field is read
        assert node.__ne__(node) is False
    assert node == other
    nan = float("nan")
    for ours, theirs in ((compat.TensorProto(float_data=[nan]), onnx.TensorProto(float_data=[nan])),):
        assert (ours == ours) == (theirs == theirs)


def _node_cases() -> list[tuple[str, Any, dict[str, Any], dict[str, Any]]]:
    import numpy as np

    from wirecodec import helper, numpy_helper

    x = helper.make_tensor_type_proto(compat.TensorProto.FLOAT, [2, 3])
    row = helper.make_tensor_type_proto(compat.TensorProto.FLOAT, [3])
    symbolic = helper.make_tensor_type_proto(compat.TensorProto.FLOAT, ["N", 3])
    pair = helper.make_tensor_type_proto(compat.TensorProto.INT64, [2])
    one = helper.make_tensor_type_proto(compat.TensorProto.INT64, [1])
    shape = numpy_helper.from_array(np.array([3, 2], np.int64), "s")
    k = numpy_helper.from_array(np.array([2], np.int64), "k")
    return [
        ("Relu", helper.make_node("Relu", ["x"], ["y"]), {"x": x}, {}),
        ("Add", helper.make_node("Add", ["x", "b"], ["z"]), {"x": symbolic, "b": row}, {}),
        ("Reshape", helper.make_node("Reshape", ["x", "s"], ["r"]), {"x": x, "s": pair}, {"s": shape}),
        ("Reshape", helper.make_node("Reshape", ["x", "s"], ["r"]), {"x": x, "s": pair}, {}),
        ("TopK", helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1), {"x": x, "k": one}, {"k": k}),
        ("Cast", helper.make_node("Cast", ["x"], ["c"], to=compat.TensorProto.INT32), {"x": symbolic}, {}),
    ]


@pytest.mark.parametrize("case", range(6))
def test_infer_node_outputs_is_onnxs(case: int) -> None:
    import wirecodec
    from wirecodec.onnx_compat import shape_inference

    op, node, types, data = _node_cases()[case]
    ours = shape_inference.infer_node_outputs(defs.get_schema(op), node, types, data)
    theirs = onnx.shape_inference.infer_node_outputs(
        onnx.defs.get_schema(op),
        onnx.NodeProto.FromString(wirecodec.encode(node)),
        {name: onnx.TypeProto.FromString(wirecodec.encode(t)) for name, t in types.items()},
        {name: onnx.TensorProto.FromString(wirecodec.encode(t)) for name, t in data.items()},
    )
    assert {n: wirecodec.encode(t) for n, t in ours.items()} == {
        n: t.SerializeToString() for n, t in theirs.items()
    }


def test_infer_node_outputs_needs_every_input_type_as_onnx() -> None:
    from wirecodec import helper
    from wirecodec.onnx_compat import shape_inference

    with pytest.raises(KeyError):
        shape_inference.infer_node_outputs(
            defs.get_schema("Add"), helper.make_node("Add", ["a", "b"], ["c"]), {}
        )


def _dims_model() -> Any:
    from wirecodec import helper

    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["y"])],
        "g",
        [
            helper.make_tensor_value_info("a", compat.TensorProto.FLOAT, ["b", 3, "w"]),
            helper.make_tensor_value_info("b", compat.TensorProto.FLOAT, [None, 3, 4]),
        ],
        [helper.make_tensor_value_info("y", compat.TensorProto.FLOAT, ["b", 3, 4])],
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


@pytest.mark.parametrize(
    ("input_dims", "output_dims"),
    [
        ({"a": [2, 3, 4], "b": [2, 3, 4]}, {"y": [2, 3, 4]}),
        ({"a": ["batch", 3, -1], "b": [-1, 3, 4]}, {"y": [-1, -1, 4]}),
        ({"a": [2, 5, 4], "b": [2, 3, 4]}, {"y": [2, 3, 4]}),  # contradicts the 3 there
        ({"a": [2, 3, 4], "b": [-1, 3, 4]}, {"y": [2, 3, 4.0]}),  # not an int or str
        ({"a": [2, 3, 4], "b": [2, 3, 4]}, {}),  # an output not listed
    ],
)
def test_update_model_dims_is_onnxs(
    input_dims: dict[str, list[Any]], output_dims: dict[str, list[Any]]
) -> None:
    from onnx.tools import update_model_dims as theirs

    import wirecodec
    from wirecodec.onnx_compat.tools import update_model_dims as ours

    mine, other = _dims_model(), onnx.load_from_string(wirecodec.encode(_dims_model()))
    try:
        expected: Any = theirs.update_inputs_outputs_dims(other, input_dims, output_dims).SerializeToString()
    except Exception as error:
        expected = type(error)
    try:
        got: Any = wirecodec.encode(ours.update_inputs_outputs_dims(mine, input_dims, output_dims))
    except Exception as error:
        got = type(error)
    assert got == expected
    assert compat.tools.update_model_dims is ours


def test_backend_base_is_onnxs() -> None:
    import onnx.backend.base as theirs

    import wirecodec
    from wirecodec import helper
    from wirecodec.onnx_compat.backend import base as ours

    for spec in ("CPU", "CUDA", "CUDA:3"):
        assert (ours.Device(spec).type, ours.Device(spec).device_id) == (
            theirs.Device(spec).type,
            theirs.Device(spec).device_id,
        )
    with pytest.raises(AttributeError):
        ours.Device("TPU")
    names = ["a", "b", "class"]  # "class" is renamed, as onnx's rename=True does
    mine, real = ours.namedtupledict("Row", names)(1, 2, 3), theirs.namedtupledict("Row", names)(1, 2, 3)
    assert (mine["a"], mine[1], mine._fields) == (real["a"], real[1], real._fields)
    model = _dims_model()
    assert ours.Backend.is_compatible(model) is theirs.Backend.is_compatible(onnx.load_from_string(b""))
    assert ours.Backend.prepare(model) is None and ours.BackendRep().run([]) == (None,)
    node = helper.make_node("Relu", ["x"], ["y"])
    assert ours.Backend.run_node(node, [], opset_version=14) is None
    bad = helper.make_node("Relu", ["x"], ["y"], alpha=1.0)  # Relu has no alpha
    with pytest.raises(compat.checker.ValidationError):
        ours.Backend.run_node(bad, [])
    with pytest.raises(onnx.checker.ValidationError):
        theirs.Backend.run_node(onnx.NodeProto.FromString(wirecodec.encode(bad)), [])
    assert compat.backend.base is ours and ours.Backend.supports_device("CUDA")


def _large_graph(helper: Any, make_tensor: Any) -> Any:
    tensors = [make_tensor("#W", "W", 1, (4, 4)), make_tensor("#b:1", "b", 1, (4,))]
    branch = helper.make_graph(
        [helper.make_node("Add", ["X", "b"], ["r"])],
        "then",
        [],
        [helper.make_tensor_value_info("r", 1, [4, 4])],
    )
    return helper.make_graph(
        [
            helper.make_node("MatMul", ["X", "W"], ["H"]),
            helper.make_node("If", ["c"], ["Y"], then_branch=branch, else_branch=branch),
        ],
        "g",
        [helper.make_tensor_value_info("X", 1, [4, 4]), helper.make_tensor_value_info("c", 9, [])],
        [helper.make_tensor_value_info("Y", 1, [4, 4])],
        tensors,
    )


@pytest.mark.parametrize("one_file", [False, True])
def test_model_container_saves_and_loads_as_onnx(tmp_path: Any, one_file: bool) -> None:
    import numpy as np
    import onnx.model_container as theirs

    from wirecodec import helper
    from wirecodec.onnx_compat import model_container as ours

    arrays = {"#W": np.arange(16, dtype=np.float32).reshape(4, 4), "#b:1": np.ones(4, dtype=np.float32)}
    mine = ours.make_large_model(
        _large_graph(helper, ours.make_large_tensor_proto),
        dict(arrays),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    real = theirs.make_large_model(
        _large_graph(onnx.helper, theirs.make_large_tensor_proto),
        dict(arrays),
        opset_imports=[onnx.helper.make_opsetid("", 18)],
    )
    for side, container in (("ours", mine), ("theirs", real)):
        (tmp_path / side).mkdir()
        container.save(str(tmp_path / side / "m.onnx"), all_tensors_to_one_file=one_file)
    files = {
        side: {p.name: p.read_bytes() for p in (tmp_path / side).iterdir()} for side in ("ours", "theirs")
    }
    assert files["ours"] == files["theirs"]
    again, their_again = ours.ModelContainer(), theirs.ModelContainer()
    again.load(str(tmp_path / "theirs" / "m.onnx"))
    their_again.load(str(tmp_path / "theirs" / "m.onnx"))
    assert sorted(again.large_initializers) == sorted(their_again.large_initializers)
    for key, array in their_again.large_initializers.items():
        np.testing.assert_array_equal(again[key], array)
    import wirecodec

    assert wirecodec.encode(again.model_proto) == their_again.model_proto.SerializeToString()
    with pytest.raises(ValueError, match="must start with '#'"):
        ours.ModelContainer().set_large_initializers({"W": arrays["#W"]})
    with pytest.raises(RuntimeError, match="empty"):
        ours.ModelContainer().model_proto  # noqa: B018


@pytest.mark.quick
@pytest.mark.parametrize(
    "path", ["TensorProto", "NodeProto", "TensorShapeProto.Dimension", "TypeProto.Tensor"]
)
def test_a_message_instance_answers_its_class_name_as_onnxs(path: str) -> None:
    # pytest names a parametrized value by its __name__: onnx's own test ids depend on it
    # (test_tree_ensemble_fails_if_invalid_attributes[...-TensorProto-TensorProto]).
    def made(module: Any) -> Any:
        cls = module
        for part in path.split("."):
            cls = getattr(cls, part)
        return cls()

    theirs, ours = made(onnx), made(compat)
    assert ours.__name__ == theirs.__name__ == path.rpartition(".")[2]
    assert type(ours).__name__ == type(theirs).__name__
    assert "__name__" not in [f.name for f, _ in ours.ListFields()]
