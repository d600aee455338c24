"""Mutants of the representation a decode is asked for (issue 48, item 4): the test
switches that were context variables are explicit parameters; each mutant drops one."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_MODES = "tests/unit/protobuf/test_decode_modes.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "representation-every-element-ignored",
        "wirecodec/protobuf/compile.py",
        'kind += "+lazy-all" if representation.every_element_waits else "+lazy"',
        'kind += "+lazy"',
        (f"{_MODES}::test_each_mode_flips_its_switches", "tests/unit/protobuf/test_compile.py"),
        "a decode asked to leave every element waiting builds the first four as usual",
    ),
    Mutant(
        "representation-records-always-ignored",
        "wirecodec/protobuf/compile.py",
        'kind += "+records|records-always" if representation.records_always else "+records"',
        'kind += "+records"',
        (f"{_MODES}::test_each_mode_flips_its_switches", "tests/differential/test_records.py"),
        "a decode asked for records in every graph keeps them only past the threshold",
    ),
    Mutant(
        "representation-full-encode-reuses",
        "wirecodec/protobuf/compile.py",
        '"full": {"_reuse": _never, "_reuse_field": _never},',
        '"full": {},',
        (f"{_MODES}::test_each_mode_flips_its_switches",),
        "encode(reuse_source=False) still re-emits source bytes: the field walk goes untested",
    ),
)
