"""Mutants of weights in Constant nodes without numpy (issue 47, item 6): each breaks a
verb on such a model where numpy is missing (WebAssembly), or the value onnx infers from."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_NO_NUMPY = (
    "tests/unit/portability/test_numpy_missing.py::test_verbs_read_weights_in_constant_nodes_without_numpy"
)

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "constants-reader-import-outside-the-guard",
        "wirecodec/shape_inference/_context.py",
        "    try:\n        from wirecodec.tensors.reading import to_array"
        "  # NumpyMissingError without numpy\n",
        "    from wirecodec.tensors.reading import to_array\n\n    try:\n",
        (_NO_NUMPY,),
        "without numpy, inference of a node reading a constant raises instead of leaving it unknown",
    ),
    Mutant(
        "constants-typed-tensor-needs-numpy-in-zip",
        "wirecodec/files/zip/layout.py",
        "    except (TensorError, NumpyMissingError):",
        "    except TensorError:",
        (_NO_NUMPY,),
        "convert --to zip of a typed-data Constant fails without numpy",
    ),
    Mutant(
        "constants-value-ints-not-recorded",
        "wirecodec/shape_inference/_engine.py",
        "self.data[name] = TensorProto(data_type=_INT64, dims=[len(attr.ints)], int64_data=attr.ints)",
        "pass",
        (_NO_NUMPY,),
        "a value_ints Constant's value is not kept: a Reshape by it has no shape where onnx infers one",
    ),
)
