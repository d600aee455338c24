"""Tensor contents (onnx.proto, TensorProto): element type, dims, data in the right field, of the right size.

Sizes follow the packing rules of onnx.proto: ``raw_data`` holds ``ceil(bits * count / 8)``
bytes (:func:`wirecodec.tensors.dtypes.raw_size`), a typed field one entry per element,
two per complex element, and one packed byte per entry for the 4- and 2-bit types.
Tensors stored externally are the external-data rules' business; segmented tensors hold
only part of their elements, so their size is not checked.
"""

from __future__ import annotations

import math

from schema_dsl.onnx import TensorProto
from wirecodec.checker.violation import Report, Rule
from wirecodec.checker.walk import ModelSites
from wirecodec.protobuf.fieldpath import join
from wirecodec.protobuf.lazy import bytes_length
from wirecodec.tensors.dtypes import INFOS, TYPED_FIELDS, Info, raw_size

__all__ = ["RULES", "check_tensors", "element_count", "is_external"]

TENSOR_DATA_TYPE = Rule(
    "tensor-data-type",
    "onnx.proto: TensorProto.data_type",
    "every tensor has a data_type, a valid DataType other than UNDEFINED",
)
TENSOR_DIMS = Rule("tensor-dims", "onnx.proto: TensorProto.dims", "tensor dims are not negative")
TENSOR_DATA_FIELD = Rule(
    "tensor-data-field",
    "onnx.proto: TensorProto",
    "elements are in raw_data (never for STRING) or in the one typed field data_type names, not in several",
)
TENSOR_SIZE = Rule(
    "tensor-size",
    "onnx.proto: TensorProto.raw_data",
    "the data holds exactly the elements dims count (sub-byte types packed)",
)

TENSOR_BITS = Rule(
    "tensor-bits",
    "onnx.proto: TensorProto.raw_data",
    "6-bit elements leave the padding bits of raw_data zero, and use only bits 0-5 of each int32_data entry",
)

RULES = (TENSOR_DATA_TYPE, TENSOR_DIMS, TENSOR_DATA_FIELD, TENSOR_SIZE, TENSOR_BITS)

_COMPLEX = frozenset({int(TensorProto.DataType.COMPLEX64), int(TensorProto.DataType.COMPLEX128)})


def is_external(tensor: TensorProto) -> bool:
    """Whether the tensor says its data lives in another file."""
    return tensor.HasField("data_location") and tensor.data_location == TensorProto.DataLocation.EXTERNAL


def element_count(tensor: TensorProto) -> int | None:
    """How many elements ``dims`` describe, or None when a dimension is negative."""
    if any(d < 0 for d in tensor.dims):
        return None
    return math.prod(tensor.dims)


def typed_length(info: Info, count: int) -> int:
    """How many entries the typed field of ``info`` holds for ``count`` elements."""
    if info.code in _COMPLEX:
        return 2 * count
    if info.bits in (2, 4):
        return raw_size(info.code, count)  # one packed byte per int32_data entry
    return count


def check_tensors(sites: ModelSites, report: Report) -> None:
    """Report every tensor whose type, dims or data break the rules."""
    for site in sites.tensors:
        _tensor(report, site.path, site.tensor)


def _tensor(report: Report, path: str, tensor: TensorProto) -> None:
    info = INFOS.get(tensor.data_type)
    if info is None:
        shown = f"data_type {tensor.data_type}" if tensor.HasField("data_type") else "no data_type"
        report.add(join(path, "data_type"), TENSOR_DATA_TYPE, f"the tensor has {shown}")
    count = element_count(tensor)
    if count is None:
        report.add(join(path, "dims"), TENSOR_DIMS, f"dims {list(tensor.dims)} has a negative dimension")
    typed = [name for name in TYPED_FIELDS if len(getattr(tensor, name))]
    has_raw = tensor.HasField("raw_data")
    used = (["raw_data"] if has_raw else []) + typed
    if len(used) > 1:
        report.add(
            join(path, used[1]), TENSOR_DATA_FIELD, f"elements are in {' and '.join(used)}; one field only"
        )
        return
    if info is not None and info.bits == 0 and is_external(tensor):
        report.add(
            join(path, "data_location"),
            TENSOR_DATA_FIELD,
            f"{info.name} elements cannot be stored externally",
        )
    if info is None or is_external(tensor) or count is None:
        return
    if has_raw and info.bits == 0:
        report.add(join(path, "raw_data"), TENSOR_DATA_FIELD, f"{info.name} elements cannot be in raw_data")
        return
    if typed and typed[0] != info.field:
        where = join(path, typed[0])
        report.add(where, TENSOR_DATA_FIELD, f"{info.name} elements belong in {info.field}, not {typed[0]}")
        return
    if tensor.HasField("segment"):
        return
    if has_raw:
        size = bytes_length(tensor, "raw_data")  # a remote payload: its length, not fetched
        expected = raw_size(info.code, count)
        if size != expected:
            report.add(
                join(path, "raw_data"),
                TENSOR_SIZE,
                f"raw_data has {size} bytes; dims {list(tensor.dims)} of {info.name} need {expected}",
            )
        elif info.bits == 6 and (count * 6) % 8 and tensor.raw_data[-1] >> ((count * 6) % 8):
            # Only the last byte has padding; a nonzero pad would be read as data by another packing.
            report.add(
                join(path, "raw_data"), TENSOR_BITS, "the last byte of raw_data has non-zero padding bits"
            )
    else:
        held, expected = len(getattr(tensor, info.field)), typed_length(info, count)
        if info.bits == 6:
            wide = next((i for i, v in enumerate(tensor.int32_data) if not 0 <= v < 64), None)
            if wide is not None:
                where = join(path, "int32_data", wide)
                report.add(
                    where,
                    TENSOR_BITS,
                    f"{info.name} elements must use only bits 0-5 of int32_data: {tensor.int32_data[wide]}",
                )
        if held != expected:
            where = join(path, info.field) if typed else path
            report.add(
                where,
                TENSOR_SIZE,
                f"{info.field} has {held} entries; dims {list(tensor.dims)} of {info.name} need {expected}",
            )
