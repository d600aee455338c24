"""Mutants of issue 42 item 5, round 10 (as fast as onnx under the client libraries): the
cheaper first read of an unset sub-message field (schema_dsl.presence._stub) and shape
inference's TypeProtos built on their holders, declared shapes read by presence bits, a
one-node model's lists read without storing empty ones, the model copied by ``copy.copy``
(wirecodec.shape_inference)."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_UNSET = "tests/differential/test_unset_reads_vs_onnx.py"
_TYPES = "tests/differential/test_shape_inference_type_protos_vs_onnx.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "compat10-stub-not-linked",
        "schema_dsl/presence.py",
        "            link.owner = (obj, name)\n",
        "            link.owner = None\n",
        (_UNSET,),
        "a write through the object an unset sub-message field read as does not set the field",
    ),
    Mutant(
        "compat10-stub-not-kept",
        "schema_dsl/presence.py",
        "            stubs[name] = child\n",
        "            pass\n",
        (_UNSET,),
        "each read of an unset sub-message field gives another object (protobuf gives the same one)",
    ),
    Mutant(
        "compat10-type-shape-not-present",
        "wirecodec/shape_inference/_types.py",
        '        has |= schema.bit["shape"]\n',
        "        pass\n",
        (_TYPES,),
        "an inferred tensor type's shape is stored but not present: its dims are never written",
    ),
    Mutant(
        "compat10-dim-param-not-present",
        "wirecodec/shape_inference/_types.py",
        "        d._has = _DIM_PARAM\n",
        "        d._has = 0\n",
        (_TYPES,),
        "an inferred symbolic axis is stored but not present: written as an unknown axis",
    ),
    Mutant(
        "compat10-dim-value-by-truth",
        "wirecodec/shape_inference/_types.py",
        "        if has & _DIM_VALUE:\n",
        "        if d.dim_value:\n",
        (_TYPES,),
        "a declared axis of size 0 reads as unknown",
    ),
    Mutant(
        "compat10-sparse-type-as-dense",
        "wirecodec/shape_inference/_types.py",
        '    name = "sparse_tensor_type" if t.sparse else "tensor_type"\n',
        '    name = "tensor_type"\n',
        (_TYPES,),
        "an inferred sparse tensor type is written as a dense one",
    ),
    Mutant(
        "compat10-infer-writes-into-its-input",
        "wirecodec/shape_inference/__init__.py",
        "    result = copy.copy(model)",
        "    result = model",
        (_TYPES,),
        "infer_shapes writes the inferred types into the caller's model instead of a copy",
    ),
    Mutant(
        "compat10-initializers-unread",
        "wirecodec/shape_inference/_engine.py",
        'for tensor in _listed(graph, "initializer", TensorProto):',
        "for tensor in ():",
        (_TYPES,),
        "a weight given only as an initializer has no type: a one-node model's output is not sized",
    ),
)
