"""The contract between the message model and the codec: every call the schema layer
makes upward, and where the codec plugs in.

The schema layer knows nothing about bytes, yet ``SerializeToString`` must encode, a
change to a decoded message must tell the codec that its source bytes no longer hold,
and a field the decoder left pending must become its elements on first read. Each of
these is a call from here into something the codec (``wirecodec``) installs or leaves
on a message when it is imported or decodes:

* :func:`install_codec`: the :class:`Codec` behind protobuf's serialization methods;
* :func:`install_receiver`: what hears :func:`report` (a span: "my source bytes are my
  encoding", wirecodec.protobuf.origin) before any change to a decoded message or to
  one of its repeated fields;
* the :class:`DeferredTable` a decoder leaves in a message's ``_lazy``, holding one
  :class:`PendingField` per singular field whose value is fetched on first read (a
  remote tensor's ``raw_data``, wirecodec.protobuf.lazy): the model calls only ``in``,
  ``record``, ``take``, ``first_name`` and ``load``, through schema_dsl.pending. (A
  repeated field's waiting elements live in its container: schema_dsl.containers.)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from schema_dsl.message import Message

__all__ = [
    "Codec",
    "DeferredTable",
    "PendingField",
    "install_codec",
    "install_receiver",
    "installed_codec",
    "report",
    "the_codec",
]


# -- serialization --------------------------------------------------------------------------


class Codec(Protocol):
    """What protobuf's serialization methods on a message need from a codec.

    The schema layer knows nothing about bytes: the codec (``wirecodec``) installs itself
    with :func:`install_codec` when it is imported, and ``SerializeToString`` and its
    siblings call it.
    """

    def encode(self, message: Message) -> bytes: ...

    def byte_size(self, message: Message) -> int: ...

    def decode(self, cls: type[Message], data: Any) -> Message: ...

    def carry_pending(self, copy: Message, name: str, record: Any) -> None:
        """Make field ``name`` of the fresh ``copy`` wait on ``record``, as it waits in the
        message copied (a record that says ``carried``: see :func:`carried_pending`)."""
        ...

    def equal_sources(self, a: Message, b: Message) -> bool | None:
        """Whether ``a`` and ``b`` are equal, told by their source bytes while both still are
        their encoding (decoded from canonical bytes, unchanged since: equal messages have
        equal such bytes); None when either has none (the caller compares fields)."""
        ...

    def copy_of(self, message: Message) -> Message | None:
        """An independent copy of ``message`` decoded from its source bytes, when
        :meth:`source_bytes` has them; else None (the caller copies field by field)."""
        ...

    def source_bytes(self, span: int) -> bytes | None:
        """The payload bytes a message of span ``span`` was decoded from, while they still
        are its encoding (canonical, unchanged since); else None."""
        ...


_codec: Codec | None = None


def install_codec(codec: Codec) -> None:
    """Make ``codec`` the one protobuf's serialization methods use (wirecodec calls this)."""
    global _codec
    _codec = codec


def installed_codec() -> Codec | None:
    """The installed codec, or None before wirecodec is imported (messages still work)."""
    return _codec


def the_codec() -> Codec:
    if _codec is None:
        raise RuntimeError("no codec is installed for schema_dsl messages: import wirecodec first")
    return _codec


# -- spans: a decoded message about to change -------------------------------------------------


def _nobody(span: int) -> None:
    pass


_receiver: Callable[[int], None] = _nobody


def install_receiver(receiver: Callable[[int], None]) -> None:
    """Make ``receiver`` hear every span reported (wirecodec installs this on import)."""
    global _receiver
    _receiver = receiver


def report(span: int) -> None:
    """The message with this span (or a repeated field of it) is about to change.
    Until a codec installs its receiver, there is nothing to tell."""
    _receiver(span)


# -- pending fields ---------------------------------------------------------------------------


class PendingField(Protocol):
    """What a deferred field's record offers the message model: ``load()`` gives a
    repeated field's elements, or a singular field's value."""

    def load(self) -> Any: ...


class DeferredTable(Protocol):
    """The fields a decoder left pending on a message (implemented by the codec)."""

    def __contains__(self, name: object, /) -> bool: ...

    def __len__(self) -> int: ...

    def record(self, name: str) -> PendingField | None: ...

    def take(self, name: str) -> PendingField | None: ...

    def first_name(self) -> str | None: ...
