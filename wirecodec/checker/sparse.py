"""Sparse tensors (onnx.proto, SparseTensorProto): values [NNZ], indices [NNZ] or [NNZ, rank], in order."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from schema_dsl.onnx import SparseTensorProto, TensorProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import ModelSites
from wirecodec.errors import TensorError
from wirecodec.tensors.reading import to_array

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


def check_sparse(sites: ModelSites, report: Report) -> None:
    """Report every sparse tensor whose values or indices break the rules."""
    for site in sites.sparse:
        _sparse(report, site.path, site.sparse)


def _sparse(report: Report, path: str, sparse: SparseTensorProto) -> None:
    dims = list(sparse.dims)
    if any(d < 0 for d in dims):
        report.add(f"{path}.dims", SPARSE_DIMS, f"dims {dims} has a negative dimension")
        dims_ok = False
    else:
        dims_ok = True
    if not sparse.HasField("values"):
        report.add(f"{path}.values", SPARSE_VALUES, "the sparse tensor has no values")
        return
    if len(sparse.values.dims) != 1 or sparse.values.dims[0] < 0:
        report.add(
            f"{path}.values.dims", SPARSE_VALUES, f"values have dims {list(sparse.values.dims)}, not [NNZ]"
        )
        return
    nnz = sparse.values.dims[0]
    if not sparse.HasField("indices"):
        if nnz:
            report.add(f"{path}.indices", SPARSE_INDICES_SHAPE, f"{nnz} values but no indices")
        return
    indices = sparse.indices
    shape = list(indices.dims)
    if shape not in ([nnz], [nnz, len(dims)]):
        report.add(
            f"{path}.indices.dims",
            SPARSE_INDICES_SHAPE,
            f"indices have dims {shape}; {nnz} values in rank {len(dims)} "
            f"need [{nnz}] or [{nnz}, {len(dims)}]",
        )
        return
    if indices.data_type not in _INTEGRAL:
        report.add(
            f"{path}.indices.data_type",
            SPARSE_INDICES_SHAPE,
            f"indices have data_type {indices.data_type}, not an integer type",
        )
        return
    if not dims_ok:
        return
    try:
        array = to_array(indices)
    except TensorError:
        return  # unreadable here (external, or broken: the tensor rules report that)
    # uint64 indices past int64's range wrap negative and so show up as out of bounds.
    values: npt.NDArray[np.int64] = array.astype(np.int64)
    if len(shape) == 1:
        _linear(report, path, values, dims)
    else:
        _coordinates(report, path, values, dims)


def _first(mask: npt.NDArray[np.bool_]) -> int | None:
    hits = np.flatnonzero(mask)
    return int(hits[0]) if hits.size else None


def _linear(report: Report, path: str, values: npt.NDArray[np.int64], dims: list[int]) -> None:
    total = math.prod(dims)
    outside = (values < 0) | (values >= total) if total <= np.iinfo(np.int64).max else values < 0
    k = _first(outside)
    if k is not None:
        report.add(
            f"{path}.indices",
            SPARSE_INDEX_BOUNDS,
            f"linear index {int(values[k])} (entry {k}) is outside the {total} elements of dims {dims}"
            + _more(int(outside.sum())),
        )
    k = _first(values[1:] <= values[:-1])
    if k is not None:
        report.add(
            f"{path}.indices",
            SPARSE_INDEX_ORDER,
            f"index {int(values[k + 1])} (entry {k + 1}) does not come after {int(values[k])}",
        )


def _coordinates(report: Report, path: str, values: npt.NDArray[np.int64], dims: list[int]) -> None:
    limits = np.array(dims, dtype=np.int64)
    outside: npt.NDArray[np.bool_] = np.asarray(((values < 0) | (values >= limits)).any(axis=1))
    k = _first(outside)
    if k is not None:
        report.add(
            f"{path}.indices",
            SPARSE_INDEX_BOUNDS,
            f"index {values[k].tolist()} (entry {k}) is outside dims {dims}" + _more(int(outside.sum())),
        )
    if len(values) < 2:
        return
    before, after = values[:-1], values[1:]
    if values.shape[1] == 0:
        k = 0  # rank 0: every index is (), so the second repeats the first
    else:
        changed = after != before
        column = changed.argmax(axis=1)  # the first coordinate that differs
        rows = np.arange(len(after))
        rising = after[rows, column] > before[rows, column]
        k = _first(~changed.any(axis=1) | ~rising)
    if k is not None:
        report.add(
            f"{path}.indices",
            SPARSE_INDEX_ORDER,
            f"index {values[k + 1].tolist()} (entry {k + 1}) does not come after {values[k].tolist()}",
        )


def _more(count: int) -> str:
    return f" ({count - 1} more)" if count > 1 else ""
