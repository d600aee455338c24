"""``onnx.reference.ops.op_celu``: the Celu operator and its formula."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.onnx_compat.reference.ops._names.operators import operator_class

Celu = operator_class("Celu")


def _vcelu1(x: Any, alpha: float = 1.0) -> Any:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), in ``x``'s dtype.

    >>> _vcelu1(np.array([-1.0, 2.0]), alpha=1.0).round(4).tolist()
    [-0.6321, 2.0]
    """
    x = np.asarray(x)
    negative = alpha * np.expm1(np.minimum(x, 0) / alpha)
    return (np.maximum(x, 0) + negative).astype(x.dtype)
