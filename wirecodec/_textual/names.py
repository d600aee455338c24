"""The words of the ONNX textual syntax: element types, attribute types, header keys.

Element and attribute type names are the lower-cased enum names of ``onnx.proto``
(``float16``, ``float8e4m3fn``, ``type_protos``); a number without a name prints as
``undefined``, which no parser accepts.
"""

from __future__ import annotations

from typing import Final

from schema_dsl.onnx import AttributeProto, TensorProto

__all__ = [
    "ATTRIBUTE_TYPES",
    "ATTRIBUTE_TYPE_NAMES",
    "ELEMENT_TYPES",
    "ELEMENT_TYPE_NAMES",
    "TYPE_KEYWORDS",
    "attribute_type_name",
    "element_type_name",
]

# Every element type except UNDEFINED, by its syntax name.
ELEMENT_TYPES: Final[dict[str, int]] = {
    name.lower(): number for name, number in TensorProto.DataType.items() if number != 0
}
ELEMENT_TYPE_NAMES: Final[dict[int, str]] = {number: name for name, number in ELEMENT_TYPES.items()}

# Every attribute type except UNDEFINED, by its syntax name.
ATTRIBUTE_TYPES: Final[dict[str, int]] = {
    name.lower(): number for name, number in AttributeProto.AttributeType.items() if number != 0
}
ATTRIBUTE_TYPE_NAMES: Final[dict[int, str]] = {number: name for name, number in ATTRIBUTE_TYPES.items()}

# Words that start a type other than a tensor type.
TYPE_KEYWORDS: Final = frozenset({"seq", "map", "optional", "sparse_tensor", "opaque"})


def element_type_name(number: int) -> str:
    """The syntax name of an element type number (``undefined`` when it has none)."""
    return ELEMENT_TYPE_NAMES.get(number, "undefined")


def attribute_type_name(number: int) -> str:
    """The syntax name of an attribute type number (``undefined`` when it has none)."""
    return ATTRIBUTE_TYPE_NAMES.get(number, "undefined")
