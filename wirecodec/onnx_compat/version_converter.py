"""``onnx.version_converter``, which wirecodec does not provide.

``convert_version`` and ``ConvertError`` raise :class:`~wirecodec.onnx_compat.NotProvidedError`.
"""

from wirecodec.onnx_compat._unsupported import missing_module_getattr

__getattr__ = missing_module_getattr(
    "onnx.version_converter",
    "the version converter needs operator schemas and per-operator adapters",
    frozenset({"convert_version", "ConvertError"}),
)
