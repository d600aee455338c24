"""Issue 48, item 7 (``wirecodec check`` on 100k-node graphs), round 6: bugs planted in what
the streaming checker changed — the walk handing each graph, node and attribute to the
rules instead of listing them, a plan per kind of node for the schema rules, the usual
attribute returning early, the names rules checking each graph from what the walk read —
each with the tests that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_STREAMS = "tests/unit/checker/test_check_streams_nodes.py"
_SEEDS = "tests/unit/checker/test_check.py"
_SCHEMAS = "tests/differential/test_checker_schemas.py"
_PATHS = "tests/unit/checker/test_finding_paths.py"
_NOTHING = "tests/unit/checker/test_check_stores_nothing.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "checkspeed-walk-lists-every-node",
        "wirecodec/checker/walk.py",
        "        rule(site)\n        if site.function is not None:\n            keep(site)",
        "        rule(site)\n        keep(site)",
        (_STREAMS,),
        "the walk hands each node to the rules and lists it too: every view of a long graph is held",
    ),
    Mutant(
        "checkspeed-omitted-single-not-looked-at",
        "wirecodec/checker/schemas.py",
        '    if not clean or "" in values:',
        "    if not clean:",
        (_SCHEMAS,),
        "a node of a clean count with a required (Single) input omitted ('') is not reported",
    ),
    Mutant(
        "checkspeed-untyped-value-passes",
        "wirecodec/checker/attributes.py",
        "(present == [expected] or (not present and expected in _REPEATED))",
        "(present == [expected] or not present)",
        (_SEEDS, _STREAMS, "tests/differential/test_check_empty_list_attributes.py"),
        "an attribute of a singular type carrying no value at all returns early, unreported",
    ),
    Mutant(
        "checkspeed-body-sees-holder-outputs-as-earlier",
        "wirecodec/checker/names.py",
        "produced_after(later, last, i)",
        "produced_after(later, last, i + 1)",
        (_PATHS, _SEEDS, _STREAMS),
        "a body reading its holder's own output is an undefined input, not a topological-order finding",
    ),
    Mutant(
        "checkspeed-undeclared-domain-per-node-without-imports",
        "wirecodec/checker/opsets.py",
        "        if self.undeclared and (site.function is not None or self.imported):",
        "        if self.undeclared:",
        (_SEEDS,),
        "a model without opset imports gets an undeclared-domain finding per node beside the one finding",
    ),
    Mutant(
        "checkspeed-two-attributes-never-repeat",
        "wirecodec/checker/attributes.py",
        "        if len(attributes) < 2:",
        "        if len(attributes) < 3:",
        (_SEEDS, _STREAMS),
        "a node giving its only two attributes the same name is not reported",
    ),
    Mutant(
        "checkspeed-body-value-info-stored",
        "wirecodec/checker/values.py",
        'cast("Sequence[ValueInfoProto]", elements(graph, field_name))',
        "getattr(graph, field_name)",
        (_NOTHING,),
        "a check stores an empty value_info list on every body that has none",
    ),
)
MUTANTS += (
    Mutant(
        "checkspeed-tensor-type-assumed",
        "wirecodec/checker/required.py",
        '    which = "tensor_type" if type_proto.HasField("tensor_type") else type_proto.WhichOneof("value")',
        '    which = "tensor_type" if type_proto.HasField("value") else type_proto.WhichOneof("value")',
        (_SEEDS, "tests/unit/checker/test_values_read_once.py"),
        "any type is taken for a tensor type: a sequence type without elem_type is not reported",
    ),
)
