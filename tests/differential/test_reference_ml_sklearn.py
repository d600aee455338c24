"""scikit-learn models converted by skl2onnx, run by wirecodec's reference evaluator,
onnxruntime and onnx.reference on the same seeded inputs (issue 43, the ai.onnx.ml operators).

Labels must be equal, scores and values within 1e-5 (relative and absolute). onnxruntime
is the oracle for every model; onnx.reference too where it can run the model, except
where it is known to be wrong or shaped differently (each case says why):

- it has no ZipMap, so the models with a zipmap are compared with onnxruntime alone;
- its SVM probability coupling builds the off-diagonal of libsvm's Q matrix from a dot
  product (one number for the whole row), so its SVC probabilities are off by up to 0.13:
  the labels are compared with it, the probabilities with onnxruntime (and scikit-learn);
- its DictVectorizer gives one map's row 1-D, as the schema says and wirecodec does, where
  onnxruntime gives it as [1, V]: compared with onnxruntime by value, with onnx.reference in
  shape (its values are float64 where the schema's float map gives float32).

The models are trained once per module (a few seconds).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("onnx", reason="onnx.reference is one of the oracles")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is the oracle of the ai.onnx.ml operators")
pytest.importorskip("sklearn", reason="the models are trained by scikit-learn")
pytest.importorskip("skl2onnx", reason="the models are converted by skl2onnx")

OPSETS = {"": 17, "ai.onnx.ml": 3}

# name -> (what onnx.reference is compared on: "all", "labels", "values" or None, why not all)
MODELS: dict[str, tuple[str | None, str]] = {
    "logreg-multi": ("all", ""),
    "logreg-binary": ("all", ""),
    "logreg-strings": ("all", ""),
    "logreg-multi-zipmap": (None, "onnx.reference has no ZipMap"),
    "logreg-binary-zipmap": (None, "onnx.reference has no ZipMap"),
    "logreg-one-row": ("all", ""),
    "linear-regression": ("all", ""),
    "linear-svc": ("all", ""),
    "linear-svc-binary": ("all", ""),
    "linear-svc-strings": ("all", ""),
    "svc-rbf-proba": ("labels", "onnx.reference's SVM probability coupling is wrong"),
    "svc-poly-proba": ("labels", "onnx.reference's SVM probability coupling is wrong"),
    "svc-linear-proba": ("labels", "onnx.reference's SVM probability coupling is wrong"),
    "svc-rbf-proba-zipmap": (None, "onnx.reference has no ZipMap"),
    "svc-strings-proba": ("labels", "onnx.reference's SVM probability coupling is wrong"),
    "svc-rbf": ("all", ""),
    "svc-binary-proba": ("all", ""),
    "svc-binary": ("all", ""),
    "svc-binary-strings": (None, "onnx.reference fails on a two-class SVM with string labels"),
    "svr-rbf": ("all", ""),
    "svr-linear": ("all", ""),
    "decision-tree-classifier": ("all", ""),
    "decision-tree-regressor": ("all", ""),
    "random-forest-classifier": ("all", ""),
    "random-forest-binary": ("all", ""),
    "random-forest-strings-zipmap": (None, "onnx.reference has no ZipMap"),
    "random-forest-regressor": ("all", ""),
    "random-forest-two-targets": ("all", ""),
    "gradient-boosting-classifier": ("all", ""),
    "gradient-boosting-binary": ("all", ""),
    "gradient-boosting-strings": ("all", ""),
    "gradient-boosting-regressor": ("all", ""),
    "standard-scaler": ("all", ""),
    "normalizer": ("all", ""),
    "simple-imputer": ("all", ""),
    "one-hot-ints": ("all", ""),
    "one-hot-strings": ("all", ""),
    "dict-vectorizer": ("values", "onnx.reference gives float64 values (the schema: float32)"),
    "pipeline-scaler-logreg": ("all", ""),
    "pipeline-imputer-scaler-gb": ("all", ""),
}
# models whose outputs onnxruntime shapes otherwise than the schema (compared by value)
ORT_SHAPES = {"dict-vectorizer": "onnxruntime gives one map's row as [1, V], the schema 1-D"}


def _convert(model: Any, sample: Any, zipmap: bool = False) -> bytes:
    """The model as ONNX bytes; a classifier with or without its ZipMap."""
    from skl2onnx import to_onnx

    try:
        onx = to_onnx(model, sample, options={id(model): {"zipmap": zipmap}}, target_opset=OPSETS)
    except (NameError, RuntimeError) as exc:  # a model that is not a classifier has no such option
        if zipmap or "zipmap" not in str(exc):
            raise
        onx = to_onnx(model, sample, target_opset=OPSETS)
    return onx.SerializeToString()  # type: ignore[no-any-return]


def _build() -> dict[str, tuple[bytes, dict[str, Any]]]:
    from skl2onnx import convert_sklearn
    from skl2onnx.common.data_types import DictionaryType, FloatTensorType, StringTensorType
    from sklearn.datasets import load_iris, make_regression
    from sklearn.ensemble import (
        GradientBoostingClassifier,
        GradientBoostingRegressor,
        RandomForestClassifier,
        RandomForestRegressor,
    )
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.impute import SimpleImputer
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import Normalizer, OneHotEncoder, StandardScaler
    from sklearn.svm import SVC, SVR, LinearSVC
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    rng = np.random.default_rng(0)
    x, y = load_iris(return_X_y=True)
    x = x.astype(np.float32)
    binary = (y == 2).astype(np.int64)
    names = np.array(["setosa", "versicolor", "virginica"], dtype=object)[y]
    yes_no = np.where(binary == 1, "yes", "no")
    xr, yr = make_regression(60, 5, random_state=0)
    xr = xr.astype(np.float32)
    holes = x.copy()
    holes[::7, 1] = np.nan
    holes[3::11, 3] = np.nan
    cats = rng.integers(0, 4, size=(40, 2)).astype(np.int64)
    words = np.array(["a", "b", "c"], dtype=object)[rng.integers(0, 3, size=(40, 2))]
    built: dict[str, tuple[bytes, dict[str, Any]]] = {}

    def add(name: str, model: Any, data: Any, zipmap: bool = False) -> None:
        built[name] = (_convert(model, data[:1], zipmap=zipmap), {"X": data})

    logreg = LogisticRegression(max_iter=500).fit(x, y)
    add("logreg-multi", logreg, x)
    add("logreg-multi-zipmap", logreg, x, zipmap=True)
    logreg_binary = LogisticRegression(max_iter=500).fit(x, binary)
    add("logreg-binary", logreg_binary, x)
    add("logreg-binary-zipmap", logreg_binary, x, zipmap=True)
    add("logreg-strings", LogisticRegression(max_iter=500).fit(x, names), x)
    add("logreg-one-row", logreg, x[4:5])
    add("linear-regression", LinearRegression().fit(xr, yr), xr)
    add("linear-svc", LinearSVC().fit(x, y), x)
    add("linear-svc-binary", LinearSVC().fit(x, binary), x)
    add("linear-svc-strings", LinearSVC().fit(x, names), x)
    svc = SVC(probability=True, random_state=0).fit(x, y)
    add("svc-rbf-proba", svc, x)
    add("svc-rbf-proba-zipmap", svc, x, zipmap=True)
    add("svc-poly-proba", SVC(kernel="poly", probability=True, random_state=0).fit(x, y), x)
    add("svc-linear-proba", SVC(kernel="linear", probability=True, random_state=0).fit(x, y), x)
    add("svc-strings-proba", SVC(probability=True, random_state=0).fit(x, names), x)
    add("svc-rbf", SVC().fit(x, y), x)
    add("svc-binary-proba", SVC(probability=True, random_state=0).fit(x, binary), x)
    add("svc-binary", SVC().fit(x, binary), x)
    add("svc-binary-strings", SVC().fit(x, yes_no), x)
    add("svr-rbf", SVR().fit(xr, yr), xr)
    add("svr-linear", SVR(kernel="linear").fit(xr, yr), xr)
    add("decision-tree-classifier", DecisionTreeClassifier(random_state=0).fit(x, y), x)
    add("decision-tree-regressor", DecisionTreeRegressor(random_state=0).fit(xr, yr), xr)
    add("random-forest-classifier", RandomForestClassifier(10, random_state=0).fit(x, y), x)
    add("random-forest-binary", RandomForestClassifier(10, random_state=0).fit(x, binary), x)
    add("random-forest-strings-zipmap", RandomForestClassifier(5, random_state=0).fit(x, names), x, True)
    add("random-forest-regressor", RandomForestRegressor(10, random_state=0).fit(xr, yr), xr)
    two = np.stack([yr, -yr], axis=1)
    add("random-forest-two-targets", RandomForestRegressor(5, random_state=0).fit(xr, two), xr)
    add(
        "gradient-boosting-classifier",
        GradientBoostingClassifier(n_estimators=10, random_state=0).fit(x, y),
        x,
    )
    add(
        "gradient-boosting-binary",
        GradientBoostingClassifier(n_estimators=10, random_state=0).fit(x, binary),
        x,
    )
    add(
        "gradient-boosting-strings",
        GradientBoostingClassifier(n_estimators=5, random_state=0).fit(x, names),
        x,
    )
    add(
        "gradient-boosting-regressor",
        GradientBoostingRegressor(n_estimators=10, random_state=0).fit(xr, yr),
        xr,
    )
    add("standard-scaler", StandardScaler().fit(x), x)
    add("normalizer", Normalizer().fit(x), x)
    add("simple-imputer", SimpleImputer().fit(holes), holes)
    add("one-hot-ints", OneHotEncoder(handle_unknown="ignore").fit(cats[:30]), cats)
    add("one-hot-strings", OneHotEncoder().fit(words), words)
    add(
        "pipeline-scaler-logreg",
        make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(x, y),
        x,
    )
    gb_pipe = make_pipeline(SimpleImputer(), StandardScaler(), GradientBoostingClassifier(n_estimators=5))
    add("pipeline-imputer-scaler-gb", gb_pipe.fit(holes, y), holes)
    records = [{"a": 1.0, "b": 2.0}, {"b": 3.0, "c": 4.5}, {"a": -1.0, "d": 7.0}]
    vectorizer = DictVectorizer(sparse=False).fit(records)
    onx = convert_sklearn(
        vectorizer,
        initial_types=[("X", DictionaryType(StringTensorType([1]), FloatTensorType([1])))],
        target_opset=OPSETS,
    )
    built["dict-vectorizer"] = (onx.SerializeToString(), {"X": records[1]})
    assert sorted(built) == sorted(MODELS)
    return built


@pytest.fixture(scope="module")
def models() -> dict[str, tuple[bytes, dict[str, Any]]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # convergence and deprecation notes of scikit-learn
        return _build()


def assert_same(want: Any, got: Any, what: str, exact_type: bool = True) -> None:
    """Labels equal, numbers within 1e-5; a list of maps key by key."""
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), what
        for w, g in zip(want, got, strict=True):
            assert sorted(w) == sorted(g), f"{what}: keys {sorted(g)} != {sorted(w)}"
            np.testing.assert_allclose(
                [g[k] for k in w], [w[k] for k in w], rtol=1e-5, atol=1e-5, err_msg=what
            )
        return
    want, got = np.asarray(want), np.asarray(got)
    if exact_type:
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype} != {want.dtype}"
        assert got.shape == want.shape, f"{what}: shape {got.shape} != {want.shape}"
    if want.dtype.kind in "fc":
        np.testing.assert_allclose(
            got.astype(np.float64).reshape(want.shape), want, rtol=1e-5, atol=1e-5, err_msg=what
        )
    else:
        np.testing.assert_array_equal(got.reshape(want.shape), want, err_msg=what)


def _run_ours(data: bytes, feeds: dict[str, Any]) -> list[Any]:
    from wirecodec.reference import ReferenceEvaluator

    return ReferenceEvaluator(data).run(None, feeds)  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_sklearn_model_as_onnxruntime_and_onnx_reference(name: str, models: Any) -> None:
    import onnx

    data, feeds = models[name]
    operators = {node.op_type for node in onnx.load_from_string(data).graph.node}
    assert ("ZipMap" in operators) == name.endswith("zipmap"), sorted(operators)
    got = _run_ours(data, feeds)
    want = ort.InferenceSession(data, providers=["CPUExecutionProvider"]).run(None, feeds)
    assert len(got) == len(want)
    for index, (w, g) in enumerate(zip(want, got, strict=True)):
        if name in ORT_SHAPES:
            assert np.asarray(g).dtype == np.asarray(w).dtype, f"{name} output {index}: {ORT_SHAPES[name]}"
        assert_same(w, g, f"{name} output {index} against onnxruntime", exact_type=name not in ORT_SHAPES)
    against, _why = MODELS[name]
    if against is None:
        return
    from onnx.reference import ReferenceEvaluator as OnnxEvaluator

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = OnnxEvaluator(data).run(None, feeds)
    for index, (e, g) in enumerate(zip(expected, got, strict=True)):
        if against == "labels" and np.asarray(e).dtype.kind == "f":
            continue
        assert_same(e, g, f"{name} output {index} against onnx.reference", exact_type=False)
        assert np.shape(g) == np.shape(e), f"{name} output {index}: shape {np.shape(g)} != onnx.reference's"


@pytest.mark.parametrize("name", ["svc-rbf-proba", "svc-poly-proba", "svc-linear-proba"])
def test_svc_probabilities_are_scikit_learns(name: str, models: Any) -> None:
    """Where onnx.reference is wrong, scikit-learn (libsvm in double) is a third opinion."""
    data, feeds = models[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from sklearn.datasets import load_iris
        from sklearn.svm import SVC

        x, y = load_iris(return_X_y=True)
        kernel = {"svc-rbf-proba": "rbf", "svc-poly-proba": "poly", "svc-linear-proba": "linear"}[name]
        model = SVC(kernel=kernel, probability=True, random_state=0).fit(x.astype(np.float32), y)
        expected = model.predict_proba(feeds["X"].astype(np.float64))
    got = _run_ours(data, feeds)[1]
    np.testing.assert_allclose(got, expected, atol=1e-4)


@pytest.mark.quick
def test_logistic_regression_batch_of_one_and_many_agree(models: Any) -> None:
    data, feeds = models["logreg-multi"]
    labels, scores = _run_ours(data, feeds)
    one_labels, one_scores = _run_ours(data, {"X": feeds["X"][4:5]})
    assert one_labels.tolist() == labels[4:5].tolist()
    np.testing.assert_allclose(one_scores, scores[4:5], rtol=1e-6)
