"""``onnx.parser``: :mod:`wirecodec.parser`'s functions and the error they raise, under onnx's names."""

from wirecodec.errors import ParseError
from wirecodec.parser import parse_function, parse_graph, parse_model, parse_node

__all__ = ["ParseError", "parse_function", "parse_graph", "parse_model", "parse_node"]
