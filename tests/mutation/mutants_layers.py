"""Mutants of schema_dsl's bottom-up reading order (issue 48, item 5): each puts back a
way the message model used to reach a module above it, or weakens what replaced it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_BOTTOM_UP = "tests/unit/schema/test_reads_bottom_up.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "layers-copy-in-through-a-late-import",
        "schema_dsl/containers.py",
        "    return convert(value).__copy__()  # schema_dsl.copying.copy_message, through the message",
        "    from schema_dsl.copying import copy_message  # copying imports this module\n\n"
        "    return copy_message(convert(value))",
        (f"{_BOTTOM_UP}::test_no_import_cycle_even_through_imports_inside_functions",),
        "containers reaches copying, which imports it, through an import inside a function",
    ),
    Mutant(
        "layers-pin-through-a-late-import",
        "schema_dsl/presence.py",
        "        x.home[0]._pin(x.home)  # the records container of the view's family (schema_dsl.views)",
        "        from schema_dsl.views import RecordContainer  # on first use\n\n"
        "        RecordContainer._pin(x.home[0], x.home)",
        (f"{_BOTTOM_UP}::test_imports_inside_functions_are_few_and_say_why",),
        "presence reaches views through a fourth import inside a function",
    ),
    Mutant(
        "layers-any-class-with-a-schema-is-a-message",
        "schema_dsl/fields.py",
        'getattr(getattr(target, "__schema__", None), "cls", None) is target',
        'getattr(target, "__schema__", None) is not None',
        ("tests/unit/schema/test_schema.py::test_message_field_annotation_must_name_a_message_class",),
        "a class carrying another class's schema passes for a message class",
    ),
    Mutant(
        "layers-waiting-container-reports-no-span",
        "wirecodec/protobuf/lazy.py",
        "        head._span = owner._span  # a change reports its owner's span, as any container's\n",
        "        head._span = None\n",
        ("tests/unit/protobuf/test_waiting_containers.py",),
        "a field waiting from its first element (metadata_props) reports no change: old bytes re-emitted",
    ),
)
