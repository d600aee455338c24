"""Every adapter onnx's converter registers, against ours.

onnx's list is read at test time from its C++ source in the sdist of the installed onnx
(``onnx/version_converter/convert.h``: each ``registerAdapter(...)`` names the operator
and the step); nothing of it is copied here. The test fails when onnx has an adapter we
lack that is not listed below with a reason (so a new onnx release shows what it adds),
and when a listed one is there now (so the list only shrinks).

``python -m tests.differential.test_version_converter_completeness`` prints both lists.
"""

from __future__ import annotations

import re
import tarfile

import pytest

from tests.onnx_suite import sdist
from wirecodec.version_converter._table import adapters

Step = tuple[str, int, int]

# onnx's adapters that wirecodec's converter refuses (a ConvertError naming the node and
# the step): each with why it is not written yet.
LACKING: dict[Step, str] = {}

# Adapters of ours that convert part of what onnx's convert, refusing the rest (named
# with a ConvertError): by our table's entry (adapter name, arguments). Printed, not failed on.
PARTIAL: dict[tuple[str, tuple[object, ...]], str] = {
    (
        "floats_only_8",
        (),
    ): "integer or bool data: onnx wraps the node in Casts to float (exact only below 2**24)",
    ("sum_8_7", ()): "inputs of different shapes (onnx lets them through; Sum-6 does not broadcast)",
    ("broadcast_backward", ("no_flag",)): "inputs that broadcast (onnx writes a broadcast attribute these "
    "versions do not have)",
}

_CALL = re.compile(r"registerAdapter\(")
_PLAIN = re.compile(r'^"(\w+)", (\d+), (\d+)')  # registerAdapter("Op", from, to, ...)
_CLASS = re.compile(r'"(\w+)", OpSetID\((\d+)\), OpSetID\((\d+)\)')  # make_unique<X>("Op", OpSetID(a), ...)
_NAMED = re.compile(r'^std::make_unique<(\w+?)_(\d+)_(\d+)>\((?:"(\w+)")?')  # make_unique<Op_a_b>(["Op"])


def onnx_adapters(source: str) -> tuple[set[Step], list[str]]:
    """The (operator, from, to) of each ``registerAdapter`` call in ``source`` (convert.h),
    and the calls that name no operator (the generic 'no previous version' refusal)."""
    text = re.sub(r"//[^\n]*", "", source)
    found: set[Step] = set()
    unnamed: list[str] = []
    for match in _CALL.finditer(text):
        depth, at = 1, match.end()
        while depth and at < len(text):
            depth += {"(": 1, ")": -1}.get(text[at], 0)
            at += 1
        call = " ".join(text[match.end() : at - 1].split())
        hit = _PLAIN.match(call) or _CLASS.search(call)
        if hit:
            found.add((hit[1], int(hit[2]), int(hit[3])))
        elif named := _NAMED.match(call):
            found.add((named[4] or named[1], int(named[2]), int(named[3])))
        else:
            unnamed.append(call)
    return found, unnamed


def _convert_h() -> str:
    pytest.importorskip("onnx", reason="the installed onnx names the sdist to read")
    version = sdist.installed_onnx_version()
    try:
        sdist.suite_folder(version)  # fetches the archive when it is not cached
    except sdist.FetchError as error:
        pytest.skip(f"onnx's sdist is not reachable: {error}")
    archive = sdist.CACHE / f"onnx-{version}.tar.gz"
    if not archive.is_file():
        pytest.skip(f"{archive} is gone (only its extracted tests are cached)")
    with tarfile.open(archive) as tar:
        member = tar.extractfile(f"onnx-{version}/onnx/version_converter/convert.h")
        assert member is not None
        return member.read().decode("utf-8")


def lacking(found: set[Step]) -> dict[Step, str]:
    """onnx's adapters that ours lack, or has only as a refusal, with our reason."""
    ours = adapters()
    result: dict[Step, str] = {}
    for step in found:
        entry = ours.get(step)
        if entry is None:
            result[step] = "(no entry in wirecodec's table)"
        elif entry[0] == "unsupported":
            result[step] = str(entry[1][0])
    return result


def test_the_parser_reads_every_form_of_call() -> None:
    source = """
        registerAdapter("Concat", 3, 4, SetAttributeIfAbsent(kaxis, 1));  // a comment (
        registerAdapter(
            std::make_unique<TypeRestriction>("Abs", OpSetID(6), OpSetID(5), int_unallowed_types));
        registerAdapter(std::make_unique<Reshape_4_5>());
        registerAdapter(std::make_unique<Softmax_12_13>("LogSoftmax"));
        registerAdapter(std::make_unique<Range_27_26>(range_27_unallowed_types));
        registerAdapter(std::make_unique<NoPreviousVersionAdapter>(op_name, OpSetID(v), OpSetID(v - 1)));
    """
    found, unnamed = onnx_adapters(source)
    assert found == {
        ("Concat", 3, 4), ("Abs", 6, 5), ("Reshape", 4, 5), ("LogSoftmax", 12, 13), ("Range", 27, 26)
    }  # fmt: skip
    assert len(unnamed) == 1 and "NoPreviousVersionAdapter" in unnamed[0]


def test_every_onnx_adapter_is_ours_or_listed_with_a_reason() -> None:
    found, unnamed = onnx_adapters(_convert_h())
    assert len(found) > 600, f"read only {len(found)} adapters: the parser no longer fits convert.h"
    assert all("NoPreviousVersionAdapter" in call for call in unnamed), unnamed
    missing = lacking(found)
    unlisted = {step: why for step, why in missing.items() if step not in LACKING}
    assert not unlisted, f"onnx adapters wirecodec lacks, not listed: {sorted(unlisted)}"
    written = sorted(step for step in LACKING if step not in missing)
    assert not written, f"listed as lacking but converted now (remove them from LACKING): {written}"


def test_a_partial_adapter_is_one_of_ours() -> None:
    entries = list(adapters().values())
    assert all(key in entries for key in PARTIAL)


if __name__ == "__main__":
    steps, _ = onnx_adapters(_convert_h())
    print(f"{len(steps)} adapters in onnx's converter; wirecodec lacks {len(lacking(steps))}:")
    for step, why in sorted(lacking(steps).items(), key=lambda item: (item[0][1], item[0][2], item[0][0])):
        print(f"  {step[0]} {step[1]} -> {step[2]}: {LACKING.get(step, why)}")
    table = adapters()
    partial = sorted(
        (step for step in steps if any(table.get(step) == key for key in PARTIAL)),
        key=lambda s: (s[1], s[2], s[0]),
    )
    print(f"converted in part ({len(partial)}):")
    for step in partial:
        print(f"  {step[0]} {step[1]} -> {step[2]}: refused for {PARTIAL[table[step]]}")
