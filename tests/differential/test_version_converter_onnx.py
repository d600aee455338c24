"""Differential: wirecodec's opset converter against onnx's, on onnx's backend node models.

Each node model of the installed onnx (generated at test time) is converted one opset
down, to 21 and to the newest opset, by both. Where onnx converts, our bytes equal its
bytes, or the case is listed in ``version_converter_known.txt`` with a reason (and both
results run in onnxruntime give the same outputs on the case's data, where it can run
them); a listed case that now matches fails the test, so the list only shrinks. Where
onnx refuses, we refuse with a ConvertError naming the node, or convert to a model that
passes ``wirecodec.check``.

``python -m tests.differential.test_version_converter_onnx`` prints the counts.
"""

from __future__ import annotations

import collections
import pathlib
import warnings
from dataclasses import dataclass, field
from typing import Any

import pytest

from tests.support.reference import CorpusItem, backend_corpus, require_onnx

KNOWN = pathlib.Path(__file__).with_name("version_converter_known.txt")
pytestmark = pytest.mark.slow


# The reason of a listed case where onnx's converted model computes another thing than
# the model given (ours is then checked against the model given, not against onnx's).
ONNX_COMPUTES_ANOTHER_THING = "onnx's result computes another thing"


def known_differences() -> dict[tuple[str, int], str]:
    """The listed cases: (model, target) -> why ours differs from onnx's result."""
    listed: dict[tuple[str, int], str] = {}
    for line in KNOWN.read_text("utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        case, reason = line.split(": ", 1)
        name, target = case.rsplit(" -> ", 1)
        listed[(name, int(target))] = reason
    return listed


@dataclass
class Outcome:
    counts: collections.Counter[str] = field(default_factory=collections.Counter)
    unlisted: list[str] = field(default_factory=list)  # differ from onnx, not listed
    stale: list[str] = field(default_factory=list)  # listed, but equal (or refused by onnx) now
    bad_refusals: list[str] = field(default_factory=list)  # a refusal that names no node
    bad_conversions: list[str] = field(default_factory=list)  # we convert where onnx refuses, check fails
    listed_cases: list[tuple[CorpusItem, int, bytes, bytes]] = field(default_factory=list)


def targets(version: int, newest: int) -> list[int]:
    return sorted({version - 1, 21, newest})


def compare_corpus(items: list[CorpusItem]) -> Outcome:
    onnx = require_onnx()
    from onnx import version_converter

    from schema_dsl.onnx import ModelProto
    from wirecodec import check, defs
    from wirecodec.errors import CheckError, ConvertError
    from wirecodec.protobuf.codec import decode
    from wirecodec.version_converter import convert_version

    newest = defs.onnx_opset_version()
    listed = known_differences()
    outcome = Outcome()
    for item in items:
        if not (item.name.startswith("node/") and item.name.endswith("/model.onnx")):
            continue
        reference = onnx.ModelProto.FromString(item.data)
        versions = [o.version for o in reference.opset_import if o.domain in ("", "ai.onnx")]
        if not versions:
            continue
        for target in targets(versions[0], newest):
            key = (item.name, target)
            where = f"{item.name} -> {target}"
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    theirs: bytes | None = version_converter.convert_version(
                        reference, target
                    ).SerializeToString()
            except Exception:
                theirs = None
            model = decode(ModelProto, item.data)
            try:
                ours: bytes | ConvertError = convert_version(model, target).SerializeToString()
            except ConvertError as exc:
                ours = exc
            assert model.SerializeToString() == item.data, f"{where}: the input model changed"
            if theirs is None:
                if isinstance(ours, ConvertError):
                    outcome.counts["both refuse"] += 1
                    if not (ours.path or "opset" in ours.reason):
                        outcome.bad_refusals.append(f"{where}: {ours}")
                else:
                    outcome.counts["onnx refuses, we convert"] += 1
                    try:
                        check(decode(ModelProto, ours))
                    except CheckError as exc:
                        outcome.bad_conversions.append(f"{where}: {exc}")
                if key in listed:
                    outcome.stale.append(where)
                continue
            if isinstance(ours, bytes) and ours == theirs:
                outcome.counts["equal bytes"] += 1
                if key in listed:
                    outcome.stale.append(where)
                continue
            if key not in listed:
                outcome.unlisted.append(
                    f"{where}: {ours if isinstance(ours, ConvertError) else 'bytes differ'}"
                )
                continue
            if isinstance(ours, ConvertError):
                outcome.counts["onnx converts, we refuse (listed)"] += 1
            else:
                outcome.counts["bytes differ (listed)"] += 1
                outcome.listed_cases.append((item, target, ours, theirs))
    return outcome


@pytest.fixture(scope="module")
def outcome(request: pytest.FixtureRequest) -> Outcome:
    cache_plugin = getattr(request.config, "cache", None)
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return compare_corpus(backend_corpus(cache))


def test_equal_to_onnx_or_listed(outcome: Outcome) -> None:
    print(dict(outcome.counts))
    assert outcome.counts["equal bytes"] >= 4235, outcome.counts
    assert not outcome.unlisted, f"{len(outcome.unlisted)} unlisted differences, e.g. {outcome.unlisted[:5]}"


def test_the_list_only_shrinks(outcome: Outcome) -> None:
    assert not outcome.stale, f"listed but now equal to onnx (remove them from {KNOWN.name}): {outcome.stale}"


def test_refusals_name_the_node_and_conversions_check(outcome: Outcome) -> None:
    assert not outcome.bad_refusals, outcome.bad_refusals[:5]
    assert not outcome.bad_conversions, outcome.bad_conversions[:5]


def _inputs(item: CorpusItem, model: Any) -> dict[str, Any] | None:
    from onnx import TensorProto, numpy_helper

    base = item.name.rsplit("/", 1)[0]
    feeds: dict[str, Any] = {}
    for index, info in enumerate(model.graph.input):
        data = _CORPUS_BY_NAME.get(f"{base}/test_data_set_0/input_{index}.pb")
        if data is None or not info.type.HasField("tensor_type"):
            return None
        feeds[info.name] = numpy_helper.to_array(TensorProto.FromString(data))
    return feeds


_CORPUS_BY_NAME: dict[str, bytes] = {}


def test_listed_differences_compute_the_same(outcome: Outcome) -> None:
    """Each listed byte difference runs to the same outputs in onnxruntime (where it runs both):
    ours and onnx's, or, where onnx's computes another thing, ours and the model given."""
    onnxruntime = pytest.importorskip("onnxruntime", reason="onnxruntime runs the two results")
    import numpy as np
    import onnx

    _CORPUS_BY_NAME.update((item.name, item.data) for item in backend_corpus())
    listed = known_differences()
    ran = 0
    for item, target, ours, theirs in outcome.listed_cases:
        model = onnx.ModelProto.FromString(theirs)
        feeds = _inputs(item, model)
        if feeds is None:
            continue
        # where onnx's result computes another thing, ours is run against the model given
        other = listed[(item.name, target)].startswith(ONNX_COMPUTES_ANOTHER_THING)
        results = []
        for data in (ours, item.data if other else theirs):
            try:
                session = onnxruntime.InferenceSession(data, providers=["CPUExecutionProvider"])
                results.append(session.run(None, feeds))
            except Exception:  # onnxruntime does not run this opset or operator
                results = []
                break
        if len(results) != 2:
            continue
        ran += 1
        for a, b in zip(*results, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b), err_msg=f"{item.name} -> {target}")
    print(f"listed differences run in onnxruntime: {ran} of {len(outcome.listed_cases)}")


if __name__ == "__main__":
    result = compare_corpus(backend_corpus())
    for name, count in result.counts.most_common():
        print(f"{count:6d}  {name}")
    for line in result.unlisted:
        print("unlisted:", line)
