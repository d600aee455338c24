"""Signal processing and detection: DFT, STFT, NonMaxSuppression."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


def _complex(x: Any) -> Any:
    return x[..., 0] if x.shape[-1] == 1 else x[..., 0] + 1j * x[..., 1]


def _dft(x: Any, length: int | None, axis: int, inverse: bool, onesided: bool) -> Any:
    signal = _complex(x if x.dtype in (np.float32, np.float64) else x.astype(np.float32))
    if inverse and onesided:
        # a one-sided spectrum back to a real signal
        n = 2 * (signal.shape[axis] - 1) if length is None else length
        return np.fft.irfft(signal, n=n, axis=axis)[..., None].astype(x.dtype)
    n = signal.shape[axis] if length is None else length
    y = np.fft.ifft(signal, n=n, axis=axis) if inverse else np.fft.fft(signal, n=n, axis=axis)
    if onesided:
        y = y[(slice(None),) * axis + (slice(0, n // 2 + 1),)]
    out = np.empty((*y.shape, 2), dtype=x.dtype)
    out[..., 0] = y.real
    out[..., 1] = y.imag
    return out


def _signal_axis(axis: int, rank: int) -> int:
    """The signal axis among the first rank-1 axes (the last axis holds real/imaginary)."""
    return axis + rank if axis < 0 else axis


@op("DFT", 17)
def _dft17(ctx: Ctx, x: Any, dft_length: Any = None, axis: Any = None) -> Any:
    if ctx.version >= 20:
        ax = -2 if axis is None else int(np.asarray(axis).reshape(-1)[0])
    else:
        ax = ctx.attrs.get("axis", 1)
    ax = _signal_axis(ax, x.ndim)
    length = None if dft_length is None else int(np.asarray(dft_length).reshape(-1)[0])
    return _dft(x, length, ax, bool(ctx.attrs.get("inverse", 0)), bool(ctx.attrs.get("onesided", 0)))


@op("STFT", 17)
def _stft(ctx: Ctx, signal: Any, frame_step: Any, window: Any = None, frame_length: Any = None) -> Any:
    step = int(np.asarray(frame_step).reshape(-1)[0])
    if frame_length is not None:
        length = int(np.asarray(frame_length).reshape(-1)[0])
    else:
        length = int(window.shape[0])
    frames = (signal.shape[1] - length) // step + 1
    # every frame at once: [batch, frame, length, 1 or 2], one FFT along the frame's samples
    starts = np.arange(frames)[:, None] * step + np.arange(length)[None, :]
    framed = signal[:, starts, :]
    if window is not None:
        # weighted in the inputs' type, as onnx's STFT does (and its tests' expected values)
        framed = framed * window.reshape(1, 1, -1, 1)
    return _dft(framed, None, 2, False, bool(ctx.attrs.get("onesided", 1))).astype(signal.dtype)


def _corners(boxes: Any, center: int) -> Any:
    if center:
        xc, yc, w, h = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
        return np.stack([yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2], axis=1)
    y1 = np.minimum(boxes[:, 0], boxes[:, 2])
    y2 = np.maximum(boxes[:, 0], boxes[:, 2])
    x1 = np.minimum(boxes[:, 1], boxes[:, 3])
    x2 = np.maximum(boxes[:, 1], boxes[:, 3])
    return np.stack([y1, x1, y2, x2], axis=1)


def _iou(a: Any, b: Any) -> float:
    ih = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iw = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ih * iw
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return float(inter / union) if union > 0 else 0.0


@op("NonMaxSuppression", 10)
def _nms(
    ctx: Ctx,
    boxes: Any,
    scores: Any,
    max_boxes: Any = None,
    iou_threshold: Any = None,
    score_threshold: Any = None,
) -> Any:
    limit = 0 if max_boxes is None or not np.size(max_boxes) else int(np.asarray(max_boxes).reshape(-1)[0])
    iou_max = (
        0.0
        if iou_threshold is None or not np.size(iou_threshold)
        else float(np.asarray(iou_threshold).reshape(-1)[0])
    )
    floor = (
        None
        if score_threshold is None or not np.size(score_threshold)
        else float(np.asarray(score_threshold).reshape(-1)[0])
    )
    center = ctx.attrs.get("center_point_box", 0)
    selected: list[list[int]] = []
    for b in range(boxes.shape[0]):
        corners = _corners(boxes[b].astype(np.float64), center)
        for c in range(scores.shape[1]):
            s = scores[b, c]
            order = [int(i) for i in np.argsort(-s, kind="stable") if floor is None or s[i] > floor]
            kept: list[int] = []
            for i in order:
                if len(kept) >= limit:
                    break
                if all(_iou(corners[i], corners[k]) <= iou_max for k in kept):
                    kept.append(i)
            selected.extend([b, c, k] for k in kept)
    return np.array(selected, dtype=np.int64).reshape(-1, 3)


def _window(ctx: Ctx, size: Any, coefficients: tuple[float, ...]) -> Any:
    """A generalised cosine window: sum_k (-1)^k a_k cos(2 pi k n / N)."""
    from wirecodec.tensors import numpy_dtype

    length = int(np.asarray(size).reshape(-1)[0])
    denominator = length if ctx.attrs.get("periodic", 1) else length - 1
    n = np.arange(length, dtype=np.float64)
    out = np.zeros(length)
    for k, a in enumerate(coefficients):
        out += (-1) ** k * a * np.cos(2 * np.pi * k * n / denominator) if denominator else a * (-1) ** k
    return out.astype(numpy_dtype(ctx.attrs.get("output_datatype", 1)))


@op("HannWindow", 17)
def _hann(ctx: Ctx, size: Any) -> Any:
    return _window(ctx, size, (0.5, 0.5))


@op("HammingWindow", 17)
def _hamming(ctx: Ctx, size: Any) -> Any:
    return _window(ctx, size, (25 / 46, 21 / 46))


@op("BlackmanWindow", 17)
def _blackman(ctx: Ctx, size: Any) -> Any:
    return _window(ctx, size, (0.42, 0.5, 0.08))
