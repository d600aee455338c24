"""Sparse tensors (onnx.proto, SparseTensorProto): values [NNZ], indices [NNZ] or [NNZ, rank], in order.

The indices are read as Python ints straight from the tensor's bytes, so the checker
needs no numpy (docs/platforms.md).
"""

from __future__ import annotations

import itertools
import math
import struct
from collections.abc import Sequence
from typing import Final

from schema_dsl.onnx import SparseTensorProto, TensorProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import ModelSites
from wirecodec.protobuf.fieldpath import join

__all__ = ["RULES", "check_sparse"]

_SOURCE = "onnx.proto: SparseTensorProto"
SPARSE_VALUES = Rule("sparse-values", _SOURCE, "a sparse tensor has values, a 1-D tensor of shape [NNZ]")
SPARSE_DIMS = Rule("sparse-dims", _SOURCE, "the dense shape (dims) has no negative dimension")
SPARSE_INDICES_SHAPE = Rule(
    "sparse-indices-shape",
    _SOURCE,
    "indices (required when NNZ > 0) are integers of shape [NNZ] (linearized) or [NNZ, rank] (coordinates)",
)
SPARSE_INDEX_BOUNDS = Rule("sparse-index-bounds", _SOURCE, "every index lies inside the dense shape")
SPARSE_INDEX_ORDER = Rule(
    "sparse-index-order", _SOURCE, "indices ascend without duplicates (coordinates in lexicographic order)"
)

RULES = (SPARSE_VALUES, SPARSE_DIMS, SPARSE_INDICES_SHAPE, SPARSE_INDEX_BOUNDS, SPARSE_INDEX_ORDER)

_DataType = TensorProto.DataType
_INTEGRAL = frozenset(
    int(t)
    for t in (
        _DataType.INT8, _DataType.INT16, _DataType.INT32, _DataType.INT64,
        _DataType.UINT8, _DataType.UINT16, _DataType.UINT32, _DataType.UINT64,
    )
)  # fmt: skip


# the struct letter of each integer type's raw_data element (little-endian)
_RAW_FORMAT: Final = {
    int(_DataType.INT8): "b", int(_DataType.INT16): "h", int(_DataType.INT32): "i",
    int(_DataType.INT64): "q", int(_DataType.UINT8): "B", int(_DataType.UINT16): "H",
    int(_DataType.UINT32): "I", int(_DataType.UINT64): "Q",
}  # fmt: skip
_TYPED_FIELD: Final = {
    int(_DataType.INT64): "int64_data",
    int(_DataType.UINT32): "uint64_data",
    int(_DataType.UINT64): "uint64_data",
}  # every other integer type is held in int32_data


def check_sparse(sites: ModelSites, report: Report) -> None:
    """Report every sparse tensor whose values or indices break the rules."""
    for site in sites.sparse:
        _sparse(report, site.path, site.sparse)


def _sparse(report: Report, path: str, sparse: SparseTensorProto) -> None:
    dims = list(sparse.dims)
    if any(d < 0 for d in dims):
        report.add(join(path, "dims"), SPARSE_DIMS, f"dims {dims} has a negative dimension")
        dims_ok = False
    else:
        dims_ok = True
    if not sparse.HasField("values"):
        report.add(join(path, "values"), SPARSE_VALUES, "the sparse tensor has no values")
        return
    if len(sparse.values.dims) != 1 or sparse.values.dims[0] < 0:
        report.add(
            join(join(path, "values"), "dims"),
            SPARSE_VALUES,
            f"values have dims {list(sparse.values.dims)}, not [NNZ]",
        )
        return
    nnz = sparse.values.dims[0]
    if not sparse.HasField("indices"):
        if nnz:
            report.add(join(path, "indices"), SPARSE_INDICES_SHAPE, f"{nnz} values but no indices")
        return
    indices = sparse.indices
    shape = list(indices.dims)
    if shape not in ([nnz], [nnz, len(dims)]):
        report.add(
            join(join(path, "indices"), "dims"),
            SPARSE_INDICES_SHAPE,
            f"indices have dims {shape}; {nnz} values in rank {len(dims)} "
            f"need [{nnz}] or [{nnz}, {len(dims)}]",
        )
        return
    if indices.data_type not in _INTEGRAL:
        report.add(
            join(join(path, "indices"), "data_type"),
            SPARSE_INDICES_SHAPE,
            f"indices have data_type {indices.data_type}, not an integer type",
        )
        return
    if not dims_ok:
        return
    values = _integers(indices, math.prod(shape))
    if values is None:
        return  # unreadable here (external, or broken: the tensor rules report that)
    if len(shape) == 1:
        _linear(report, path, values, dims)
    else:
        rank = len(dims)
        rows = [tuple(values[i * rank : (i + 1) * rank]) for i in range(nnz)]
        _coordinates(report, path, rows, dims)


def _integers(indices: TensorProto, count: int) -> list[int] | None:
    """The ``count`` index values of an integer tensor (uint64 past int64's range wrapped
    negative, as onnx reads them, so they show up as out of bounds); None if they cannot
    be read here (external data, or not ``count`` of them)."""
    if indices.data_location == TensorProto.DataLocation.EXTERNAL:
        return None
    letter = _RAW_FORMAT[indices.data_type]
    if indices.HasField("raw_data"):
        raw = memoryview(indices.raw_data).cast("B")
        if raw.nbytes != count * struct.calcsize(letter):
            return None
        values: Sequence[int] = struct.unpack(f"<{count}{letter}", raw)
    else:
        values = getattr(indices, _TYPED_FIELD.get(indices.data_type, "int32_data"))
        if len(values) != count:
            return None
    return [v - (1 << 64) if v >= 1 << 63 else v for v in values]


def _first(flags: Sequence[bool]) -> int | None:
    return next((k for k, flag in enumerate(flags) if flag), None)


def _linear(report: Report, path: str, values: list[int], dims: list[int]) -> None:
    total = math.prod(dims)
    outside = [v < 0 or v >= total for v in values]
    k = _first(outside)
    if k is not None:
        report.add(
            join(path, "indices"),
            SPARSE_INDEX_BOUNDS,
            f"linear index {values[k]} (entry {k}) is outside the {total} elements of dims {dims}"
            + _more(sum(outside)),
        )
    k = _first([after <= before for before, after in itertools.pairwise(values)])
    if k is not None:
        report.add(
            join(path, "indices"),
            SPARSE_INDEX_ORDER,
            f"index {values[k + 1]} (entry {k + 1}) does not come after {values[k]}",
        )


def _coordinates(report: Report, path: str, rows: list[tuple[int, ...]], dims: list[int]) -> None:
    outside = [any(c < 0 or c >= d for c, d in zip(row, dims, strict=True)) for row in rows]
    k = _first(outside)
    if k is not None:
        report.add(
            join(path, "indices"),
            SPARSE_INDEX_BOUNDS,
            f"index {list(rows[k])} (entry {k}) is outside dims {dims}" + _more(sum(outside)),
        )
    # Tuples compare in lexicographic order; an index equal to the one before is not after it.
    k = _first([after <= before for before, after in itertools.pairwise(rows)])
    if k is not None:
        report.add(
            join(path, "indices"),
            SPARSE_INDEX_ORDER,
            f"index {list(rows[k + 1])} (entry {k + 1}) does not come after {list(rows[k])}",
        )


def _more(count: int) -> str:
    return f" ({count - 1} more)" if count > 1 else ""
