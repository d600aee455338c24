"""The checker's verdicts equal ``onnx.checker.check_model``'s, on the corpus and on seeded schema violations.

Each seed breaks (or only seems to break) one schema rule in a backend-corpus model,
with onnx's own protobuf API: an unknown operator, an unknown or wrongly typed
attribute, too many or too few inputs and outputs, an omitted input, a missing required
attribute, the default opset lowered or changed, the 'ai.onnx' domain spelled out, an
experimental op; deprecated operators and function imports come from small built models.
Every model onnx refuses, we refuse; every model onnx accepts, we accept (no false
positives) — the seeds include changes onnx accepts (an attribute named ``__x``, extra
inputs of a variadic op, a lower opset where the ops still exist).
"""

from __future__ import annotations

import pathlib
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from schema_dsl.onnx import ModelProto
from tests.support import check_models
from tests.support.exports import Export
from tests.support.reference import CorpusItem, backend_corpus, require_onnx
from wirecodec import decode
from wirecodec.checker import Violation, schemas, skipped_domains, violations

PER_KIND = 90  # corpus models per kind of seed (a fixed random sample: hundreds of cases in all)

Mutation = Callable[[Any, random.Random], bool]  # changes an onnx.ModelProto; False: nothing to change


@pytest.fixture(scope="module")
def corpus(request: pytest.FixtureRequest) -> list[CorpusItem]:
    require_onnx()
    cache_plugin = getattr(request.config, "cache", None)  # absent under -p no:cacheprovider
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    seen: set[bytes] = set()
    models = []
    for item in backend_corpus(cache):
        if item.message == "ModelProto" and item.data not in seen:
            seen.add(item.data)
            models.append(item)
    return models


def onnx_refusal(data: bytes) -> str | None:
    """onnx's checker's message for the model, or None when it accepts it."""
    onnx = require_onnx()
    try:
        onnx.checker.check_model(onnx.ModelProto.FromString(data))
    except onnx.checker.ValidationError as error:
        return str(error).split("\n")[0]
    return None


def ours(data: bytes) -> list[Violation]:
    return violations(decode(ModelProto, data))


@dataclass
class Outcome:
    name: str
    onnx_says: str | None
    we_say: list[Violation]

    @property
    def agree(self) -> bool:
        return (self.onnx_says is None) == (not self.we_say)

    def __str__(self) -> str:
        return (
            f"{self.name}: onnx {self.onnx_says or 'accepts'}; we {[str(v) for v in self.we_say] or 'accept'}"
        )


def judge(name: str, data: bytes) -> Outcome:
    return Outcome(name, onnx_refusal(data), ours(data))


# -- 1. the corpus: both accept every model ---------------------------------------------------------


def test_verdicts_equal_onnx_on_every_corpus_model(corpus: list[CorpusItem]) -> None:
    outcomes = [judge(item.name, item.data) for item in corpus]
    assert len(outcomes) > 1000
    disagree = [str(o) for o in outcomes if not o.agree]
    assert not disagree, disagree[:5]
    # The corpus is all valid: the agreement above is "both accept", and nothing was skipped.
    assert all(o.onnx_says is None for o in outcomes)


def test_corpus_models_use_no_domain_the_schemas_skip(corpus: list[CorpusItem]) -> None:
    for item in corpus:
        assert skipped_domains(decode(ModelProto, item.data)) == {}, item.name


def _installed_models() -> list[pathlib.Path]:
    """The .onnx files onnx and onnxruntime ship beyond the corpus: light zoo models, PyTorch-converted
    models and onnxruntime's datasets (the "installed" models of bench/models_people_have.py)."""
    onnx = require_onnx()
    site = pathlib.Path(onnx.__file__).parent.parent
    found = [
        path
        for path in sorted((site / "onnx").rglob("*.onnx"))
        if not {"node", "simple"} & set(path.relative_to(site / "onnx").parts)
    ]
    return found + sorted((site / "onnxruntime").rglob("*.onnx"))


def test_verdicts_equal_onnx_on_the_models_onnx_and_onnxruntime_ship() -> None:
    outcomes = [judge(str(path), path.read_bytes()) for path in _installed_models()]
    assert len(outcomes) >= 100
    disagree = [str(o) for o in outcomes if not o.agree]
    assert not disagree, disagree[:4]


def test_verdicts_equal_onnx_on_pytorch_exports(pytorch_exports: list[Export]) -> None:
    assert len(pytorch_exports) >= 5
    outcomes = [judge(export.name, export.data) for export in pytorch_exports]
    assert all(o.agree and o.onnx_says is None for o in outcomes), [str(o) for o in outcomes]


# -- 2. seeded violations over the corpus ----------------------------------------------------------


def _nodes(model: Any) -> list[Any]:
    """The main graph's nodes (subgraphs are left alone: their scopes make names harder to reuse)."""
    return list(model.graph.node)


def _pick(model: Any, rng: random.Random, want: Callable[[Any], bool] = lambda node: True) -> Any | None:
    nodes = [node for node in _nodes(model) if want(node)]
    return rng.choice(nodes) if nodes else None


def _defined_name(model: Any, node: Any) -> str | None:
    """A value name the node may read: one of its own inputs, else a graph input or initializer."""
    for name in (
        list(node.input) + [i.name for i in model.graph.input] + [t.name for t in model.graph.initializer]
    ):
        if name:
            return str(name)
    return None


def unknown_op(model: Any, rng: random.Random) -> bool:
    node = _pick(model, rng)
    if node is None:
        return False
    node.op_type, node.domain = rng.choice(["NoSuchOp", "Relu2", "conv"]), ""
    return True


def unknown_attribute(model: Any, rng: random.Random) -> bool:
    onnx = require_onnx()
    node = _pick(model, rng)
    if node is None:
        return False
    # '__' names are implementation details onnx lets through: a seed we must accept.
    name = rng.choice(["no_such_attribute", "Axis", "__internal_detail"])
    node.attribute.append(onnx.helper.make_attribute(name, 1))
    return True


_VALUES = {1: 1.5, 2: 1, 3: "text", 6: [1.5], 7: [1], 8: ["text"]}  # AttributeType -> a value of it


def attribute_wrong_type(model: Any, rng: random.Random) -> bool:
    onnx = require_onnx()
    node = _pick(model, rng, lambda n: len(n.attribute) > 0)
    if node is None:
        return False
    index = rng.randrange(len(node.attribute))
    old = node.attribute[index]
    new_type = rng.choice([t for t in _VALUES if t != old.type])
    node.attribute[index].CopyFrom(onnx.helper.make_attribute(old.name, _VALUES[new_type]))
    return True


def extra_inputs(model: Any, rng: random.Random) -> bool:
    node = _pick(model, rng)
    name = None if node is None else _defined_name(model, node)
    if node is None or name is None:
        return False
    node.input.extend([name] * rng.choice([1, 2, 20]))
    return True


def fewer_inputs(model: Any, rng: random.Random) -> bool:
    node = _pick(model, rng, lambda n: len(n.input) > 0)
    if node is None:
        return False
    del node.input[rng.randrange(len(node.input)) :]
    return True


def omit_an_input(model: Any, rng: random.Random) -> bool:
    node = _pick(model, rng, lambda n: len(n.input) > 0)
    if node is None:
        return False
    node.input[rng.randrange(len(node.input))] = ""
    return True


def extra_outputs(model: Any, rng: random.Random) -> bool:
    node = _pick(model, rng)
    if node is None:
        return False
    node.output.extend(f"seeded_output_{i}" for i in range(rng.choice([1, 3])))
    return True


def _read_names(graph: Any, with_outputs: bool = True) -> set[str]:
    """Every value name the nodes of the graph (or of a subgraph in it) read, and the subgraphs' outputs."""
    names = {o.name for o in graph.output} if with_outputs else set()
    for node in graph.node:
        names.update(node.input)
        for attribute in node.attribute:
            for subgraph in [attribute.g, *attribute.graphs]:
                names |= _read_names(subgraph)
    return names


def _read_by_nodes(model: Any) -> set[str]:
    # The main graph's outputs are not counted: a seed drops them along with the value.
    return _read_names(model.graph, with_outputs=False)


def _forget_outputs(model: Any, names: set[str]) -> None:
    kept = [o for o in model.graph.output if o.name not in names]
    del model.graph.output[:]
    model.graph.output.extend(kept)


def fewer_outputs(model: Any, rng: random.Random) -> bool:
    # Drop trailing outputs no node reads (and from the graph's outputs), so the IR rules see
    # nothing wrong: only the schema can object.
    read = _read_by_nodes(model)

    def droppable(node: Any) -> int:
        count = 0
        while count < len(node.output) - 1 and node.output[len(node.output) - 1 - count] not in read:
            count += 1
        return count

    node = _pick(model, rng, lambda n: droppable(n) > 0)
    if node is None:
        return False
    keep = len(node.output) - rng.randint(1, droppable(node))
    _forget_outputs(model, set(node.output[keep:]))
    del node.output[keep:]
    return True


def omit_an_output(model: Any, rng: random.Random) -> bool:
    read = _read_by_nodes(model)
    node = _pick(model, rng, lambda n: any(o not in read for o in n.output))
    if node is None:
        return False
    index = rng.choice([i for i, o in enumerate(node.output) if o not in read])
    _forget_outputs(model, {node.output[index]})
    node.output[index] = ""
    return True


def _opset(model: Any, domain: str) -> Any | None:
    return next((o for o in model.opset_import if o.domain == domain), None)


def drop_required_attribute(model: Any, rng: random.Random) -> bool:
    onnx = require_onnx()

    def required(node: Any) -> list[int]:
        opset = _opset(model, node.domain)
        if opset is None or not onnx.defs.has(node.op_type, opset.version, node.domain):
            return []
        schema = onnx.defs.get_schema(node.op_type, opset.version, node.domain)
        return [
            i
            for i, a in enumerate(node.attribute)
            if a.name in schema.attributes and schema.attributes[a.name].required
        ]

    node = _pick(model, rng, lambda n: bool(required(n)))
    if node is None:
        return False
    del node.attribute[rng.choice(required(node))]
    return True


def opset_lowered_to_1(model: Any, rng: random.Random) -> bool:
    opset = _opset(model, rng.choice(["", "", "ai.onnx.ml"]))
    if opset is None or opset.version == 1:
        return False
    opset.version = 1
    return True


def opset_changed(model: Any, rng: random.Random) -> bool:
    onnx = require_onnx()
    opset = _opset(model, "")
    if opset is None:
        return False
    # Anywhere from 1 to past the latest: ops appear, change, are deprecated or removed.
    opset.version = rng.choice(
        [v for v in range(1, onnx.defs.onnx_opset_version() + 2) if v != opset.version]
    )
    return True


def domain_spelled_out(model: Any, rng: random.Random) -> bool:
    node = _pick(model, rng, lambda n: n.domain == "")
    if node is None:
        return False
    node.domain = "ai.onnx"
    if rng.random() < 0.5:
        _opset(model, "").domain = "ai.onnx"  # imported under that name too: still no schema there
    return True


def experimental_op(model: Any, rng: random.Random) -> bool:
    node = _pick(model, rng, lambda n: n.domain == "")
    if node is None:
        return False
    node.op_type = rng.choice(["ATen", "ImageScaler", "Scale"])  # onnx warns and checks nothing more
    return True


def custom_domain(model: Any, rng: random.Random) -> bool:
    onnx = require_onnx()
    node = _pick(model, rng)
    if node is None:
        return False
    node.domain = "com.example"
    if rng.random() < 0.8:
        model.opset_import.append(onnx.helper.make_opsetid("com.example", 1))
    return True


KINDS: dict[str, Mutation] = {
    f.__name__: f
    for f in (
        unknown_op,
        unknown_attribute,
        attribute_wrong_type,
        extra_inputs,
        fewer_inputs,
        omit_an_input,
        extra_outputs,
        fewer_outputs,
        omit_an_output,
        drop_required_attribute,
        opset_lowered_to_1,
        opset_changed,
        domain_spelled_out,
        experimental_op,
        custom_domain,
    )
}


def seeded(corpus: list[CorpusItem], kind: str) -> Iterator[tuple[str, bytes]]:
    """Up to PER_KIND corpus models broken by one kind of seed (the same ones every run)."""
    onnx = require_onnx()
    rng = random.Random(kind)
    made = 0
    for item in rng.sample(corpus, len(corpus)):
        model = onnx.ModelProto.FromString(item.data)
        if KINDS[kind](model, rng):
            yield f"{kind}({item.name})", model.SerializeToString()
            made += 1
            if made == PER_KIND:
                return


@pytest.mark.parametrize("kind", KINDS)
def test_verdicts_equal_onnx_on_seeded_models(kind: str, corpus: list[CorpusItem]) -> None:
    outcomes = [judge(name, data) for name, data in seeded(corpus, kind)]
    assert len(outcomes) >= 30, "too few models this seed applies to"
    disagree = [str(o) for o in outcomes if not o.agree]
    assert not disagree, f"{len(disagree)} of {len(outcomes)} differ: {disagree[:4]}"


# The kinds where onnx must refuse at least some seeds (else the test above proves little),
# and those where it must accept some (the no-false-positive side).
MOSTLY_REFUSED = (
    "unknown_op",
    "attribute_wrong_type",
    "extra_outputs",
    "drop_required_attribute",
    "domain_spelled_out",
)
SOMETIMES_ACCEPTED = (
    "fewer_outputs",
    "omit_an_output",
    "unknown_attribute",
    "extra_inputs",
    "omit_an_input",
    "opset_changed",
    "experimental_op",
    "custom_domain",
)


def test_the_seeds_cut_both_ways(corpus: list[CorpusItem]) -> None:
    refused: Counter[str] = Counter()
    accepted: Counter[str] = Counter()
    for kind in (*MOSTLY_REFUSED, *SOMETIMES_ACCEPTED):
        for _, data in seeded(corpus, kind):
            (refused if onnx_refusal(data) else accepted)[kind] += 1
    assert all(refused[kind] > accepted[kind] for kind in MOSTLY_REFUSED), (refused, accepted)
    assert all(accepted[kind] > 0 for kind in SOMETIMES_ACCEPTED), (refused, accepted)


def test_every_schema_rule_is_reached_by_a_seed(corpus: list[CorpusItem]) -> None:
    found = {v.rule for kind in KINDS for _, data in seeded(corpus, kind) for v in ours(data)}
    found |= {v.rule for _, data in function_seeds() for v in ours(data)}
    found |= {v.rule for _, data in deprecated_seeds() for v in ours(data)}
    assert {rule.id for rule in schemas.RULES} <= found


# -- 3. deprecated operators, and functions' imports, from built models ---------------------------


def deprecated_seeds() -> Iterator[tuple[str, bytes]]:
    """A node of every deprecated schema at the opset that deprecated it (and at the one before)."""
    onnx = require_onnx()
    helper, tp = onnx.helper, onnx.TensorProto
    for schema in onnx.defs.get_all_schemas_with_history():
        if not schema.deprecated:
            continue
        inputs = [f"x{i}" for i in range(max(schema.min_input, 1 if schema.max_input else 0))]
        outputs = [f"y{i}" for i in range(max(schema.min_output, 1))]
        node = helper.make_node(schema.name, inputs, outputs, domain=schema.domain)
        graph = helper.make_graph(
            [node],
            "deprecated",
            [helper.make_tensor_value_info(name, tp.FLOAT, [1]) for name in inputs],
            [helper.make_tensor_value_info(name, tp.FLOAT, [1]) for name in outputs],
        )
        for version in (schema.since_version, schema.since_version - 1):
            imports = [helper.make_opsetid(schema.domain, version)]
            if schema.domain:
                imports.append(helper.make_opsetid("", 13))
            model = helper.make_model(graph, opset_imports=imports, ir_version=8)
            yield f"{schema.name}@{version}", model.SerializeToString()


def test_deprecated_operators_are_refused_as_onnx_refuses_them() -> None:
    onnx = require_onnx()
    count = sum(s.deprecated for s in onnx.defs.get_all_schemas_with_history())
    outcomes = [judge(name, data) for name, data in deprecated_seeds()]
    assert count >= 5 and len(outcomes) == 2 * count
    disagree = [str(o) for o in outcomes if not o.agree]
    assert not disagree, disagree[:4]
    deprecated = [o for o in outcomes if any(v.rule == "op-deprecated" for v in o.we_say)]
    assert len(deprecated) == count and all(o.onnx_says and "deprecated" in o.onnx_says for o in deprecated)


def function_seeds() -> Iterator[tuple[str, bytes]]:
    """The function model with the model's and the function's default-domain opsets varied."""
    onnx = require_onnx()
    base = onnx.ModelProto.FromString(check_models.function_model())
    for model_version in (1, 6, 13, 14, 18, 21):
        for function_version in (6, 13, 14, 18, 21):
            model = onnx.ModelProto()
            model.CopyFrom(base)
            _opset(model, "").version = model_version
            _opset(model.functions[0], "").version = function_version
            yield f"function(model {model_version}, function {function_version})", model.SerializeToString()
    for op_type in ("Mul", "NoSuchOp", "Constant"):
        model = onnx.ModelProto()
        model.CopyFrom(base)
        model.functions[0].node[1].op_type = op_type
        model.functions[0].node[1].input.append("x")  # Mul with three inputs: too many
        yield f"function body {op_type} with an extra input", model.SerializeToString()
    model = onnx.ModelProto()
    model.CopyFrom(base)
    _opset(model.functions[0], "").domain = "ai.onnx"  # the body's '' nodes: no exact import
    yield "function importing 'ai.onnx'", model.SerializeToString()


def test_function_bodies_are_checked_as_onnx_checks_them() -> None:
    outcomes = [judge(name, data) for name, data in function_seeds()]
    disagree = [str(o) for o in outcomes if not o.agree]
    assert not disagree, disagree[:4]
    assert any(o.onnx_says is None for o in outcomes) and any(o.onnx_says for o in outcomes)
    incompatible = [o for o in outcomes if any(v.rule == "function-opset-compatible" for v in o.we_say)]
    assert incompatible and all(o.onnx_says for o in incompatible)


# -- 4. what a violation says ----------------------------------------------------------------------


def test_a_violation_names_the_node_path_and_rule() -> None:
    onnx = require_onnx()
    helper, tp = onnx.helper, onnx.TensorProto
    then = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"], alpha=1.0)],
        "then",
        [],
        [helper.make_tensor_value_info("r", tp.FLOAT, [1])],
    )
    other = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["s"])],
        "else",
        [],
        [helper.make_tensor_value_info("s", tp.FLOAT, [1])],
    )
    graph = helper.make_graph(
        [
            helper.make_node("Constant", [], ["c"], value=helper.make_tensor("v", tp.BOOL, [], [True])),
            helper.make_node("If", ["c"], ["y"], then_branch=then, else_branch=other),
            helper.make_node("Squeeze", ["y"], ["z"], axes=[0]),
        ],
        "g",
        [helper.make_tensor_value_info("x", tp.FLOAT, [1])],
        [helper.make_tensor_value_info("z", tp.FLOAT, [])],
    )
    data = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()
    assert onnx_refusal(data) is not None
    assert [(v.path, v.rule) for v in ours(data)] == [
        ("graph.node[1].attribute[1].g.node[0].attribute[0].name", "attribute-declared"),  # then_branch
        ("graph.node[2].attribute[0].name", "attribute-declared"),  # axes became an input in opset 13
    ]
    assert str(ours(data)[0]).endswith(
        "Relu (ai.onnx version 13) has no attribute 'alpha' [attribute-declared]"
    )
    assert violations(decode(ModelProto, data), ir_only=True) == []


# -- 5. old IR versions, and training graphs ---------------------------------------------------------


def old_ir_seeds() -> Iterator[tuple[str, bytes]]:
    """Models of IR version 1 and 2 without opset_import: onnx reads them as opset 1 of ''."""
    onnx = require_onnx()
    helper, tp = onnx.helper, onnx.TensorProto
    for op_type, attributes in (
        ("Relu", {}),
        ("Relu", {"consumed_inputs": [0]}),  # an attribute opset 1 had
        ("Shape", {}),
        ("Range", {}),  # opset 11: unknown at 1
        ("Gelu", {}),  # opset 20
        ("Relu", {"alpha": 1.0}),
    ):
        for ir_version in (1, 2):
            node = helper.make_node(op_type, ["x"], ["y"], **attributes)
            graph = helper.make_graph(
                [node],
                "old",
                [helper.make_tensor_value_info("x", tp.FLOAT, [1])],
                [helper.make_tensor_value_info("y", tp.FLOAT, [1])],
            )
            model = helper.make_model(graph, ir_version=ir_version)
            del model.opset_import[:]
            yield f"IR {ir_version}: {op_type} {sorted(attributes)}", model.SerializeToString()


def test_a_model_without_opset_import_before_ir3_is_read_at_opset_1() -> None:
    outcomes = [judge(name, data) for name, data in old_ir_seeds()]
    disagree = [str(o) for o in outcomes if not o.agree]
    assert not disagree, disagree[:4]
    assert any(o.onnx_says is None for o in outcomes) and any(o.onnx_says for o in outcomes)


def test_training_graphs_are_checked_though_onnx_does_not_look() -> None:
    # The one deliberate difference (docs/checker.md): onnx's check_model skips training_info.
    onnx = require_onnx()
    helper, tp = onnx.helper, onnx.TensorProto
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"])],
        "inference",
        [helper.make_tensor_value_info("x", tp.FLOAT, [1])],
        [helper.make_tensor_value_info("y", tp.FLOAT, [1])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    algorithm = helper.make_graph([helper.make_node("NoSuchOp", ["y"], ["z"])], "algorithm", [], [])
    model.training_info.add().algorithm.CopyFrom(algorithm)
    data = model.SerializeToString()
    assert onnx_refusal(data) is None
    assert [(v.path, v.rule) for v in ours(data)] == [
        ("training_info[0].algorithm.node[0].op_type", "op-registered")
    ]


# -- 6. the third-party models of the benchmarks (when fetched) ------------------------------------

BENCH_CACHE = pathlib.Path(__file__).resolve().parents[2] / "bench" / ".cache"


def _bench_models() -> list[pathlib.Path]:
    return sorted(BENCH_CACHE.glob("pypi-*/model.onnx"))


@pytest.mark.slow
@pytest.mark.skipif(not _bench_models(), reason="fetch them with: python bench/models_people_have.py")
def test_verdicts_equal_onnx_on_the_benchmark_models_and_their_seeds() -> None:
    onnx = require_onnx()
    outcomes = []
    for path in _bench_models():
        data = path.read_bytes()
        outcomes.append(judge(path.parent.name, data))
        for kind, mutate in KINDS.items():
            for seed in range(3):
                rng = random.Random(f"{kind}:{path.parent.name}:{seed}")
                model = onnx.ModelProto.FromString(data)
                if mutate(model, rng):
                    outcomes.append(judge(f"{kind}#{seed}({path.parent.name})", model.SerializeToString()))
    disagree = [str(o) for o in outcomes if not o.agree]
    assert not disagree, f"{len(disagree)} of {len(outcomes)} differ: {disagree[:4]}"
