"""Mutants of the codecs shipped as generated source (issue 48 item 6: wirecodec/_codecs,
wirecodec/protobuf/shipped.py, the shipped path of wirecodec/protobuf/compile.py)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

__all__ = ["MUTANTS"]

_SHIPPED = "tests/unit/protobuf/test_shipped_codecs.py"
_SWITCH = f"{_SHIPPED}::test_the_switch_turns_shipped_codecs_off"
_SAME_CODE = f"{_SHIPPED}::test_each_shipped_codec_defines_what_its_source_defines"
_SOURCE = f"{_SHIPPED}::test_a_shipped_codec_is_not_generated_until_its_source_is_asked_for"
_REGENERATE = f"{_SHIPPED}::test_regenerating_writes_every_package_and_removes_what_is_no_longer_made"
_SAME_TEXT = f"{_SHIPPED}::test_a_shipped_package_is_what_the_generators_make_now"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "shipped-switch-ignored",
        "wirecodec/protobuf/shipped.py",
        'if kind not in KINDS or os.environ.get(ENV, "1") == "0":',
        "if kind not in KINDS:",
        (_SWITCH,),
        "WIRECODEC_SHIPPED_CODECS=0 no longer turns the shipped codecs off",
    ),
    Mutant(
        "shipped-constants-not-added",
        "wirecodec/protobuf/compile.py",
        "        namespace.update(resolved)\n        exec(shipped_codec[0], namespace)",
        "        exec(shipped_codec[0], namespace)",
        ("tests/unit/protobuf/test_compile.py",),
        "a shipped codec runs without its constants (defaults, enum values, classes) in its namespace",
    ),
    Mutant(
        "generated-source-inherits-future-flags",
        "wirecodec/protobuf/code_cache.py",
        'return compile(text, filename, "exec", dont_inherit=True)',
        'return compile(text, filename, "exec")',
        (_SAME_CODE,),
        "generated source compiles with compile.py's __future__ flags, unlike its shipped module",
    ),
    Mutant(
        "shipped-source-of-another-kind",
        "wirecodec/protobuf/compile.py",
        'text = compiled.source = generated(compiled.namespace["_C"], which)[0]',
        'text = compiled.source = generated(compiled.namespace["_C"], "decode")[0]',
        (_SOURCE,),
        "wirecodec.source() of a shipped codec shows the eager decoder whatever kind was asked for",
    ),
    Mutant(
        "regenerate-keeps-stale-modules",
        "wirecodec/_codecs/_generate.py",
        'if name.endswith(".py") and name not in made:\n'
        "                os.unlink(os.path.join(target, name))",
        'if name.endswith(".py") and name not in made:\n                pass',
        (_REGENERATE,),
        "regenerating leaves the module of a message type no longer in the schema in the package",
    ),
    Mutant(
        "shipped-records-for-every-class",
        "wirecodec/_codecs/_generate.py",
        'if kind.startswith("decode+lazy+records") and not records.reaches_records(cls):',
        'if kind.startswith("decode+lazy+records") and False:',
        (_SAME_TEXT,),
        "the generator ships records codecs for classes that share the lazy decoder instead",
    ),
    Mutant(
        "validator-kind-folder-misnamed",
        "wirecodec/protobuf/shipped.py",
        'return kind.replace("+", "_").replace(" ", "_")',
        'return kind.replace("+", "_").replace(" validator", "")',
        (_SAME_CODE,),
        "a lazy kind's validators are looked up in its decoders' package",
    ),
)
