"""The IR checker: no false positives on real models, one seeded violation per rule, onnx's verdicts.

Every rule has a seed: take a valid model (from onnx's backend corpus, or built with
onnx.helper where the corpus has no such feature), break exactly one thing, and require
exactly that violation at exactly that path. The same broken models go to
``onnx.checker.check_model``: where it has the rule, it must reject them too.
"""

from __future__ import annotations

import copy
import dataclasses
import pathlib
import random
from collections.abc import Callable

import pytest

from schema_dsl.onnx import (
    AttributeProto,
    ModelProto,
    NodeProto,
    OperatorSetIdProto,
    StringStringEntryProto,
    TensorProto,
    ValueInfoProto,
)
from tests.support import check_models
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, require_onnx
from wirecodec import CheckError, WireCodecError, decode, encode, load
from wirecodec.checker import RULES, Violation, check, inference, schemas, violations
from wirecodec.examples.build_mlp import build

Mutation = Callable[[ModelProto], None]


@dataclasses.dataclass(frozen=True)
class Seed:
    rule: str
    base: str
    path: str
    mutate: Mutation
    full: bool = False

    @property
    def id(self) -> str:
        return f"{self.rule}:{self.mutate.__name__}"


# -- the mutations: each breaks exactly one thing -----------------------------------------------


def duplicate_graph_input(m: ModelProto) -> None:
    m.graph.input.append(copy.deepcopy(m.graph.input[0]))


def redefine_in_loop_body(m: ModelProto) -> None:
    m.graph.node[0].attribute[0].g.node.append(NodeProto(op_type="Identity", input=["y_in"], output=["x"]))


def shadow_outer_name(m: ModelProto) -> None:
    m.graph.node[0].attribute[0].g.node.append(
        NodeProto(op_type="Identity", input=["y_in"], output=["trip_count"])
    )


def subgraph_input_as_initializer(m: ModelProto) -> None:
    tensor = TensorProto(name="y_in", dims=[1], data_type=TensorProto.FLOAT, float_data=[0.0])
    m.graph.node[0].attribute[0].g.initializer.append(tensor)


def swap_first_nodes(m: ModelProto) -> None:
    m.graph.node.insert(0, m.graph.node.pop(1))


def use_undefined_value(m: ModelProto) -> None:
    m.graph.node[1].input[1] = "W"


def output_undefined_value(m: ModelProto) -> None:
    m.graph.output[0].name = "nothing"


def duplicate_initializer(m: ModelProto) -> None:
    m.graph.initializer.append(copy.deepcopy(m.graph.initializer[0]))


def initializer_outside_inputs(m: ModelProto) -> None:
    m.graph.initializer.append(
        TensorProto(name="unused", dims=[1], data_type=TensorProto.BOOL, int32_data=[1])
    )


def duplicate_value_info(m: ModelProto) -> None:
    body = m.graph.node[0].attribute[0].g
    info = ValueInfoProto(name="x")
    body.value_info.extend([info, copy.deepcopy(info)])


def drop_ir_version(m: ModelProto) -> None:
    m.ClearField("ir_version")


def drop_graph(m: ModelProto) -> None:
    m.ClearField("graph")


def unname_subgraph(m: ModelProto) -> None:
    m.graph.node[0].attribute[1].g.name = ""


def drop_op_type(m: ModelProto) -> None:
    m.graph.node[0].op_type = ""


def node_without_outputs(m: ModelProto) -> None:
    m.graph.node.append(NodeProto(op_type="Identity", input=["X"]))


def unnamed_value_info(m: ModelProto) -> None:
    m.graph.value_info.append(ValueInfoProto())


def unname_initializer(m: ModelProto) -> None:
    m.graph.initializer[0].name = ""


def drop_output_shape(m: ModelProto) -> None:
    m.graph.output[0].type.tensor_type.ClearField("shape")


def undefined_elem_type(m: ModelProto) -> None:
    m.graph.input[0].type.tensor_type.elem_type = TensorProto.UNDEFINED


def future_ir_version(m: ModelProto) -> None:
    m.ir_version = 99


def node_metadata_before_ir10(m: ModelProto) -> None:
    m.graph.node[0].metadata_props.append(StringStringEntryProto(key="k", value="v"))


def drop_opset_imports(m: ModelProto) -> None:
    m.ClearField("opset_import")


def opset_version_zero(m: ModelProto) -> None:
    m.opset_import[0].version = 0


def import_default_domain_twice(m: ModelProto) -> None:
    m.opset_import.append(OperatorSetIdProto(domain="ai.onnx", version=11))


def node_in_unimported_domain(m: ModelProto) -> None:
    m.graph.node[0].attribute[0].g.node[3].domain = "com.example"


def _unsqueeze_axes(m: ModelProto) -> AttributeProto:
    attribute: AttributeProto = m.graph.node[0].attribute[0].g.node[4].attribute[0]
    return attribute


def unname_attribute(m: ModelProto) -> None:
    _unsqueeze_axes(m).name = ""


def duplicate_attribute(m: ModelProto) -> None:
    m.graph.node[0].attribute[0].g.node[4].attribute.append(copy.deepcopy(_unsqueeze_axes(m)))


def drop_attribute_type(m: ModelProto) -> None:
    _unsqueeze_axes(m).ClearField("type")


def second_attribute_value(m: ModelProto) -> None:
    _unsqueeze_axes(m).i = 3


def reference_undeclared_attribute(m: ModelProto) -> None:
    m.functions[0].node[0].attribute[0].ref_attr_name = "gamma"


def reference_outside_function(m: ModelProto) -> None:
    m.graph.node[0].attribute.append(
        AttributeProto(name="beta", ref_attr_name="beta", type=AttributeProto.FLOAT)
    )


def _constant_tensor(m: ModelProto) -> TensorProto:
    tensor: TensorProto = m.graph.node[0].attribute[0].t
    return tensor


def undefined_data_type(m: ModelProto) -> None:
    _constant_tensor(m).data_type = TensorProto.UNDEFINED


def negative_dim(m: ModelProto) -> None:
    _constant_tensor(m).dims[0] = -5


def second_data_field(m: ModelProto) -> None:
    _constant_tensor(m).int64_data.append(1)


def data_in_wrong_field(m: ModelProto) -> None:
    tensor = _constant_tensor(m)
    tensor.double_data.extend(tensor.float_data)
    tensor.ClearField("float_data")


def strings_in_raw_data(m: ModelProto) -> None:
    keys = m.graph.node[0].attribute[1].t
    assert keys.data_type == TensorProto.STRING
    keys.raw_data = b"abc"
    keys.ClearField("string_data")


def one_value_short(m: ModelProto) -> None:
    _constant_tensor(m).float_data.pop()


def _external_entry(m: ModelProto, key: str) -> StringStringEntryProto:
    entry: StringStringEntryProto = next(e for e in m.graph.initializer[0].external_data if e.key == key)
    return entry


def clear_external_entries(m: ModelProto) -> None:
    m.graph.initializer[0].ClearField("external_data")


def unknown_external_key(m: ModelProto) -> None:
    m.graph.initializer[0].external_data.append(StringStringEntryProto(key="colour", value="blue"))


def offset_not_a_number(m: ModelProto) -> None:
    _external_entry(m, "offset").value = "12a"


def external_and_inline(m: ModelProto) -> None:
    m.graph.initializer[0].raw_data = bytes(256)


def location_leaves_directory(m: ModelProto) -> None:
    _external_entry(m, "location").value = "../model.onnx.data"


def length_too_long(m: ModelProto) -> None:
    _external_entry(m, "length").value = "260"


def missing_data_file(m: ModelProto) -> None:
    _external_entry(m, "location").value = "missing.data"


def offset_past_the_end(m: ModelProto) -> None:
    _external_entry(m, "offset").value = "100000"


def wrong_checksum(m: ModelProto) -> None:
    m.graph.initializer[0].external_data.append(StringStringEntryProto(key="checksum", value="0" * 40))


def function_reads_undefined_value(m: ModelProto) -> None:
    m.functions[0].node[1].input[1] = "scale"


def function_output_undefined(m: ModelProto) -> None:
    m.functions[0].output[0] = "z"


def unname_function(m: ModelProto) -> None:
    m.functions[0].name = ""


def duplicate_function(m: ModelProto) -> None:
    m.functions.append(copy.deepcopy(m.functions[0]))


def attribute_declared_twice(m: ModelProto) -> None:
    m.functions[0].attribute.append("alpha")


def recursive_function(m: ModelProto) -> None:
    m.functions[0].node.append(NodeProto(op_type="Scale", domain="custom", input=["y"], output=["again"]))


def values_not_1d(m: ModelProto) -> None:
    m.graph.sparse_initializer[0].values.dims[:] = [3, 1]


def negative_dense_dim(m: ModelProto) -> None:
    m.graph.sparse_initializer[0].dims[0] = -2


def indices_wrong_shape(m: ModelProto) -> None:
    m.graph.sparse_initializer[0].indices.dims[:] = [1, 3]


def linear_index_out_of_bounds(m: ModelProto) -> None:
    m.graph.sparse_initializer[0].indices.int64_data[2] = 9


def linear_indices_unsorted(m: ModelProto) -> None:
    m.graph.sparse_initializer[0].indices.int64_data[:] = [1, 6, 4]


def coordinates_out_of_bounds(m: ModelProto) -> None:
    m.graph.node[0].attribute[0].sparse_tensor.indices.int64_data[5] = 4


def coordinates_unsorted(m: ModelProto) -> None:
    m.graph.node[0].attribute[0].sparse_tensor.indices.int64_data[:] = [1, 0, 0, 1, 1, 3]


def duplicate_metadata_key(m: ModelProto) -> None:
    m.metadata_props.add(key="title", value="a")
    m.metadata_props.add(key="title", value="b")


def float6_padding_bits_set(m: ModelProto) -> None:
    m.ir_version = 14  # the IR version of the 6-bit types
    m.graph.initializer.insert(
        0, TensorProto(name="f6", data_type=TensorProto.FLOAT6E2M3, dims=[1], raw_data=b"\x40")
    )


_LOOP = "graph.node[0].attribute[0].g"
_AXES = f"{_LOOP}.node[4].attribute"
_CONST = "graph.node[0].attribute[0].t"
_W1 = "graph.initializer[0].external_data"
_SPARSE = "graph.sparse_initializer[0]"

SEEDS = [
    Seed("ssa", "sequence", "graph.input[5].name", duplicate_graph_input),
    Seed("ssa", "loop", f"{_LOOP}.node[9].output[0]", redefine_in_loop_body),
    Seed("ssa-outer-scope", "loop", f"{_LOOP}.node[9].output[0]", shadow_outer_name),
    Seed("subgraph-input-initializer", "loop", f"{_LOOP}.initializer[0].name", subgraph_input_as_initializer),
    Seed("topological-order", "sequence", "graph.node[0].input[0]", swap_first_nodes),
    Seed("undefined-input", "sequence", "graph.node[1].input[1]", use_undefined_value),
    Seed("undefined-output", "if", "graph.output[0].name", output_undefined_value),
    Seed("undefined-input", "function", "functions[0].node[1].input[1]", function_reads_undefined_value),
    Seed("undefined-output", "function", "functions[0].output[0]", function_output_undefined),
    Seed("initializer-unique", "sequence", "graph.initializer[2].name", duplicate_initializer),
    Seed("initializer-not-input", "or3", "graph.initializer[0].name", initializer_outside_inputs),
    Seed("value-info-unique", "loop", f"{_LOOP}.value_info[1].name", duplicate_value_info),
    Seed("model-ir-version", "if", "ir_version", drop_ir_version),
    Seed("metadata-unique", "if", "metadata_props[1].key", duplicate_metadata_key),
    Seed("tensor-bits", "sequence", "graph.initializer[0].raw_data", float6_padding_bits_set),
    Seed("model-graph", "if", "graph", drop_graph),
    Seed("graph-name", "if", "graph.node[0].attribute[1].g.name", unname_subgraph),
    Seed("node-op-type", "sequence", "graph.node[0].op_type", drop_op_type),
    Seed("node-output", "sequence", "graph.node[5].output", node_without_outputs),
    Seed("value-info-name", "if", "graph.value_info[0].name", unnamed_value_info),
    Seed("initializer-name", "sequence", "graph.initializer[0].name", unname_initializer),
    Seed("io-type", "if", "graph.output[0].type.tensor_type.shape", drop_output_shape),
    Seed("type-elem-type", "if", "graph.input[0].type.tensor_type.elem_type", undefined_elem_type),
    Seed("ir-version-known", "if", "ir_version", future_ir_version),
    Seed("ir-version-feature", "if", "graph.node[0].metadata_props", node_metadata_before_ir10),
    Seed("opset-import-required", "if", "opset_import", drop_opset_imports),
    Seed("opset-version", "if", "opset_import[0].version", opset_version_zero),
    Seed("opset-duplicate-domain", "if", "opset_import[1].domain", import_default_domain_twice),
    Seed("opset-undeclared-domain", "loop", f"{_LOOP}.node[3].domain", node_in_unimported_domain),
    Seed("attribute-name", "loop", f"{_AXES}[0].name", unname_attribute),
    Seed("attribute-unique", "loop", f"{_AXES}[1].name", duplicate_attribute),
    Seed("attribute-type", "loop", f"{_AXES}[0].type", drop_attribute_type),
    Seed("attribute-value", "loop", f"{_AXES}[0].i", second_attribute_value),
    Seed(
        "attribute-ref",
        "function",
        "functions[0].node[0].attribute[0].ref_attr_name",
        reference_undeclared_attribute,
    ),
    Seed("attribute-ref", "function", "graph.node[0].attribute[1].ref_attr_name", reference_outside_function),
    Seed("tensor-data-type", "constant", f"{_CONST}.data_type", undefined_data_type),
    Seed("tensor-dims", "constant", f"{_CONST}.dims", negative_dim),
    Seed("tensor-data-field", "constant", f"{_CONST}.int64_data", second_data_field),
    Seed("tensor-data-field", "constant", f"{_CONST}.double_data", data_in_wrong_field),
    Seed("tensor-data-field", "label_encoder", "graph.node[0].attribute[1].t.raw_data", strings_in_raw_data),
    Seed("tensor-size", "constant", f"{_CONST}.float_data", one_value_short),
    Seed("external-flag", "external", _W1, clear_external_entries),
    Seed("external-keys", "external", f"{_W1}[3].key", unknown_external_key),
    Seed("external-number", "external", f"{_W1}[1].value", offset_not_a_number),
    Seed("external-inline-data", "external", "graph.initializer[0].raw_data", external_and_inline),
    Seed("external-path", "external", f"{_W1}[0].value", location_leaves_directory),
    Seed("external-length", "external", f"{_W1}[2].value", length_too_long),
    Seed("external-file", "external", f"{_W1}[0].value", missing_data_file),
    Seed("external-range", "external", f"{_W1}[0].value", offset_past_the_end),
    Seed("external-checksum", "external", f"{_W1}[3].value", wrong_checksum, full=True),
    Seed("function-name", "function", "functions[0].name", unname_function),
    Seed("function-unique", "function", "functions[1].name", duplicate_function),
    Seed("function-attribute", "function", "functions[0].attribute_proto[0].name", attribute_declared_twice),
    Seed("function-recursion", "function", "functions[0].node[2]", recursive_function),
    Seed("sparse-values", "sparse", f"{_SPARSE}.values.dims", values_not_1d),
    Seed("sparse-dims", "sparse", f"{_SPARSE}.dims", negative_dense_dim),
    Seed("sparse-indices-shape", "sparse", f"{_SPARSE}.indices.dims", indices_wrong_shape),
    Seed("sparse-index-bounds", "sparse", f"{_SPARSE}.indices", linear_index_out_of_bounds),
    Seed(
        "sparse-index-bounds",
        "sparse",
        "graph.node[0].attribute[0].sparse_tensor.indices",
        coordinates_out_of_bounds,
    ),
    Seed("sparse-index-order", "sparse", f"{_SPARSE}.indices", linear_indices_unsorted),
    Seed(
        "sparse-index-order",
        "sparse",
        "graph.node[0].attribute[0].sparse_tensor.indices",
        coordinates_unsorted,
    ),
]


# -- fixtures -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return backend_corpus(cache)


@pytest.fixture(scope="module")
def bases(corpus: list[CorpusItem]) -> dict[str, bytes]:
    found = check_models.corpus_bases(corpus)
    found["or3"] = next(item.data for item in corpus if item.name == "node/test_or3d/model.onnx")
    found["function"] = check_models.function_model()
    found["sparse"] = check_models.sparse_model()
    return found


@dataclasses.dataclass
class Broken:
    """A seeded model, and where its external data lives (if it has any)."""

    model: ModelProto
    folder: pathlib.Path | None


def _broken(seed: Seed, bases: dict[str, bytes], tmp_path: pathlib.Path) -> Broken:
    if seed.base == "external":
        path = check_models.external_model(tmp_path)
        model = load(path, load_external_data=False)
        seed.mutate(model)
        return Broken(model, tmp_path)
    model = decode(ModelProto, bases[seed.base])
    seed.mutate(model)
    return Broken(model, None)


# -- 1. no false positives -----------------------------------------------------------------------


def test_every_backend_corpus_model_passes(corpus: list[CorpusItem]) -> None:
    onnx = require_onnx()
    models = [item for item in corpus if item.message == "ModelProto"]
    assert len(models) > 1500
    failures = {}
    for item in models:
        # onnx's own checker accepts every one of them (so there is nothing to explain here).
        onnx.checker.check_model(onnx.ModelProto.FromString(item.data))
        found = violations(decode(ModelProto, item.data))
        if found:
            failures[item.name] = [str(v) for v in found]
    assert not failures, f"{len(failures)} corpus models rejected, e.g. {list(failures.items())[:3]}"


def test_every_pytorch_export_passes(pytorch_exports: list[Export]) -> None:
    assert len(pytorch_exports) >= 5
    for export in pytorch_exports:
        check(decode(ModelProto, export.data))


def test_every_base_is_valid_for_onnx_and_for_us(bases: dict[str, bytes], tmp_path: pathlib.Path) -> None:
    onnx = require_onnx()
    for name, data in bases.items():
        onnx.checker.check_model(onnx.ModelProto.FromString(data), full_check=True)
        assert violations(decode(ModelProto, data)) == [], name
    path = check_models.external_model(tmp_path)
    onnx.checker.check_model(str(path), full_check=True)
    assert violations(path, full=True) == []


def test_a_saved_external_model_checks_by_path_and_loaded(tmp_path: pathlib.Path) -> None:
    path = check_models.external_model(tmp_path)
    check(path, full=True)
    check(load(path))  # data resolved into raw_data: the tensor rules see real sizes
    check(load(path, load_external_data=False), base_dir=tmp_path, full=True)


# -- 2. one seeded violation per rule ------------------------------------------------------------


def test_every_rule_has_a_seed() -> None:
    # The schema rules are seeded in tests/differential/test_checker_schemas.py, the full
    # check's inference in tests/differential/test_check_verdicts.py (60 rows against onnx).
    seeded_elsewhere = {rule.id for rule in (*schemas.RULES, *inference.RULES)}
    assert {seed.rule for seed in SEEDS} == set(RULES) - seeded_elsewhere


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.id)
def test_seeded_violation_is_found_exactly(
    seed: Seed, bases: dict[str, bytes], tmp_path: pathlib.Path
) -> None:
    broken = _broken(seed, bases, tmp_path)
    found = violations(broken.model, base_dir=broken.folder, full=seed.full, ir_only=True)
    assert [(v.rule, v.path) for v in found] == [(seed.rule, seed.path)], [str(v) for v in found]
    with pytest.raises(CheckError) as caught:
        check(broken.model, base_dir=broken.folder, full=seed.full, ir_only=True)
    assert caught.value.violations == found


# -- 3. onnx's checker agrees where it has the rule -----------------------------------------------

# Seeds onnx.checker.check_model (full_check=False, onnx 1.23) accepts, and why: it lacks the rule.
ONNX_SILENT: dict[str, str] = {
    "subgraph-input-initializer:subgraph_input_as_initializer": "left to shape inference (full_check=True)",
    "value-info-unique:duplicate_value_info": "value_info is read only by inference; duplicates pass",
    "value-info-name:unnamed_value_info": "only graph inputs and outputs must be named",
    "type-elem-type:undefined_elem_type": "types are not validated; full_check=True fails in inference",
    "ir-version-feature:node_metadata_before_ir10": "no table of which IR version introduced which field",
    "opset-duplicate-domain:import_default_domain_twice": "'' and 'ai.onnx' are not seen as one domain",
    "attribute-ref:reference_undeclared_attribute": "resolved only by inference (full_check=True)",
    "attribute-ref:reference_outside_function": "a reference in the main graph passes",
    "undefined-output:function_output_undefined": "function outputs are not looked up",
    "external-keys:unknown_external_key": "unknown keys pass (onnx.load refuses them)",
    "external-number:offset_not_a_number": "offset/length are not parsed (onnx.load fails)",
    "external-length:length_too_long": "the byte range is not compared with dims",
    "external-range:offset_past_the_end": "the byte range is not compared with the file's size",
    "external-checksum:wrong_checksum": "checksums are never verified",
    "function-attribute:attribute_declared_twice": "declared in both lists passes",
}


def test_onnx_silences_name_real_seeds() -> None:
    assert set(ONNX_SILENT) <= {seed.id for seed in SEEDS}


@pytest.mark.parametrize("seed", SEEDS, ids=lambda s: s.id)
def test_onnx_agrees_on_seeded_violations(
    seed: Seed, bases: dict[str, bytes], tmp_path: pathlib.Path
) -> None:
    onnx = require_onnx()
    broken = _broken(seed, bases, tmp_path)
    data = encode(broken.model)
    try:
        if broken.folder is not None:
            path = broken.folder / "broken.onnx"
            path.write_bytes(data)
            onnx.checker.check_model(str(path))
        else:
            onnx.checker.check_model(onnx.ModelProto.FromString(data))
    except onnx.checker.ValidationError:
        rejected = True
    else:
        rejected = False
    assert rejected == (seed.id not in ONNX_SILENT), ONNX_SILENT.get(seed.id, "onnx should reject this too")


# -- 4. every violation is reported --------------------------------------------------------------


def test_several_violations_are_all_reported(bases: dict[str, bytes]) -> None:
    model = decode(ModelProto, bases["loop"])
    chosen = [
        s
        for s in SEEDS
        if s.base == "loop" and s.mutate in (unname_attribute, node_in_unimported_domain, shadow_outer_name)
    ]
    for seed in chosen:
        seed.mutate(model)
    model.ClearField("ir_version")
    with pytest.raises(CheckError) as caught:
        check(model, ir_only=True)
    expected = {(s.rule, s.path) for s in chosen} | {("model-ir-version", "ir_version")}
    assert {(v.rule, v.path) for v in caught.value.violations} == expected
    message = str(caught.value)
    assert "in 4 places" in message
    assert all(v.path in message and f"[{v.rule}]" in message for v in caught.value.violations)


def test_check_error_is_a_value_error_of_ours() -> None:
    error = CheckError([Violation("graph.name", "graph-name", "the graph has no name")])
    assert isinstance(error, WireCodecError) and isinstance(error, ValueError)
    assert str(error).endswith("graph.name: the graph has no name [graph-name]")


# -- where onnx is stricter than the IR ----------------------------------------------------------


@pytest.mark.parametrize(
    ("indices_type", "dims", "onnx_says"),
    [
        # The IR asks for integer indices; onnx's checker takes int64 only.
        (TensorProto.INT32, [2, 2], "must have INT64 type"),
        # A dense dimension of 0 is a valid shape (no elements); onnx wants every one positive.
        (TensorProto.INT64, [0, 2], "dimensions are not positive"),
    ],
)
def test_onnx_is_stricter_on_sparse_tensors(indices_type: int, dims: list[int], onnx_says: str) -> None:
    onnx = require_onnx()
    model = decode(ModelProto, check_models.sparse_model())
    nnz = 2 if dims[0] else 0
    sparse = model.graph.sparse_initializer[0]
    sparse.dims[:] = dims
    sparse.values.dims[:] = [nnz]
    sparse.values.float_data[:] = [1.0, 2.0][:nnz]
    field = "int32_data" if indices_type == TensorProto.INT32 else "int64_data"
    sparse.indices = TensorProto(
        name="S_indices", dims=[nnz], data_type=indices_type, **{field: [0, 3][:nnz]}
    )
    output_shape = model.graph.output[1].type.sparse_tensor_type.shape
    for dim, size in zip(output_shape.dim, dims, strict=True):
        dim.dim_value = size
    assert violations(model) == []
    with pytest.raises(onnx.checker.ValidationError, match=onnx_says):
        onnx.checker.check_model(onnx.ModelProto.FromString(encode(model)))


# -- training graphs, docs -----------------------------------------------------------------------


def test_a_training_algorithm_continues_the_inference_graph() -> None:
    onnx = require_onnx()
    helper = onnx.helper
    # The algorithm reads the inference graph's output 'y' and defines a new name: valid.
    algorithm = helper.make_graph([helper.make_node("Add", ["y", "y"], ["z"])], "step", [], [])
    model = onnx.ModelProto.FromString(encode(build()))
    model.training_info.append(helper.make_training_info(algorithm, [], None, []))
    onnx.checker.check_model(model)
    ours = decode(ModelProto, model.SerializeToString())
    assert violations(ours) == []
    # Redefining a name of the inference graph breaks single assignment across the two.
    ours.training_info[0].algorithm.node[0].output[0] = "h"
    assert [(v.rule, v.path) for v in violations(ours)] == [
        ("ssa-outer-scope", "training_info[0].algorithm.node[0].output[0]")
    ]


def test_the_docs_list_every_rule_with_its_source() -> None:
    page = pathlib.Path(__file__).parents[3] / "docs" / "checker.md"
    rows = [line.split(" | ") for line in page.read_text().splitlines() if line.startswith("| `")]
    listed = {row[0].strip("| `"): row[1] for row in rows}
    assert listed == {rule.id: rule.source for rule in RULES.values()}


def test_mangled_models_get_violations_never_a_crash(bases: dict[str, bytes]) -> None:
    """Bytes flipped at random: whatever still decodes is checked without any exception escaping."""
    rng = random.Random(20261123)
    checked = flagged = 0
    for _ in range(1500):
        data = bytearray(rng.choice(list(bases.values())))
        for _ in range(rng.randint(1, 3)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        try:
            model = decode(ModelProto, bytes(data))
        except WireCodecError:
            continue
        checked += 1
        flagged += bool(violations(model))
    assert checked > 300 and flagged > checked // 10, (checked, flagged)
