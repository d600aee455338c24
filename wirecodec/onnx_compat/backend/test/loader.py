"""``onnx.backend.test.loader``: :func:`load_model_tests`, the cases of a folder of onnx's
backend test data (``<data_dir>/<kind>/<test name>/``, each with ``model.onnx`` or a
``data.json`` naming a URL, and optional tolerances in ``data.json``).

onnx's own data folder is not shipped: ``data_dir`` must be given (onnx's default is its
package's ``backend/test/data``). The node cases (``kind="node"``), which onnx makes by
running its Python case generators, are read from ``<data_dir>/node`` when that folder
exists (what onnx's ``backend-test-tools generate-data`` writes), as any other kind.
"""

from __future__ import annotations

import json
import os
from typing import Any

from wirecodec.onnx_compat._unsupported import NotProvidedError
from wirecodec.onnx_compat.backend.test.case.test_case import TestCase

__all__ = ["DATA_DIR", "load_model_tests"]

DATA_DIR = ""  # onnx's test data is not shipped with wirecodec


def _read(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        found: dict[str, Any] = json.load(f)
    return found


def load_model_tests(data_dir: str = DATA_DIR, kind: str | None = None) -> list[TestCase]:
    """The test cases of ``data_dir``/``kind``, in the folder's listing order, as onnx's."""
    if not data_dir:
        raise NotProvidedError(
            "onnx.backend.test.loader.DATA_DIR is not provided by wirecodec: pass the data folder as data_dir"
        )
    supported_kinds = os.listdir(data_dir)
    if kind == "node" and kind not in supported_kinds:
        raise NotProvidedError(
            "onnx.backend.test.loader.load_model_tests(kind='node') is not provided by wirecodec "
            "(onnx generates these cases): only a data folder holding node/ has them"
        )
    if kind not in supported_kinds:
        raise ValueError(f"kind must be one of {supported_kinds}")
    cases = []
    kind_dir = os.path.join(data_dir, kind)
    for test_name in os.listdir(kind_dir):
        case_dir = os.path.join(kind_dir, test_name)
        if not os.path.isdir(case_dir):
            continue
        rtol, atol = 1e-3, 1e-7
        settings = os.path.join(case_dir, "data.json")
        data: dict[str, Any] = {}
        if os.path.exists(os.path.join(case_dir, "model.onnx")):
            url, model_dir = None, case_dir
            # onnx 1.23 takes one character here (test_name[len("test_")]); kept for equal results
            model_name = test_name[len("test_")]
            if os.path.exists(settings):
                data = _read(settings)
        else:  # a model by URL: its data.json must say where
            data = _read(settings)
            url, model_name, model_dir = data["url"], data["model_name"], None
        cases.append(
            TestCase(
                name=test_name,
                url=url,
                model_name=model_name,
                model_dir=model_dir,
                model=None,
                data_sets=None,
                kind=kind,
                rtol=data.get("rtol", rtol),
                atol=data.get("atol", atol),
            )
        )
    return cases
