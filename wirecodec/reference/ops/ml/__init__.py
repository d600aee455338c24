"""The ai.onnx.ml operators, one family per module: ``encoders`` (LabelEncoder, Binarizer,
ArrayFeatureExtractor), ``linear``, ``svm``, ``trees`` (every tree ensemble), ``preprocessing``
(Scaler, Normalizer, Imputer, OneHotEncoder, FeatureVectorizer) and ``maps`` (DictVectorizer,
ZipMap, CastMap, CategoryMapper); ``common`` holds what they share (post transforms, labels).

Importing this package registers nothing: the registry imports the family an operator needs.
"""
