"""Messages holding values that assignment would refuse, to test the encoder's own checks.

Assignment checks types and ranges (schema_dsl.assign), but values can still go wrong
afterwards (a list mutated in place, an attribute set with object.__setattr__); the
encoder and to_array must then still refuse them with a path. This builds such
messages without going through the checks.
"""

from __future__ import annotations

from typing import Any, TypeVar

from schema_dsl import Message

M = TypeVar("M", bound=Message)


def unchecked(cls: type[M], **fields: Any) -> M:
    message = cls()
    for name, value in fields.items():
        # The slot and the field's presence bit, as a store past the checks leaves them.
        object.__setattr__(message, name, value)
        object.__setattr__(message, "_has", message._has | cls.__schema__.bit[name])
    return message
