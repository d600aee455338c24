"""``onnx.backend.base``: ``Backend``, ``BackendRep``, ``Device``, ``DeviceType``, ``namedtupledict``.

They behave as onnx's: a backend overrides ``prepare`` (which, here as there, checks the
model) and ``run``; ``run_node`` checks the node (at ``opset_version`` when given).

>>> Device("CUDA:1").type == DeviceType.CUDA, Device("CUDA:1").device_id
(True, 1)
>>> Point = namedtupledict("Point", ["x", "y"])
>>> Point(1, 2)["y"]
2
"""

from __future__ import annotations

import collections
from collections.abc import Sequence
from typing import Any, Final, cast

from schema_dsl.onnx import IR_VERSION, ModelProto, NodeProto
from wirecodec.onnx_compat import checker

__all__ = ["Backend", "BackendRep", "Device", "DeviceType", "namedtupledict"]


class DeviceType:
    """The kinds of device a backend may run on."""

    CPU: Final = 0
    CUDA: Final = 1


class Device:
    """A device named ``"<type>"`` or ``"<type>:<id>"`` (``"CPU"``, ``"CUDA:1"``)."""

    def __init__(self, device: str) -> None:
        kind, *rest = device.split(":")
        self.type: int = getattr(DeviceType, kind)
        self.device_id = int(rest[0]) if rest else 0


def namedtupledict(
    typename: str, field_names: Sequence[str], *args: Any, **kwargs: Any
) -> type[tuple[Any, ...]]:
    """A namedtuple class whose items can also be read by field name (``row["x"]``).

    Invalid field names are renamed (``rename=True`` unless given), as onnx's.
    """
    index = {name: i for i, name in enumerate(field_names)}
    kwargs.setdefault("rename", True)
    make: Any = collections.namedtuple  # the name is a parameter, not a literal
    base: Any = make(typename, field_names, *args, **kwargs)

    def __getitem__(self: tuple[Any, ...], key: Any) -> Any:  # noqa: N807
        return tuple.__getitem__(self, index[key] if isinstance(key, str) else key)

    setattr(base, "__getitem__", __getitem__)  # noqa: B010  (a method of the made class)
    return cast(type[tuple[Any, ...]], base)


class BackendRep:
    """What a backend's ``prepare`` returns: ``run(inputs)`` computes the model's outputs."""

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Any, ...]:
        """Abstract: a backend returns the outputs."""
        return (None,)


class Backend:
    """Takes a model (or a node) and inputs and computes outputs; a backend overrides these."""

    @classmethod
    def is_compatible(cls, model: ModelProto, device: str = "CPU", **kwargs: Any) -> bool:
        """Whether the backend can run ``model`` on ``device``."""
        return True

    @classmethod
    def prepare(cls, model: ModelProto, device: str = "CPU", **kwargs: Any) -> BackendRep | None:
        """Check the model; a backend returns its prepared representation."""
        checker.check_model(model)
        return None

    @classmethod
    def run_model(cls, model: ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any) -> tuple[Any, ...]:
        """Prepare and run in one step."""
        prepared = cls.prepare(model, device, **kwargs)
        assert prepared is not None
        return prepared.run(inputs)

    @classmethod
    def run_node(
        cls,
        node: NodeProto,
        inputs: Any,
        device: str = "CPU",
        outputs_info: Sequence[tuple[Any, tuple[int, ...]]] | None = None,
        **kwargs: Any,
    ) -> tuple[Any, ...] | None:
        """Check the node (at ``kwargs["opset_version"]`` of the default domain when given)."""
        if "opset_version" in kwargs:
            context = checker.CheckerContext(IR_VERSION, {"": kwargs["opset_version"]})
            checker.check_node(node, context)
        else:
            checker.check_node(node)
        return None

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """Whether the backend was built with support for ``device``."""
        return True
