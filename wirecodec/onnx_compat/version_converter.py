"""``onnx.version_converter``: :func:`convert_version` and :class:`ConvertError`.

The same calls as onnx's module, served by :mod:`wirecodec.version_converter` (no onnx
needed, loaded on the first call): ``convert_version(model, target_version)`` returns a
converted copy, and a model that cannot be converted raises ``ConvertError`` (a
:class:`~wirecodec.errors.WireCodecError` and a ``ValueError``) naming the node.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wirecodec.errors import ConvertError

if TYPE_CHECKING:
    from schema_dsl.onnx import ModelProto

__all__ = ["ConvertError", "convert_version"]


def convert_version(model: ModelProto, target_version: int) -> ModelProto:
    """``onnx.version_converter.convert_version``: ``model`` converted to opset ``target_version``
    of the default domain (see :func:`wirecodec.version_converter.convert_version`)."""
    from wirecodec.version_converter import convert_version as convert

    return convert(model, target_version)
