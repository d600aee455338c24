"""``onnx.backend.test.case.node.roialign``: inputs for a RoiAlign case."""

from __future__ import annotations

from typing import Any


def get_roi_align_input_values() -> tuple[Any, Any, Any]:
    """``(X, batch_indices, rois)``: a 1x1x10x10 float32 image, three int64 batch indices
    (all 0) and three float32 boxes ``[x1, y1, x2, y2]`` inside it. The image's values are
    fixed (a smooth pattern in [0, 1)), so every call gives the same inputs.

    >>> x, indices, rois = get_roi_align_input_values()
    >>> x.shape, indices.tolist(), rois.shape
    ((1, 1, 10, 10), [0, 0, 0], (3, 4))
    """
    import numpy as np

    rows, cols = np.mgrid[0:10, 0:10].astype(np.float32)
    image = (np.sin(rows * 1.3 + cols * 0.7) * 0.5 + 0.5) * 0.999
    x = image.reshape(1, 1, 10, 10).astype(np.float32)
    batch_indices = np.array([0, 0, 0], dtype=np.int64)
    rois = np.array([[0, 0, 9, 9], [0, 5, 4, 9], [5, 5, 9, 9]], dtype=np.float32)
    return x, batch_indices, rois
