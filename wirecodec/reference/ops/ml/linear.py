"""ai.onnx.ml linear models: LinearClassifier, LinearRegressor."""

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
    post_transform_name,
)

Ctx = Any
_ML = "ai.onnx.ml"


def _linear(ctx: Ctx, x: Any, count_name: str | None) -> Any:
    """``x @ coefficients.T + intercepts``, the coefficients read as [targets, features].

    The number of targets is ``targets`` (LinearRegressor), else the number of intercepts,
    else as many whole rows as the coefficients make. Coefficients past targets x features
    are not read, as onnxruntime reads them: onnxruntime's own logreg_iris.onnx declares an
    input of 2 features and carries 4 per class."""
    rows = as_rows(ctx, x)
    coefficients = floats(ctx, "coefficients")
    intercepts = floats(ctx, "intercepts", required=False)
    features = rows.shape[1]
    if count_name is not None:
        targets = ctx.attrs.get(count_name, 1)
    elif intercepts is not None and intercepts.size > 1:
        targets = intercepts.size
    elif features and coefficients.size % features == 0:
        targets = coefficients.size // features
    else:
        raise bad(ctx, f"{coefficients.size} coefficients do not make rows of {features} features")
    if not isinstance(targets, int) or targets < 1 or targets * features > coefficients.size:
        raise bad(
            ctx,
            f"{targets} targets of {features} features need {targets * features} coefficients, "
            f"there are {coefficients.size}",
        )
    weights = coefficients[: targets * features].reshape(targets, features).astype(rows.dtype)
    scores = rows @ weights.T
    if intercepts is not None and intercepts.size:
        if intercepts.size not in (1, targets):
            raise bad(ctx, f"{intercepts.size} intercepts for {targets} targets")
        scores = scores + intercepts.astype(rows.dtype)
    return scores


@op("LinearClassifier", 1, _ML)
def _linear_classifier(ctx: Ctx, x: Any) -> Any:
    transform = post_transform_name(ctx)
    labels = class_labels(ctx, "classlabels_ints", "classlabels_strings")
    scores = _linear(ctx, x, None)
    n_classes = 0 if labels is None else len(labels)
    if scores.shape[1] == 1 and n_classes == 2:
        # one set of coefficients for two classes: the first class scores its negation
        scores = np.concatenate([-scores, scores], axis=1)
    scores = apply_post_transform(transform, scores)
    if scores.shape[1] > 1:
        predicted = label_of(labels, np.argmax(scores, axis=1))
    else:
        threshold = 0.0 if transform == "NONE" else 0.5
        above = scores[:, 0] >= threshold
        if labels is None:
            predicted = above.astype(np.int64)
        elif labels.dtype == object:
            predicted = np.where(above, labels[0], "").astype(object)
        else:
            predicted = np.where(above, labels[0], 0).astype(np.int64)
    return predicted, scores.astype(np.float32)


@op("LinearRegressor", 1, _ML)
def _linear_regressor(ctx: Ctx, x: Any) -> Any:
    transform = post_transform_name(ctx)
    scores = _linear(ctx, x, "targets")
    return apply_post_transform(transform, scores).astype(np.float32)
