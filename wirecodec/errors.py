"""The error contract: every failure the public API reports derives from WireCodecError.

Any other exception escaping :func:`wirecodec.decode`, :func:`wirecodec.load` or
:func:`wirecodec.to_array` on bad input is a bug (the fuzz harnesses hold us to it).
Each error also derives from the builtin a caller would naturally catch
(``ValueError`` for malformed data, ``OSError`` for file problems).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # only for the annotation: wirecodec.checker imports this module
    from wirecodec.checker.violation import Violation

__all__ = [
    "CheckError",
    "ContainerError",
    "ConvertError",
    "DecodeError",
    "EncodeError",
    "EvaluationError",
    "ExternalDataError",
    "GraphError",
    "LimitError",
    "NotAModelError",
    "NumpyMissingError",
    "ParseError",
    "PathError",
    "PayloadPassedError",
    "RemoteError",
    "TensorDecodeError",
    "TensorEncodeError",
    "TensorError",
    "WireCodecError",
]


class WireCodecError(Exception):
    """Root of every error wirecodec raises on purpose."""


class DecodeError(WireCodecError, ValueError):
    """The bytes are not a valid encoding of the requested message.

    ``offset`` is the absolute byte offset where the problem was found, ``path`` the
    field path from the top-level message (``ModelProto.graph.node[12].attribute[0]``)
    and ``reason`` the bare explanation.
    """

    def __init__(self, reason: str, offset: int, path: str = "") -> None:
        self.reason = reason
        self.offset = offset
        self._trail: list[str] = []
        self._root = path
        super().__init__(reason)

    def _enter(self, step: str) -> None:
        # Called while the error unwinds through enclosing messages: innermost step first.
        self._trail.append(step)

    def _set_root(self, name: str) -> None:
        if not self._root:
            self._root = name

    @property
    def path(self) -> str:
        return self._root + "".join(reversed(self._trail))

    def __str__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"{self.reason} (byte offset {self.offset}{where})"


class LimitError(DecodeError):
    """Input exceeded an explicit safety limit (nesting depth, size)."""


class NotAModelError(DecodeError):
    """The input decodes as no ONNX model at all: empty, or made only of fields ONNX does not have.

    Zero bytes are a valid encoding of an empty ModelProto, and protobuf keeps fields it
    does not know, so a text file can decode too; nobody means either by a model file.
    """


class PayloadPassedError(WireCodecError, OSError):
    """A tensor's bytes came through a pipe and were passed by, not kept: a pipe is read once,
    front to back, in bounded memory (the structure is kept, weights over 64 KiB are not).
    Read the model from a file (or a URL) to have them."""


class PathError(WireCodecError, LookupError):
    """A field path (``graph.node[3].attribute[0].t``) that does not lead anywhere: the
    message names the step that failed."""


class EncodeError(WireCodecError, ValueError):
    """A message holds a value that cannot be encoded; ``path`` names the field."""

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{reason} (at {path})" if path else reason)


class TensorError(WireCodecError, ValueError):
    """A tensor's content is invalid or unsupported (message names the tensor).

    Raised for negative or oversized ``dims``, a payload whose size does not match
    ``dims``, an unknown or UNDEFINED ``data_type``, data in the wrong field, segments,
    external data, and arrays whose dtype has no ONNX element type.
    """


class TensorDecodeError(TensorError, UnicodeDecodeError):
    """A string tensor's element is not UTF-8 (reading it as text): also the
    UnicodeDecodeError onnx's ``to_array`` raises. Built as a UnicodeDecodeError is
    (encoding, bytes, start, end, reason); the reason names the tensor and element."""


class TensorEncodeError(TensorError, UnicodeEncodeError):
    """A string given for a string tensor has no UTF-8 form (a lone surrogate): also the
    UnicodeEncodeError onnx's ``from_array`` raises. Built as a UnicodeEncodeError is."""


class ExternalDataError(WireCodecError, OSError):
    """External tensor data is missing, unsafe, or inconsistent with its reference."""


class RemoteError(WireCodecError, OSError):
    """A model or data file over HTTP (or an fsspec file system) could not be read as asked:
    the server refused, failed, or answered with other bytes than were asked for.

    ``url`` names the file and ``start``/``end`` the byte range asked for (``end``
    exclusive; both None when no range was involved); the message says both.
    """

    def __init__(self, reason: str, url: str, start: int | None = None, end: int | None = None) -> None:
        where = url if start is None or end is None else f"{url} bytes {start}-{max(start, end - 1)}"
        super().__init__(f"{where}: {reason}")
        self.reason = reason
        self.url = url
        self.start = start
        self.end = end

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.url, self.start, self.end))


class EvaluationError(WireCodecError, ValueError):
    """The reference evaluator cannot run a node: unknown operator, a missing input, a type
    or shape the operator does not take (``wirecodec.reference``).

    ``path`` names the node (``graph.node[3]``, ``graph.node[2].attribute[0].g.node[1]``
    inside a subgraph) and ``reason`` is the bare explanation.
    """

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{reason} (at {path})" if path else reason)


class GraphError(WireCodecError, ValueError):
    """A request names what a graph does not have, or would make an invalid graph.

    Raised by subgraph extraction and model composition (``wirecodec.utils``,
    ``wirecodec.compose``) for unknown tensor names, duplicated or colliding names and
    cuts that leave a node's input undefined; the message names the graph element.
    """


class ContainerError(WireCodecError, ValueError):
    """A zip model container is malformed or unsafe; the message names the entry.

    Raised for entries that overlap each other or the central directory, run past the
    end of the file, are compressed or encrypted, have names with a path or ``..``, for
    a missing or duplicated ``__MODEL_PROTO`` and for truncated archives.
    """


class CheckError(WireCodecError, ValueError):
    """A model violates the ONNX IR specification.

    ``violations`` lists every problem found (each a ``wirecodec.checker.Violation`` with
    ``path``, ``rule`` and ``message``); ``str()`` shows them all, one per line.
    """

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations: list[Violation] = list(violations)
        count = len(self.violations)
        head = f"the model breaks the ONNX IR specification in {count} place{'s' if count != 1 else ''}"
        super().__init__("\n".join([head + ":", *(f"  {v}" for v in self.violations)]))


class ConvertError(WireCodecError, ValueError, RuntimeError):
    """A model cannot be converted to the asked opset version (``wirecodec.version_converter``).

    Also a ``RuntimeError``: what onnx's converter raises when it refuses, so code written
    against onnx catches it.

    ``path`` names the node (``graph.node[3]``, ``graph.node[0].attribute[1].g.node[2]``)
    or the field (``opset_import``) where the conversion stopped, ``reason`` says why and
    what to do; the input model is left as it was.
    """

    def __init__(self, reason: str, path: str = "") -> None:
        self.reason = reason
        self.path = path
        super().__init__(f"{path}: {reason}" if path else reason)

    def __reduce__(self) -> tuple[object, ...]:
        return (type(self), (self.reason, self.path))


class ParseError(WireCodecError, ValueError):
    """Text that does not parse: protobuf text format, JSON, or the ONNX textual syntax.

    ``line`` and ``column`` (both 1-based) point at where the problem was found and
    ``reason`` says what was expected there.
    """

    def __init__(self, reason: str, line: int, column: int) -> None:
        self.reason = reason
        self.line = line
        self.column = column
        super().__init__(f"{reason} (line {line}, column {column})")


class NumpyMissingError(WireCodecError, ModuleNotFoundError):
    """numpy is needed (a call makes or reads an array) and cannot be imported.

    Everything else in wirecodec works without numpy (docs/platforms.md). Also a
    ``ModuleNotFoundError`` (``name == "numpy"``), so code that catches a missing module
    catches this one too.
    """

    def __init__(self) -> None:
        how = (
            'in Pyodide: await pyodide.loadPackage("numpy") (or micropip.install("numpy")) first'
            if sys.platform == "emscripten"
            else "pip install numpy"
        )
        super().__init__(f"this needs numpy, which is not installed ({how})", name="numpy")
