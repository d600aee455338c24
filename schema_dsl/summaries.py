"""Short ``repr()`` of the ONNX messages that can be huge, as the onnx package prints them.

``repr(model)`` of a message holding megabytes of tensors would be megabytes of text
(a notebook shows it whole); onnx prints a one-line summary for ``ModelProto``,
``GraphProto`` and ``FunctionProto`` instead (it patches protobuf's ``__repr__`` of those
three), and so do these (tests compare them with the onnx package's). ``str()`` stays the
protobuf text format, and so is ``repr()`` of every other message, as protobuf's.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["function_summary", "graph_summary", "model_summary"]


def _opsets(imports: Iterable[Any]) -> str:
    return repr({entry.domain: entry.version for entry in imports})


def _counts(message: Any, fields: Iterable[tuple[str, str]]) -> str:
    """``, field=<N noun>`` for each non-empty repeated field, in the given order."""
    return "".join(
        f", {name}=<{len(getattr(message, name))} {noun}>" for name, noun in fields if getattr(message, name)
    )


def _quoted(message: Any, fields: Iterable[str]) -> str:
    """``, field='value'`` for each non-empty string field (quoted as onnx does, unescaped)."""
    return "".join(f", {name}='{getattr(message, name)}'" for name in fields if getattr(message, name))


def model_summary(model: Any) -> str:
    """``ModelProto(ir_version=.., opset_import={..}, ..., graph=GraphProto(..), functions=<N ..>)``."""
    opsets = f", opset_import={_opsets(model.opset_import)}" if model.opset_import else ""
    strings = _quoted(model, ("domain", "producer_name", "producer_version"))
    # The graph is always shown, as onnx does (a protobuf message is never false).
    functions = _counts(model, [("functions", "functions")])
    return f"ModelProto(ir_version={model.ir_version}{opsets}{strings}, graph={model.graph!r}{functions})"


def graph_summary(graph: Any) -> str:
    """``GraphProto('name', input=<N inputs>, output=<N outputs>, initializer=<..>, node=<..>, ...)``."""
    counts = _counts(
        graph,
        [
            ("input", "inputs"),
            ("output", "outputs"),
            ("initializer", "initializers"),
            ("node", "nodes"),
            ("value_info", "value_info"),
        ],
    )
    return f"GraphProto('{graph.name}'{counts})"


def function_summary(function: Any) -> str:
    """``FunctionProto('name', domain='..', overload='..', opset_import={..}, input=<..>, ...)``."""
    strings = _quoted(function, ("domain", "overload"))
    opsets = f", opset_import={_opsets(function.opset_import)}" if function.opset_import else ""
    inputs = _counts(function, [("input", "inputs"), ("output", "outputs")])
    attributes = f", attribute={function.attribute!r}" if function.attribute else ""
    nodes = _counts(function, [("node", "nodes")])
    return f"FunctionProto('{function.name}'{strings}{opsets}{inputs}{attributes}{nodes})"
