"""onnxmltools: a scikit-learn model converted through onnxmltools' front door."""

import sys

import numpy as np
import onnxmltools
from skl2onnx.common.data_types import FloatTensorType
from sklearn.ensemble import RandomForestRegressor

rng = np.random.RandomState(1)
X = rng.rand(30, 3).astype(np.float32)
model = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, X.sum(axis=1))
onx = onnxmltools.convert_sklearn(
    model, initial_types=[("X", FloatTensorType([None, 3]))], target_opset=17, name="forest"
)
with open(sys.argv[1], "wb") as out:
    out.write(onx.SerializeToString())
