"""``onnx.backend.test.case.test_case``: :class:`TestCase`, one backend test case."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from schema_dsl.onnx import ModelProto

__all__ = ["TestCase"]


@dataclass
class TestCase:
    """One backend test case, with onnx's fields: a model in ``model_dir`` (or at ``url``),
    its data sets, and the tolerances its outputs are compared with."""

    name: str
    model_name: str
    url: str | None
    model_dir: str | None
    model: ModelProto | None
    data_sets: Sequence[tuple[Sequence[Any], Sequence[Any]]] | None
    kind: str
    rtol: float
    atol: float
    __test__: bool = False  # not a test for pytest to collect
