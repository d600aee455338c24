"""ai.onnx.ml support vector machines: SVMClassifier, SVMRegressor.

With support vectors (``vectors_per_class`` / ``n_supports``) a classifier scores each pair
of classes one against one (libsvm's layout: the coefficients of class i's vectors against
class j are in row j-1, of class j's against class i in row i), votes, and with ``prob_a``
turns the pair scores into class probabilities by Platt scaling and libsvm's coupling;
without them it is linear, one row of coefficients per class.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.ml.common import (
    apply_post_transform,
    as_rows,
    bad,
    class_labels,
    floats,
    label_of,
    logistic,
    post_transform_name,
    probit,
    softmax,
    softmax_zero,
)

Ctx = Any
_ML = "ai.onnx.ml"
_KERNELS = ("LINEAR", "POLY", "RBF", "SIGMOID")


def _kernel(ctx: Ctx, rows: Any, vectors: Any) -> Any:
    """The kernel of every row against every support vector: [N, V]."""
    kind = ctx.attrs.get("kernel_type", "LINEAR")
    if kind not in _KERNELS:
        raise bad(ctx, f"kernel_type {kind!r} is not one of {', '.join(_KERNELS)}")
    params = list(ctx.attrs.get("kernel_params") or [])
    gamma, coef0, degree = [*params, 0.0, 0.0, 0.0][:3] if params else (0.0, 0.0, 0.0)
    if kind == "RBF":
        out = np.empty((rows.shape[0], vectors.shape[0]), dtype=rows.dtype)
        for j, vector in enumerate(vectors):
            diff = rows - vector
            out[:, j] = np.einsum("ij,ij->i", diff, diff)
        return np.exp(-gamma * out)
    dot = rows @ vectors.T
    if kind == "POLY":
        return (dot * gamma + coef0) ** int(degree)
    if kind == "SIGMOID":
        return np.tanh(dot * gamma + coef0)
    return dot


def _coupled(pairs: Any) -> Any:
    """Class probabilities from pairwise ones, row by row (libsvm's multiclass_probability,
    method 2 of Wu, Lin and Weng): ``pairs[r, i, j]`` is P(i | i or j) for row r.

    Every row iterates at once; a row stops changing once it meets the tolerance (its
    updates become the identity), so each ends where libsvm's loop for it alone ends."""
    n, k, _ = pairs.shape
    q = -np.transpose(pairs, (0, 2, 1)) * pairs
    diagonal = np.arange(k)
    q[:, diagonal, diagonal] = (pairs * pairs).sum(axis=1)
    p = np.full((n, k), 1.0 / k, dtype=pairs.dtype)
    eps = pairs.dtype.type(0.005 / k)
    active = np.ones(n, dtype=bool)
    for _ in range(max(100, k)):
        qp = np.einsum("rtj,rj->rt", q, p)
        pqp = (p * qp).sum(axis=1)
        active &= np.abs(qp - pqp[:, None]).max(axis=1) >= eps
        if not active.any():
            break
        for t in range(k):
            diff = np.where(active, (-qp[:, t] + pqp) / q[:, t, t], 0).astype(pairs.dtype)
            p[:, t] += diff
            pqp = (pqp + diff * (diff * q[:, t, t] + 2 * qp[:, t])) / (1 + diff) ** 2
            p /= (1 + diff)[:, None]
            qp = (qp + diff[:, None] * q[:, t, :]) / (1 + diff)[:, None]
    return p


def _binary_scores(transform: str, score: Any) -> Any:
    """The two columns onnx writes for a single pair score of a two-class SVM."""
    if transform == "PROBIT":
        return probit(score)
    both = np.concatenate([-score, score], axis=1)
    if transform == "LOGISTIC":
        return logistic(both)
    if transform == "SOFTMAX":
        return softmax(both)
    if transform == "SOFTMAX_ZERO":
        return softmax_zero(both)
    return both


@op("SVMClassifier", 1, _ML)
def _svm_classifier(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    transform = post_transform_name(ctx)
    labels = class_labels(ctx, "classlabels_ints", "classlabels_strings")
    n_classes = max(0 if labels is None else len(labels), 1)
    rows = as_rows(ctx, x)
    coefficients = floats(ctx, "coefficients")
    rho = floats(ctx, "rho")
    per_class = [int(v) for v in a.get("vectors_per_class") or []]
    n_vectors = sum(per_class)
    votes = None
    if n_vectors > 0:
        if len(per_class) != n_classes:
            raise bad(ctx, f"vectors_per_class has {len(per_class)} entries for {n_classes} classes")
        vectors = floats(ctx, "support_vectors")
        if vectors.size % n_vectors or vectors.size // n_vectors != rows.shape[1]:
            raise bad(
                ctx, f"{vectors.size} support vector values are not {n_vectors} vectors of {rows.shape[1]}"
            )
        if coefficients.size != (n_classes - 1) * n_vectors:
            raise bad(ctx, f"{coefficients.size} coefficients for {n_classes - 1} x {n_vectors} expected")
        n_pairs = n_classes * (n_classes - 1) // 2
        if rho.size < n_pairs:
            raise bad(ctx, f"rho has {rho.size} values for {n_pairs} pairs of classes")
        kernel = _kernel(ctx, rows, vectors.reshape(n_vectors, -1).astype(rows.dtype))
        coefs = coefficients.reshape(n_classes - 1, n_vectors)
        starts = np.concatenate([[0], np.cumsum(per_class)])
        scores = np.empty((rows.shape[0], n_pairs))
        votes = np.zeros((rows.shape[0], n_classes), dtype=np.int64)
        pair = 0
        for i in range(n_classes):
            si = slice(starts[i], starts[i + 1])
            for j in range(i + 1, n_classes):
                sj = slice(starts[j], starts[j + 1])
                s = rho[pair] + kernel[:, si] @ coefs[j - 1, si] + kernel[:, sj] @ coefs[i, sj]
                scores[:, pair] = s
                votes[:, i] += s > 0
                votes[:, j] += s <= 0
                pair += 1
        prob_a = floats(ctx, "prob_a", required=False)
        has_proba = prob_a is not None and prob_a.size > 0
        if has_proba:
            prob_b = floats(ctx, "prob_b")
            if prob_a.size < n_pairs or prob_b.size < n_pairs:
                raise bad(ctx, f"prob_a and prob_b need {n_pairs} values each")
            # Platt scaling and the coupling in float32 on the pair scores (float64 sums of
            # the float32 kernel), as onnxruntime computes: the coupling stops at a
            # tolerance, so the precision decides where it stops (within 1e-6 of it so)
            pa, pb = prob_a[:n_pairs].astype(np.float32), prob_b[:n_pairs].astype(np.float32)
            pairwise = np.clip(logistic(-(scores.astype(np.float32) * pa + pb)), 1e-7, 1 - 1e-7)
            pairwise = pairwise.astype(np.float32)
            upper = np.triu_indices(n_classes, 1)
            square = np.zeros((rows.shape[0], n_classes, n_classes), dtype=np.float32)
            square[:, upper[0], upper[1]] = pairwise
            square[:, upper[1], upper[0]] = 1 - pairwise
            scores = _coupled(square)
        picked = np.argmax(votes, axis=1)
        best = votes[np.arange(rows.shape[0]), picked]
    else:
        has_proba = False
        if coefficients.size % n_classes or coefficients.size // n_classes != rows.shape[1]:
            raise bad(ctx, f"{coefficients.size} coefficients are not {n_classes} rows of {rows.shape[1]}")
        scores = rows @ coefficients.reshape(n_classes, -1).astype(rows.dtype).T + rho[0]
        picked = np.argmax(scores, axis=1)
        best = scores[np.arange(rows.shape[0]), picked]
    binary = rho.size == 1 and labels is not None and len(labels) == 2
    if binary and not has_proba and coefficients.min(initial=0.0) >= 0:
        # onnx's rule for a two-class model whose weights are all positive: the second class
        # once the winner's weight reaches 0.5
        picked = np.where(best >= 0.5, 1, picked)
    if scores.shape[1] == 1 and binary:
        out = _binary_scores(transform, scores)
    else:
        out = apply_post_transform(transform, scores)
    return label_of(labels, picked), out.astype(np.float32)


@op("SVMRegressor", 1, _ML)
def _svm_regressor(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    transform = post_transform_name(ctx)
    rows = as_rows(ctx, x)
    coefficients = floats(ctx, "coefficients")
    rho = floats(ctx, "rho")
    if rho.size < 1:
        raise bad(ctx, "rho is empty")
    n_supports = int(a.get("n_supports", 0))
    if n_supports > 0:
        vectors = floats(ctx, "support_vectors")
        if vectors.size != n_supports * rows.shape[1]:
            raise bad(
                ctx, f"{vectors.size} support vector values are not {n_supports} vectors of {rows.shape[1]}"
            )
        if coefficients.size < n_supports:
            raise bad(ctx, f"{coefficients.size} coefficients for {n_supports} support vectors")
        kernel = _kernel(ctx, rows, vectors.reshape(n_supports, -1).astype(rows.dtype))
        score = kernel @ coefficients[:n_supports] + rho[0]
    else:
        if coefficients.size != rows.shape[1]:
            raise bad(ctx, f"{coefficients.size} coefficients for {rows.shape[1]} features")
        score = rows @ coefficients.astype(rows.dtype) + rho[0]
    if a.get("one_class", 0):
        score = np.where(score > 0, 1.0, -1.0)
    return apply_post_transform(transform, score.reshape(-1, 1)).astype(np.float32)
