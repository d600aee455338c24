"""Each invalid kind makes input wirecodec refuses with DecodeError, at the depth it was put.

Refusal by upb on the whole corpus is tests/differential/test_fuzz_rewrite_corpus.py.
"""

from __future__ import annotations

import pytest

from schema_dsl.onnx import ModelProto
from wirecodec.errors import DecodeError
from wirecodec.examples.build_mlp import build
from wirecodec.fuzz import INVALID, invalid
from wirecodec.protobuf.codec import decode

DATA = build().SerializeToString()


@pytest.mark.parametrize("name", list(INVALID))
def test_each_invalid_kind_is_refused_for_every_seed(name: str) -> None:
    paths = set()
    for seed in range(30):
        out = invalid(DATA, seed=seed, kinds=[name])
        assert out != DATA
        with pytest.raises(DecodeError) as info:
            decode(ModelProto, out)
        paths.add(str(info.value).rsplit(" at ", 1)[-1])
    # The fault lands at several depths, not only at the top level.
    assert len(paths) > 1, paths


@pytest.mark.parametrize("name", list(INVALID))
def test_each_invalid_kind_is_deterministic_and_documented(name: str) -> None:
    assert invalid(DATA, seed=3, kinds=[name]) == invalid(DATA, seed=3, kinds=[name])
    assert "Encoding guide" in INVALID[name].doc or "Language guide" in INVALID[name].doc


def test_without_kinds_any_kind_may_be_chosen() -> None:
    outputs = {invalid(DATA, seed=seed) for seed in range(40)}
    assert len(outputs) > 20
