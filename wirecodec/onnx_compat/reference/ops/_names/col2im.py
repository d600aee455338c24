"""``onnx.reference.ops.op_col2im``: Col2Im of one image's columns (no batch axis)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from wirecodec.onnx_compat.reference.ops._names.operators import operator_class

Col2Im = operator_class("Col2Im")


def col2im_naive_implementation(
    data: Any,
    image_shape: Sequence[int],
    kernel_shape: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    strides: Sequence[int],
) -> Any:
    """Rebuild an image ``[C, *image_shape]`` from its columns ``[C * prod(kernel), L]``."""
    result = Col2Im.eval(
        np.asarray(data)[np.newaxis],
        np.asarray(image_shape, dtype=np.int64),
        np.asarray(kernel_shape, dtype=np.int64),
        dilations=[int(v) for v in dilations],
        pads=[int(v) for v in pads],
        strides=[int(v) for v in strides],
    )
    return result[0]


def _col2im_naive_implementation_2d(
    data: Any,
    image_shape: Sequence[int],
    kernel_shape: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
    strides: Sequence[int],
) -> Any:
    """The two-dimensional case of :func:`col2im_naive_implementation`."""
    if len(image_shape) != 2:
        raise ValueError(f"a 2-D image shape is expected, got {list(image_shape)}")
    return col2im_naive_implementation(data, image_shape, kernel_shape, dilations, pads, strides)
