"""CI-sized differential fuzzing against upb: a fixed seed and a fixed budget of mutated inputs.

The full run (a million inputs) is ``python fuzz/differential.py --count 1000000``; this
runs the same mutations and checks on a few thousand inputs, deterministically.
"""

from __future__ import annotations

import collections
import importlib.util
import pathlib
import random

import pytest

pytest.importorskip("onnx", reason="upb's verdicts come from onnx's protobuf classes (test extra)")

_PATH = pathlib.Path(__file__).resolve().parents[2] / "fuzz" / "differential.py"
_spec = importlib.util.spec_from_file_location("wirecodec_fuzz_differential", _PATH)
assert _spec is not None and _spec.loader is not None
differential = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(differential)


@pytest.fixture(scope="module")
def seeds(request: pytest.FixtureRequest) -> list[tuple[str, bytes]]:
    from tests.support.reference import backend_corpus

    cache_plugin = getattr(request.config, "cache", None)
    cache = pathlib.Path(str(cache_plugin.mkdir("onnx-corpus"))) if cache_plugin else None
    return [(item.message, item.data) for item in backend_corpus(cache) if len(item.data) <= 4096]


def test_mutated_corpus_agrees_with_upb(seeds: list[tuple[str, bytes]]) -> None:
    rng = random.Random(20261122)
    verdicts: collections.Counter[str] = collections.Counter()
    findings = []
    for _ in range(4000):
        cls_name, data = rng.choice(seeds)
        mutated = differential.mutate(data, rng)
        verdict = differential.check(cls_name, mutated)
        verdicts[verdict] += 1
        if verdict not in ("both-accept", "both-reject"):
            findings.append((verdict, cls_name, mutated.hex()))
    assert not findings, findings[:3]
    # The mutations must exercise both outcomes, or the check proves little.
    assert verdicts["both-accept"] > 500 and verdicts["both-reject"] > 500, verdicts
