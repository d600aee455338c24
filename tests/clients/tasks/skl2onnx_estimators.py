"""skl2onnx: three estimators and a pipeline converted to ONNX (the models' bytes, one after another)."""

import sys

import numpy as np
from skl2onnx import convert_sklearn
from skl2onnx.common.data_types import FloatTensorType
from sklearn.linear_model import LinearRegression, LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.tree import DecisionTreeClassifier

rng = np.random.RandomState(0)
X = rng.rand(40, 4).astype(np.float32)
y = (X[:, 0] + X[:, 1] > 1).astype(np.int64)
estimators = [
    LogisticRegression(max_iter=200).fit(X, y),
    DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y),
    StandardScaler().fit(X),
    make_pipeline(StandardScaler(), LinearRegression()).fit(X, X[:, 2]),
]
with open(sys.argv[1], "wb") as out:
    for estimator in estimators:
        onx = convert_sklearn(
            estimator, initial_types=[("X", FloatTensorType([None, 4]))], target_opset=18, name="model"
        )
        out.write(onx.SerializeToString())
