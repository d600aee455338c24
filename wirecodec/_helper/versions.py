"""onnx's release table: which IR version each operator set version first shipped with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from schema_dsl.onnx import OperatorSetIdProto
from wirecodec._helper.args import as_messages

__all__ = ["DEFAULT_OPSET_VERSION", "OP_SET_ID_VERSION_MAP", "VERSION_TABLE", "find_min_ir_version_for"]


# onnx releases: (release, IR version, ai.onnx opset, ai.onnx.ml opset[, ai.onnx.training opset]),
# from onnx's docs/Versioning.md ("Released Versions").
VERSION_TABLE: Final[list[tuple[str, int, int, int] | tuple[str, int, int, int, int]]] = [
    ("1.0", 3, 1, 1),
    ("1.1", 3, 5, 1),
    ("1.1.2", 3, 6, 1),
    ("1.2", 3, 7, 1),
    ("1.3", 3, 8, 1),
    ("1.4.1", 4, 9, 1),
    ("1.5.0", 5, 10, 1),
    ("1.6.0", 6, 11, 2),
    ("1.7.0", 7, 12, 2, 1),
    ("1.8.0", 7, 13, 2, 1),
    ("1.8.1", 7, 13, 2, 1),
    ("1.9.0", 7, 14, 2, 1),
    ("1.10.0", 8, 15, 2, 1),
    ("1.10.1", 8, 15, 2, 1),
    ("1.10.2", 8, 15, 2, 1),
    ("1.11.0", 8, 16, 3, 1),
    ("1.12.0", 8, 17, 3, 1),
    ("1.13.0", 8, 18, 3, 1),
    ("1.13.1", 8, 18, 3, 1),
    ("1.14.0", 9, 19, 3, 1),
    ("1.14.1", 9, 19, 3, 1),
    ("1.15.0", 9, 20, 4, 1),
    ("1.16.0", 10, 21, 5, 1),
    ("1.16.1", 10, 21, 5, 1),
    ("1.16.2", 10, 21, 5, 1),
    ("1.17.0", 10, 22, 5, 1),
    ("1.18.0", 11, 23, 5, 1),
    ("1.19.0", 12, 24, 5, 1),
    ("1.19.1", 12, 24, 5, 1),
    ("1.20.0", 13, 25, 5, 1),
    ("1.20.1", 13, 25, 5, 1),
    ("1.21.0", 13, 26, 5, 1),
    ("1.22.0", 13, 27, 5, 1),
    ("1.23.0", 14, 28, 5, 1),
]

#: The default-domain opset ``make_model`` imports when given no ``opset_imports``: the
#: latest opset of the onnx release that introduced IR version 14.
DEFAULT_OPSET_VERSION: Final = 28


def _first_ir_versions() -> dict[tuple[str, int], int]:
    """(domain, opset version) → the first IR version released with it."""
    first: dict[tuple[str, int], int] = {}
    domains = ("ai.onnx", "ai.onnx.ml", "ai.onnx.training")
    previews = {"ai.onnx": "ai.onnx.preview", "ai.onnx.training": "ai.onnx.preview.training"}
    for row in VERSION_TABLE:
        ir_version = row[1]
        for domain, version in zip(domains, row[2:], strict=False):
            if (domain, version) not in first:
                first[domain, version] = ir_version
                if domain in previews:
                    first[previews[domain], version] = ir_version
    return first


#: (domain, opset version) → the lowest IR version that can import it.
OP_SET_ID_VERSION_MAP: Final = _first_ir_versions()


def find_min_ir_version_for(opsetidlist: Sequence[OperatorSetIdProto], ignore_unknown: bool = False) -> int:
    """The lowest IR version that can import every opset in ``opsetidlist`` (3 if none).

    An opset no onnx release has shipped is a ``ValueError``, or counts as IR version 3
    with ``ignore_unknown=True``.

    >>> ids = [OperatorSetIdProto(domain="", version=21), OperatorSetIdProto(domain="ai.onnx.ml", version=3)]
    >>> find_min_ir_version_for(ids)
    10
    """
    result = 3
    for i, opset in enumerate(
        as_messages(opsetidlist, OperatorSetIdProto, "find_min_ir_version_for: opsetidlist")
    ):
        key = (opset.domain or "ai.onnx", opset.version)
        if key in OP_SET_ID_VERSION_MAP:
            result = max(result, OP_SET_ID_VERSION_MAP[key])
        elif not ignore_unknown:
            raise ValueError(
                f"find_min_ir_version_for: opsetidlist[{i}]: unsupported opset {key[0]!r} {key[1]}"
            )
    return result
