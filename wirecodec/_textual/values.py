"""Reading the value-level constructs of the ONNX textual syntax: types, tensors, attributes.

:class:`ValueReader` knows everything below a node: a type (``float[N,3]``,
``seq(map(int64, float))``), a tensor literal (``float[2] {1, 2.5}``), an attribute
(``axes: ints = [0, -1]``). The graph-level reader in :mod:`wirecodec.parser`
extends it, and supplies :meth:`ValueReader.graph` for graph-valued attributes.

Fields are set exactly where the reference parser sets them, because presence is part
of the encoding: a tensor read from text always has a ``name`` (maybe empty) and a
``data_type``, a scalar type has an empty ``shape`` while ``float[]`` has none.
"""

from __future__ import annotations

from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    StringStringEntryProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
)
from wirecodec._textual.lexer import Literal, LiteralKind, Scanner
from wirecodec._textual.names import ATTRIBUTE_TYPES, ELEMENT_TYPES, TYPE_KEYWORDS, attribute_type_name
from wirecodec._textual.numbers import INT32_MAX, INT32_MIN, INT64_MAX, INT64_MIN

__all__ = ["ValueReader"]

_T = TensorProto.DataType
_A = AttributeProto.AttributeType

# Element types whose values the syntax writes as integers in int32_data.
_INT32_DATA = frozenset(
    {
        _T.INT2, _T.INT4, _T.INT8, _T.INT16, _T.INT32, _T.UINT2, _T.UINT4, _T.UINT8, _T.UINT16,
        _T.FLOAT16, _T.BFLOAT16, _T.FLOAT8E4M3FN, _T.FLOAT8E4M3FNUZ, _T.FLOAT8E5M2,
        _T.FLOAT8E5M2FNUZ, _T.FLOAT6E2M3, _T.FLOAT6E3M2, _T.FLOAT8E8M0, _T.BOOL, _T.FLOAT4E2M1,
    }
)  # fmt: skip

# A list attribute's element type, and the attribute types that cannot be lists.
_SINGULAR: dict[int, int] = {
    _A.FLOATS: _A.FLOAT,
    _A.INTS: _A.INT,
    _A.STRINGS: _A.STRING,
    _A.TENSORS: _A.TENSOR,
    _A.GRAPHS: _A.GRAPH,
    _A.SPARSE_TENSORS: _A.SPARSE_TENSOR,
    _A.TYPE_PROTOS: _A.TYPE_PROTO,
}
_SINGLETONS = frozenset(_SINGULAR.values())


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


class ValueReader(Scanner):
    """Types, tensors and attributes; subclasses provide :meth:`graph`."""

    def graph(self) -> GraphProto:
        """A graph (``name (inputs) => (outputs) {nodes}``); defined by the graph reader."""
        raise NotImplementedError

    # -- types ------------------------------------------------------------------------

    def next_is_type(self) -> bool:
        """True when the next word starts a type."""
        word = self.peek_identifier()
        return word in ELEMENT_TYPES or word in TYPE_KEYWORDS

    def type_proto(self) -> TypeProto:
        """A type: ``float``, ``float[]``, ``float[N,3]``, ``seq(...)``, ``map(k, v)``, ..."""
        start = self.mark()
        word = self.identifier("a type")
        if word in ELEMENT_TYPES:
            tensor = TypeProto.Tensor(elem_type=ELEMENT_TYPES[word], **self._shape_part())
            return TypeProto(tensor_type=tensor)
        if word == "seq" or word == "optional":
            self.expect("(")
            inner = self.type_proto()
            self.expect(")")
            if word == "seq":
                return TypeProto(sequence_type=TypeProto.Sequence(elem_type=inner))
            return TypeProto(optional_type=TypeProto.Optional(elem_type=inner))
        if word == "map":
            self.expect("(")
            key = self._element_type("a primitive type as map key type")
            self.expect(",")
            value = self.type_proto()
            self.expect(")")
            return TypeProto(map_type=TypeProto.Map(key_type=key, value_type=value))
        if word == "sparse_tensor":
            self.expect("(")
            elem = self._element_type("an element type for the sparse tensor")
            sparse = TypeProto.SparseTensor(elem_type=elem, **self._shape_part())
            self.expect(")")
            return TypeProto(sparse_tensor_type=sparse)
        if word == "opaque":
            return TypeProto(opaque_type=self._opaque())
        self.fail(f"unknown type {word!r}", start)

    def _element_type(self, what: str) -> int:
        start = self.mark()
        word = self.identifier(what)
        if word not in ELEMENT_TYPES:
            self.fail(f"expected {what}, found {word!r}", start)
        return ELEMENT_TYPES[word]

    def _shape_part(self) -> dict[str, TensorShapeProto]:
        """After an element type: ``[dims]`` (a shape), ``[]`` (no shape) or nothing (rank 0)."""
        if not self.accept("["):
            return {"shape": TensorShapeProto()}
        if self.accept("]"):
            return {}
        shape = self._dims()
        self.expect("]")
        return {"shape": shape}

    def _dims(self) -> TensorShapeProto:
        return TensorShapeProto(dim=self.separated(self._dim))

    def _dim(self) -> TensorShapeProto.Dimension:
        """``?`` (unknown), a symbol (identifier or string), or a size."""
        if self.accept("?"):
            return TensorShapeProto.Dimension()
        if self.peek() == '"':
            return TensorShapeProto.Dimension(dim_param=self.string())
        symbol = self.optional_identifier()
        if symbol:
            return TensorShapeProto.Dimension(dim_param=symbol)
        return TensorShapeProto.Dimension(dim_value=self.int64("a dimension"))

    def _opaque(self) -> TypeProto.Opaque:
        """``opaque()``, ``opaque(name)`` or ``opaque(domain, name)``; a dotted word is a name."""
        self.expect("(")
        opaque = TypeProto.Opaque()
        if self.accept(")"):
            return opaque
        dotted = self.identifier("an opaque type name")
        while self.accept("."):
            dotted += "." + self.identifier("an opaque type name")
        if self.accept(","):
            opaque.domain = dotted
            opaque.name = self.identifier("an opaque type name")
        else:
            opaque.name = dotted
        self.expect(")")
        return opaque

    # -- tensors ----------------------------------------------------------------------

    def tensor_data(self, tensor: TensorProto, tp: TypeProto, type_start: int) -> None:
        """Fill ``tensor`` from its type and an optional ``{values}`` or ``[external data]``."""
        if tp.WhichOneof("value") != "tensor_type":
            self.fail("a tensor value needs a tensor type", type_start)
        tensor.data_type = tp.tensor_type.elem_type
        if not tp.tensor_type.HasField("shape"):
            self.fail("a tensor value needs a shape ('float' or 'float[2,3]', not 'float[]')", type_start)
        for dim in tp.tensor_type.shape.dim:
            if not dim.HasField("dim_value"):
                self.fail("a tensor value needs numeric dimensions", type_start)
            tensor.dims.append(dim.dim_value)
        if self.accept("{"):
            if not self.accept("}"):
                self.separated(lambda: self._element(tensor))
                self.expect("}")
        elif self.accept("["):
            tensor.data_location = TensorProto.DataLocation.EXTERNAL
            tensor.external_data.extend(self.string_pairs())
            self.expect("]")

    def _element(self, tensor: TensorProto) -> None:
        dtype = tensor.data_type
        if dtype in _INT32_DATA:
            lit = self.literal()
            self._require(lit, LiteralKind.INT, "an integer")
            tensor.int32_data.append(self.int_value(lit, INT32_MIN, INT32_MAX))
        elif dtype == _T.INT64:
            tensor.int64_data.append(self.int64())
        elif dtype in (_T.UINT32, _T.UINT64):
            tensor.uint64_data.append(self.uint64())
        elif dtype in (_T.FLOAT, _T.COMPLEX64):
            tensor.float_data.append(self.number())
        elif dtype in (_T.DOUBLE, _T.COMPLEX128):
            tensor.double_data.append(self.number(double=True))
        else:  # STRING: every element type has a branch
            tensor.string_data.append(_utf8(self.string()))

    def _require(self, lit: Literal, kind: LiteralKind, what: str) -> None:
        if lit.kind is not kind:
            self.fail(f"expected {what}", lit.start)

    def string_pairs(self) -> list[StringStringEntryProto]:
        """``"key": "value"`` entries separated by commas (at least one)."""
        return self.separated(self._string_pair)

    def _string_pair(self) -> StringStringEntryProto:
        key = self.string("a key in double quotes")
        self.expect(":")
        return StringStringEntryProto(key=key, value=self.string("a value in double quotes"))

    # -- attributes -------------------------------------------------------------------

    def attribute_list(self) -> list[AttributeProto]:
        """``<attr, attr, ...>``, or nothing (an empty list) when no ``<`` comes next."""
        if not self.accept("<"):
            return []
        attributes = self.separated(self._attribute)
        self.expect(">")
        return attributes

    def _attribute(self) -> AttributeProto:
        attr = AttributeProto()
        self.attribute_body(attr, self.identifier("an attribute name"))
        return attr

    def attribute_body(self, attr: AttributeProto, name: str) -> None:
        """What follows an attribute's name: ``[: type] = value`` or ``= [values]``."""
        attr.name = name
        if self.accept(":"):
            start = self.mark()
            word = self.identifier("an attribute type")
            if word not in ATTRIBUTE_TYPES:
                self.fail(f"unknown attribute type {word!r}", start)
            attr.type = ATTRIBUTE_TYPES[word]
        self.expect("=")
        if self.peek() != "[":
            self._single_value(attr, attr.type)
            return
        bracket = self.pos
        self.expect("[")
        if self.peek() == "]":
            if attr.type == _A.UNDEFINED:
                self.fail("an empty list needs a type annotation (name: ints = [])", bracket)
            if attr.type in _SINGLETONS:
                self.fail(f"an attribute of type {attribute_type_name(attr.type)} cannot be a list", bracket)
        else:
            self.separated(lambda: self._list_item(attr))
        self.expect("]")

    def _list_item(self, attr: AttributeProto) -> None:
        item = AttributeProto()
        self._single_value(item, _SINGULAR.get(attr.type, attr.type))
        if item.type == _A.INT:
            attr.type = _A.INTS
            attr.ints.append(item.i)
        elif item.type == _A.FLOAT:
            attr.type = _A.FLOATS
            attr.floats.append(item.f)
        elif item.type == _A.STRING:
            attr.type = _A.STRINGS
            attr.strings.append(item.s)
        # The reference reads tensors, graphs and types in a list but keeps none of them.

    def _single_value(self, attr: AttributeProto, expected: int) -> None:
        start = self.mark()
        first = self.peek()
        if first.isascii() and (first.isalpha() or first == "_"):
            self._word_value(attr)
        elif self.accept("@"):
            attr.ref_attr_name = self.quotable_identifier("the referenced attribute's name")
        else:
            lit = self.literal()
            if lit.kind is LiteralKind.NONE:
                self.fail("expected an attribute value", lit.start)
            if lit.kind is LiteralKind.STRING:
                attr.type = _A.STRING
                attr.s = _utf8(lit.text)
            elif lit.kind is LiteralKind.INT and expected != _A.FLOAT:
                attr.type = _A.INT
                attr.i = self.int_value(lit, INT64_MIN, INT64_MAX)
            else:  # a float, or an integer where a float is expected ("-0" stays negative)
                attr.type = _A.FLOAT
                attr.f = self.float_value(lit)
        if expected != _A.UNDEFINED and attr.type != expected:
            self.fail(
                f"expected a value of type {attribute_type_name(expected)}, "
                f"found {attribute_type_name(attr.type)}",
                start,
            )

    def _word_value(self, attr: AttributeProto) -> None:
        """A value that starts with a letter: a tensor, a type, inf/nan, or a graph."""
        if self.next_is_type():
            start = self.mark()
            tp = self.type_proto()
            if self.peek() in ("{", "=") or self.peek_identifier():
                attr.type = _A.TENSOR
                tensor = attr.t  # filled in place: an assignment would store a copy
                tensor.name = self.string() if self.peek() == '"' else self.optional_identifier()
                self.accept("=")
                self.tensor_data(tensor, tp, start)
            else:
                attr.type = _A.TYPE_PROTO
                attr.tp = tp
        elif self.next_is_float_word():
            lit = self.literal()
            attr.type = _A.FLOAT
            attr.f = self.float_value(lit)
        else:
            attr.type = _A.GRAPH
            attr.g = self.graph()
