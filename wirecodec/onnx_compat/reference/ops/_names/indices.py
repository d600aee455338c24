"""``onnx.reference.ops._op_common_indices``: flat index <-> multi-index helpers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _get_indices(i: int, shape: Sequence[int]) -> Any:
    """The multi-index (an int64 array) of flat position ``i`` in a C-ordered ``shape``.

    >>> _get_indices(5, (2, 3)).tolist()
    [1, 2]
    """
    return np.array(np.unravel_index(int(i), tuple(int(d) for d in shape)), dtype=np.int64)


def _is_out(ind: Sequence[int], shape: Sequence[int]) -> bool:
    """Whether a multi-index falls outside ``shape`` (a negative or too large coordinate).

    >>> _is_out((0, 3), (2, 3)), _is_out((1, 2), (2, 3))
    (True, False)
    """
    return any(i < 0 or i >= s for i, s in zip(ind, shape, strict=True))
