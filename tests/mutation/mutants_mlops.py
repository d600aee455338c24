"""Mutants of the ai.onnx.ml operators of the reference evaluator (issue 43, branch mlops):
the post transforms, the linear models' coefficient layout, the SVM's one-against-one pairs
and Platt coupling, the tree walk and its aggregates, TreeEnsemble (opset 5), the
Normalizer, and ``run`` without numpy. Each is killed by the node tests, the scikit-learn
models or the CLI tests."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_NODES = "tests/differential/test_reference_ml_nodes.py"
_SKL = "tests/differential/test_reference_ml_sklearn.py"
_COMMON = "wirecodec/reference/ops/ml/common.py"
_LINEAR = "wirecodec/reference/ops/ml/linear.py"
_SVM = "wirecodec/reference/ops/ml/svm.py"
_TREES = "wirecodec/reference/ops/ml/trees.py"
_PREP = "wirecodec/reference/ops/ml/preprocessing.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "mlops-logistic-forgets-negatives",
        _COMMON,
        "return np.where(values < 0, 1.0 - positive, positive)",
        "return positive",
        (f"{_NODES}::test_linear_classifier_multiclass",),
        "LOGISTIC gives sigmoid(|v|): every negative score becomes a probability above 0.5",
    ),
    Mutant(
        "mlops-softmax-zero-counts-zeros",
        _COMMON,
        "nonzero = np.abs(values) > 1e-7",
        "nonzero = np.abs(values) >= 0",
        (f"{_NODES}::test_tree_ensemble_of_opset_5_post_transforms",),
        "SOFTMAX_ZERO exponentiates zeros too, so it is a plain softmax",
    ),
    Mutant(
        "mlops-probit-off-centre",
        _COMMON,
        "x = 2.0 * values - 1.0",
        "x = 2.0 * values",
        (
            f"{_NODES}::test_tree_ensemble_of_opset_5_post_transforms",
            f"{_NODES}::test_linear_classifier_multiclass",
        ),
        "PROBIT takes erfinv(2v) for erfinv(2v - 1)",
    ),
    Mutant(
        "mlops-binary-linear-scores-swapped",
        _LINEAR,
        "scores = np.concatenate([-scores, scores], axis=1)",
        "scores = np.concatenate([scores, -scores], axis=1)",
        (f"{_NODES}::test_linear_classifier_one_row_of_coefficients_for_two_classes",),
        "one row of coefficients for two classes scores the first class with the positive score",
    ),
    Mutant(
        "mlops-linear-coefficients-transposed",
        _LINEAR,
        "weights = coefficients[: targets * features].reshape(targets, features).astype(rows.dtype)",
        "weights = coefficients[: targets * features].reshape(features, targets).T.astype(rows.dtype)",
        (
            f"{_NODES}::test_linear_regressor_two_targets",
            f"{_SKL}::test_sklearn_model_as_onnxruntime_and_onnx_reference",
        ),
        "the coefficients are read column by column: each target gets every class's feature weights",
    ),
    Mutant(
        "mlops-svm-pair-coefficients-swapped",
        _SVM,
        "s = rho[pair] + kernel[:, si] @ coefs[j - 1, si] + kernel[:, sj] @ coefs[i, sj]",
        "s = rho[pair] + kernel[:, si] @ coefs[i, si] + kernel[:, sj] @ coefs[j - 1, sj]",
        (f"{_NODES}::test_svm_classifier_kernels_one_against_one",),
        "a pair (i, j) reads each class's vectors with the other pair's dual coefficients",
    ),
    Mutant(
        "mlops-svm-platt-sign",
        _SVM,
        "pairwise = np.clip(logistic(-(scores.astype(np.float32) * pa + pb)), 1e-7, 1 - 1e-7)",
        "pairwise = np.clip(logistic(scores.astype(np.float32) * pa + pb), 1e-7, 1 - 1e-7)",
        (f"{_NODES}::test_svm_classifier_probabilities_follow_onnxruntime",),
        "Platt scaling gives P(j | i or j) where P(i | i or j) is meant",
    ),
    Mutant(
        "mlops-tree-missing-goes-false",
        _TREES,
        "go = np.where(np.isnan(value), self.missing_true[current], go)",
        "go = np.where(np.isnan(value), False, go)",
        (f"{_NODES}::test_tree_classifier_rules_and_missing_values",),
        "a missing value always takes the false branch, whatever nodes_missing_value_tracks_true says",
    ),
    Mutant(
        "mlops-tree-leq-is-lt",
        _TREES,
        "_RULES = (np.less_equal, np.less,",
        "_RULES = (np.less, np.less,",
        (f"{_NODES}::test_random_forests_walk_as_onnx_reference",),
        "BRANCH_LEQ sends a value equal to the threshold down the false branch",
    ),
    Mutant(
        "mlops-tree-binary-negates-for-none",
        _TREES,
        'scores[:, 0] = 1 - scores[:, 1] if transform in ("NONE", "PROBIT") else -scores[:, 1]',
        "scores[:, 0] = -scores[:, 1]",
        (f"{_NODES}::test_tree_classifier_post_transforms",),
        "a single-score tree classifier writes -s for the first class where NONE writes 1 - s",
    ),
    Mutant(
        "mlops-tree-average-is-a-sum",
        _TREES,
        "out /= len(forest.tree_order)",
        "out /= 1",
        (
            f"{_NODES}::test_tree_regressor_aggregates",
            f"{_SKL}::test_sklearn_model_as_onnxruntime_and_onnx_reference",
        ),
        "AVERAGE forgets to divide by the number of trees (a random forest regressor sums)",
    ),
    Mutant(
        "mlops-tree5-membership-inverted",
        _TREES,
        "go[here] = (value[here][:, None] == found[None, :]).any(axis=1)",
        "go[here] = ~(value[here][:, None] == found[None, :]).any(axis=1)",
        (f"{_NODES}::test_tree_ensemble_of_opset_5_membership_missing_values_and_a_one_leaf_tree",),
        "a BRANCH_MEMBER node (TreeEnsemble, opset 5) takes the true branch for a value outside its set",
    ),
    Mutant(
        "mlops-normalizer-l2-without-root",
        _PREP,
        "divisor = np.sqrt(np.square(rows).sum(axis=1, keepdims=True))",
        "divisor = np.square(rows).sum(axis=1, keepdims=True)",
        (f"{_NODES}::test_normalizer",),
        "L2 divides by the sum of squares, not its root",
    ),
    Mutant(
        "mlops-run-forgets-the-numpy-check",
        "wirecodec/cli/run.py",
        "    _need_numpy()\n",
        "",
        ("tests/cli/test_run_without_numpy.py",),
        "run without numpy fails with a traceback of the first numpy import instead of one line",
    ),
)
