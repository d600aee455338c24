"""onnx_compat's schema registry at run time, ``reference.ops.load_op``,
``shape_inference.infer_function_output_types`` and ``tools.net_drawer``, against onnx.

onnx is the oracle where it has the name (skipped cleanly without it); ``net_drawer`` left
onnx in 1.19, so its drawing is compared with what onnx 1.18's module drew (its labels,
styles and edges, written out here).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from wirecodec.onnx_compat import checker as compat_checker
from wirecodec.onnx_compat import defs as compat_defs
from wirecodec.onnx_compat import helper as compat_helper
from wirecodec.onnx_compat import shape_inference as compat_inference

onnx = pytest.importorskip("onnx", reason="the onnx package is the reference (test extra)")


def _schema(
    defs: Any,
    helper: Any,
    name: str = "MyOp",
    version: int = 1,
    variadic: bool = False,
    domain: str = "my.domain",
) -> Any:
    """The same custom schema, built with onnx's constructor of ``defs`` (``variadic``: with a
    Variadic output of two or more values)."""
    s = defs.OpSchema
    outputs = [s.FormalParameter("Y", "T")]
    if variadic:
        outputs.append(
            s.FormalParameter("Z", "T", param_option=s.FormalParameterOption.Variadic, min_arity=2)
        )
    return s(
        name,
        domain,
        version,
        "doc",
        inputs=[
            s.FormalParameter("X", "T"),
            s.FormalParameter("B", "tensor(int64)", param_option=s.FormalParameterOption.Optional),
        ],
        outputs=outputs,
        type_constraints=[("T", ["tensor(float)", "tensor(double)"], "floats")],
        attributes=[
            s.Attribute("alpha", helper.make_attribute("alpha", 2.0), "a"),
            s.Attribute("mode", s.AttrType.STRING, "m"),
            s.Attribute("axes", s.AttrType.INTS, "x", required=False),
        ],
    )


def _shape(schema: Any) -> tuple[Any, ...]:
    """What code reads of a schema, comparable across onnx and wirecodec."""
    return (
        schema.name,
        schema.domain,
        schema.since_version,
        (schema.min_input, schema.max_input, schema.min_output, schema.max_output),
        [
            (p.name, p.type_str, int(p.option), p.is_homogeneous, p.min_arity, sorted(p.types))
            for p in schema.inputs
        ],
        [
            (p.name, p.type_str, int(p.option), p.is_homogeneous, p.min_arity, sorted(p.types))
            for p in schema.outputs
        ],
        {
            k: (int(a.type), a.required, a.default_value.SerializeToString(), a.description)
            for k, a in schema.attributes.items()
        },
        [(c.type_param_str, list(c.allowed_type_strs), c.description) for c in schema.type_constraints],
    )


@pytest.fixture
def registered() -> Iterator[None]:
    """MyOp registered in both registries for the test, removed after it. (Every registration
    is made on both sides: onnx's registry keeps the domain ranges it grew, and so does
    wirecodec's, so ``schema_version_map`` stays onnx's.)"""
    compat_defs.register_schema(_schema(compat_defs, compat_helper))
    onnx.defs.register_schema(_schema(onnx.defs, onnx.helper))
    try:
        yield
    finally:
        for defs in (compat_defs, onnx.defs):
            if defs.has("MyOp", domain="my.domain"):
                defs.deregister_schema("MyOp", 1, "my.domain")


@pytest.mark.quick
def test_a_constructed_schema_reads_as_onnxs() -> None:
    for variadic in (False, True):
        ours, theirs = (
            _schema(compat_defs, compat_helper, variadic=variadic),
            _schema(onnx.defs, onnx.helper, variadic=variadic),
        )
        assert _shape(ours) == _shape(theirs)


@pytest.mark.quick
def test_register_and_deregister_as_onnx(registered: None) -> None:
    ours, theirs = (
        compat_defs.get_schema("MyOp", 5, "my.domain"),
        onnx.defs.get_schema("MyOp", 5, "my.domain"),
    )
    assert _shape(ours) == _shape(theirs)
    assert compat_defs.has("MyOp", domain="my.domain") and onnx.defs.has("MyOp", domain="my.domain")
    for defs, helper in ((compat_defs, compat_helper), (onnx.defs, onnx.helper)):
        with pytest.raises(defs.SchemaError, match="already registered"):
            defs.register_schema(_schema(defs, helper))
        with pytest.raises(defs.SchemaError, match="unregistered schema"):
            defs.deregister_schema("MyOp", 5, "my.domain")  # only the exact version goes
        defs.register_schema(_schema(defs, helper, version=5))
        defs.register_schema(_schema(defs, helper, version=3))  # registered after a newer one
        versions = [defs.get_schema("MyOp", v, "my.domain").since_version for v in (1, 2, 3, 4, 5, 9)]
        assert versions == [1, 1, 3, 3, 5, 5]
        defs.deregister_schema("MyOp", 5, "my.domain")
        assert defs.get_schema("MyOp", 9, "my.domain").since_version == 3
        defs.deregister_schema("MyOp", 3, "my.domain")
        assert defs.get_schema("MyOp", 9, "my.domain").since_version == 1
        defs.deregister_schema("MyOp", 1, "my.domain")
        assert not defs.has("MyOp", domain="my.domain")
        with pytest.raises(defs.SchemaError):
            defs.get_schema("MyOp", 5, "my.domain")


def test_a_registered_builtin_version_wins_until_deregistered() -> None:
    # wirecodec alone: onnx's registry keeps 99 as the newest opset for the whole process
    from wirecodec.defs._registry import registry

    ranges = dict(registry().domain_versions)
    compat_defs.register_schema(compat_defs.OpSchema("Relu", "", 99))
    try:
        assert compat_defs.get_schema("Relu").since_version == 99
        assert compat_defs.schema_version_map()[""] == (1, 99)  # as onnx's, the range grows
    finally:
        compat_defs.deregister_schema("Relu", 99, "")
        registry().domain_versions.update(ranges)
    assert compat_defs.get_schema("Relu").since_version == 14


def _model(helper: Any, inputs: int = 1, elem: int = 1, attrs: dict[str, Any] | None = None) -> Any:
    node = helper.make_node(
        "MyOp", ["x"] * inputs, ["y"], domain="my.domain", **({"mode": "m"} if attrs is None else attrs)
    )
    graph = helper.make_graph(
        [node],
        "g",
        [helper.make_tensor_value_info("x", elem, [2])],
        [helper.make_tensor_value_info("y", elem, [2])],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("my.domain", 1)]
    )


def _verdicts(checker: Any, inference: Any, helper: Any) -> list[tuple[bool, bool]]:
    """(checked, inferred) for: a good node, two inputs (one more than the schema takes), the
    required attribute missing, an int32 input (T takes floats)."""
    cases = [_model(helper), _model(helper, inputs=3), _model(helper, attrs={}), _model(helper, elem=6)]
    found = []
    for model in cases:
        try:
            checker.check_model(model)
            checked = True
        except Exception:
            checked = False
        try:
            inference.infer_shapes(model, check_type=True, strict_mode=True)
            inferred = True
        except Exception:
            inferred = False
        found.append((checked, inferred))
    return found


def test_the_checker_and_inference_see_a_registered_schema_until_it_goes() -> None:
    unknown = [(True, True)] * 4  # a custom domain without a schema: nothing to check against
    assert _verdicts(compat_checker, compat_inference, compat_helper) == unknown
    assert _verdicts(onnx.checker, onnx.shape_inference, onnx.helper) == unknown
    compat_defs.register_schema(_schema(compat_defs, compat_helper))
    onnx.defs.register_schema(_schema(onnx.defs, onnx.helper))
    try:
        ours = _verdicts(compat_checker, compat_inference, compat_helper)
        theirs = _verdicts(onnx.checker, onnx.shape_inference, onnx.helper)
        assert [c for c, _ in ours] == [c for c, _ in theirs] == [True, False, False, True]
        # inference: the input types are judged by the registered constraints (onnx also
        # refuses the input count in inference; wirecodec's inference leaves counts to the checker)
        assert ours[3][1] is theirs[3][1] is False
        assert ours[0][1] is theirs[0][1] is True
    finally:
        compat_defs.deregister_schema("MyOp", 1, "my.domain")
        onnx.defs.deregister_schema("MyOp", 1, "my.domain")
    assert _verdicts(compat_checker, compat_inference, compat_helper) == unknown


def test_builtin_schemas_parameters_attributes_and_constraints_read_as_onnxs() -> None:
    theirs = {(s.domain, s.name, s.since_version): s for s in onnx.defs.get_all_schemas_with_history()}
    differ = []
    for schema in compat_defs.get_all_schemas_with_history():
        other = theirs[(schema.domain, schema.name, schema.since_version)]
        mine, real = _shape(schema), _shape(other)
        # wirecodec keeps no documentation text: descriptions are empty
        mine_attrs = {k: v[:3] for k, v in mine[6].items()}
        real_attrs = {k: v[:3] for k, v in real[6].items()}
        if (
            mine[:6] != real[:6]
            or mine_attrs != real_attrs
            or [c[:2] for c in mine[7]] != [c[:2] for c in real[7]]
        ):
            differ.append(f"{schema.domain}:{schema.name}:{schema.since_version}")
    assert not differ, differ[:10]


def _function(helper: Any, tensor: Any) -> Any:
    body = [
        helper.make_node("Add", ["a", "b"], ["t"]),
        helper.make_node("Transpose", ["t"], ["c"], perm=[1, 0]),
        helper.make_node("Identity", ["t"], ["u"]),
    ]
    cast = helper.make_node("Cast", ["u"], ["d"])
    cast.attribute.append(
        helper.make_attribute_ref("to", tensor.AttributeProto.INT if hasattr(tensor, "AttributeProto") else 2)
    )
    return helper.make_function(
        "my", "F", ["a", "b"], ["c", "d"], [*body, cast], [helper.make_opsetid("", 18)], ["to"]
    )


def _infer(module: Any, case: str) -> list[bytes] | str:
    helper = module.helper
    fn = _function(helper, module)
    a = helper.make_tensor_type_proto(1, [2, "N"])
    b = helper.make_tensor_type_proto(1, [1, "N"])
    cases = {
        "bound": ([a, b], [helper.make_attribute("to", 7)]),
        "to float16": ([b, a], [helper.make_attribute("to", 10)]),
        "missing input type": ([a], [helper.make_attribute("to", 7)]),
        "wrong input type": ([a, helper.make_tensor_type_proto(6, [2])], [helper.make_attribute("to", 7)]),
        "attribute unbound": ([a, b], []),
    }
    types, attributes = cases[case]
    try:
        return [
            t.SerializeToString()
            for t in module.shape_inference.infer_function_output_types(fn, types, attributes)
        ]
    except module.shape_inference.InferenceError:
        return "InferenceError"


@pytest.mark.parametrize(
    "case", ["bound", "to float16", "missing input type", "wrong input type", "attribute unbound"]
)
def test_infer_function_output_types_as_onnx(case: str) -> None:
    import wirecodec.onnx_compat as compat

    assert _infer(compat, case) == _infer(onnx, case)


@pytest.mark.quick
@pytest.mark.parametrize(
    ("op", "args", "attrs"),
    [
        ("Add", (np.array([1.0, 2.0], np.float32), np.array([3.0], np.float32)), {}),
        ("TopK", (np.array([3.0, 1.0, 2.0], np.float32), np.array([2], np.int64)), {"largest": 0}),
        ("Cast", (np.array([1.7, -2.2], np.float32),), {"to": 6}),
        ("Split", (np.arange(6, dtype=np.float32),), {"num_outputs": 3}),
    ],
)
def test_load_op_eval_gives_onnxs_values(op: str, args: tuple[Any, ...], attrs: dict[str, Any]) -> None:
    from onnx.reference.ops import load_op as theirs

    from wirecodec.onnx_compat.reference.ops import load_op as ours

    n_outputs = 3 if op == "Split" else None
    mine = ours("", op, 18).eval(*args, n_outputs=n_outputs, **attrs)
    real = theirs("", op, 18).eval(*args, n_outputs=n_outputs, **attrs)
    assert type(mine) is type(real)  # one output alone, several as a tuple
    mine, real = (
        (mine if isinstance(mine, tuple) else (mine,)),
        (real if isinstance(real, tuple) else (real,)),
    )
    assert len(mine) == len(real)
    for m, r in zip(mine, real, strict=True):
        assert m.dtype == r.dtype and np.array_equal(m, r)


def test_load_op_refuses_what_onnx_refuses() -> None:
    from onnx.reference.ops import load_op as theirs

    from wirecodec.onnx_compat.reference.ops import load_op as ours

    for load in (ours, theirs):
        with pytest.raises(ValueError, match="Domain must be"):
            load("ai.onnx", "Add", 18)
        with pytest.raises(Exception):  # noqa: B017  (onnx: NotImplementedError from a missing schema)
            load("", "NoSuchOp", 18)
    node = ours("", "Relu").make_node()
    assert list(node.input) == ["x0"] and list(node.output) == ["y0"]


def _graph() -> Any:
    h = compat_helper
    nodes = [
        h.make_node("Relu", ["x"], ["t"], name="first", doc_string='says "hi" <b>'),
        h.make_node("Neg", ["t"], ["t"]),
        h.make_node("Add", ["t", "x"], ["y"]),
    ]
    return h.make_graph(nodes, "g", [], [])


def test_net_drawer_draws_as_onnx_118() -> None:
    pytest.importorskip("pydot", reason="net_drawer draws with pydot (test extra)")
    from wirecodec.onnx_compat.tools import net_drawer

    dot = net_drawer.GetPydotGraph(_graph(), name="g", rankdir="TB", embed_docstring=True)
    assert net_drawer.GetPydotGraph is net_drawer.get_pydot_graph
    boxes = [n for n in dot.get_nodes() if n.get("shape") == "box"]
    assert [n.get_name().strip('"') for n in boxes] == [
        "first/Relu (op#0)\n input0 x\n output0 t",
        "Neg (op#1)\n input0 t\n output0 t",
        "Add (op#2)\n input0 t\n input1 x\n output0 y",
    ]
    assert boxes[0].get("color") == "#0F9D58" and boxes[0].get("fontcolor") == "#FFFFFF"
    assert boxes[0].get("URL") == "javascript:alert('says \\'hi\\' b')"
    edges = [(e.get_source(), e.get_destination()) for e in dot.get_edges()]
    names = [b.get_name() for b in boxes]
    # t is written twice: Neg reads t0 and writes t1, Add reads t1
    assert edges == [
        ('"x0"', names[0]),
        (names[0], '"t0"'),
        ('"t0"', names[1]),
        (names[1], '"t1"'),
        ('"t1"', names[2]),
        ('"x0"', names[2]),
        (names[2], '"y0"'),
    ]
    assert dot.get_rankdir() == "TB"
    octagons = {n.get_name(): n.get("label") for n in dot.get_nodes() if n.get("shape") == "octagon"}
    assert octagons['"t1"'] == '"t"'


@pytest.mark.quick
def test_net_drawer_without_pydot_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from wirecodec.errors import WireCodecError
    from wirecodec.onnx_compat.tools import net_drawer

    monkeypatch.setitem(sys.modules, "pydot", None)
    with pytest.raises(net_drawer.PydotMissingError, match="pydot") as caught:
        net_drawer.GetPydotGraph(_graph())
    assert isinstance(caught.value, (WireCodecError, ModuleNotFoundError))
    assert caught.value.name == "pydot"


def test_registration_grows_the_domain_range_as_onnxs() -> None:
    from onnx.onnx_cpp2py_export.defs import schema_version_map

    domain = "range.test"  # a domain of this test alone: onnx's registry keeps ranges for good
    for version in (7, 3, 9):
        compat_defs.register_schema(_schema(compat_defs, compat_helper, "RangeOp", version, domain=domain))
        onnx.defs.register_schema(_schema(onnx.defs, onnx.helper, "RangeOp", version, domain=domain))
        assert compat_defs.schema_version_map()[domain] == schema_version_map()[domain]
    for version in (7, 3, 9):
        compat_defs.deregister_schema("RangeOp", version, domain)
        onnx.defs.deregister_schema("RangeOp", version, domain)
    assert compat_defs.schema_version_map()[domain] == schema_version_map()[domain] == (3, 9)


@pytest.mark.quick
def test_every_schema_lists_a_registered_one_until_it_goes() -> None:
    before = compat_defs.get_all_schemas_with_history()
    assert (
        before == compat_defs.get_all_schemas_with_history()
        and before is not compat_defs.get_all_schemas_with_history()
    )
    mine = _schema(compat_defs, compat_helper, "ListedOp", 1, domain="listed.test")
    compat_defs.register_schema(mine)
    onnx.defs.register_schema(_schema(onnx.defs, onnx.helper, "ListedOp", 1, domain="listed.test"))
    try:
        assert mine in compat_defs.get_all_schemas_with_history()
        assert len(compat_defs.get_all_schemas_with_history()) == len(before) + 1
        assert "ListedOp" in {s.name for s in onnx.defs.get_all_schemas_with_history()}
    finally:
        compat_defs.deregister_schema("ListedOp", 1, "listed.test")
        onnx.defs.deregister_schema("ListedOp", 1, "listed.test")
    assert compat_defs.get_all_schemas_with_history() == before
