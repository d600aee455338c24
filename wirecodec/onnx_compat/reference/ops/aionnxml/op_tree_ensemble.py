"""``onnx.reference.ops.aionnxml.op_tree_ensemble``: TreeEnsemble's (ai.onnx.ml 5) integer codes.

The values are the schema's: ``aggregate_function``, ``post_transform`` and ``nodes_modes``.
"""

from __future__ import annotations

from enum import IntEnum


class AggregationFunction(IntEnum):
    """``aggregate_function`` of TreeEnsemble."""

    AVERAGE = 0
    SUM = 1
    MIN = 2
    MAX = 3


class PostTransform(IntEnum):
    """``post_transform`` of TreeEnsemble."""

    NONE = 0
    SOFTMAX = 1
    LOGISTIC = 2
    SOFTMAX_ZERO = 3
    PROBIT = 4


class Mode(IntEnum):
    """``nodes_modes`` of TreeEnsemble: the rule a node tests."""

    LEQ = 0
    LT = 1
    GTE = 2
    GT = 3
    EQ = 4
    NEQ = 5
    MEMBER = 6
