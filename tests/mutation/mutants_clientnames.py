"""Mutants of issue 42's names and files (onnx_compat's descriptors, mapping, defs, per-node
inference, and save_model's onnx layout), each killed by the differential test named."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_DESCRIPTORS = "tests/differential/test_onnx_compat_descriptors.py"
_NAMES = "tests/differential/test_onnx_compat_names.py"
_SAVE = "tests/differential/test_onnx_compat_external_save.py"
_INLINER = "tests/differential/test_onnx_compat_inliner.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "descriptor-label-from-packed",
        "schema_dsl/descriptors.py",
        "self.LABEL_REPEATED if spec.repeated else self.LABEL_OPTIONAL",
        "self.LABEL_REPEATED if spec.packed else self.LABEL_OPTIONAL",
        (_DESCRIPTORS,),
        "a repeated field reads as LABEL_OPTIONAL unless it is packed",
    ),
    Mutant(
        "equality-shortcut-only-when-empty",
        "schema_dsl/message.py",
        "if other is self:  # as upb",
        "if other is self and not self.ListFields():  # as upb",
        (f"{_NAMES}::test_a_message_equals_itself_without_its_fields_being_compared",),
        "a message compared with itself still builds its field lists",
    ),
    Mutant(
        "mapping-storage-type-an-enum",
        "wirecodec/onnx_compat/_mapping.py",
        "int(tensor_dtype_to_storage_tensor_dtype(code))",
        "tensor_dtype_to_storage_tensor_dtype(code)",
        (f"{_NAMES}::test_tensor_type_map_is_onnxs",),
        "TENSOR_TYPE_MAP's storage types are DataType members, not onnx's plain ints",
    ),
    Mutant(
        "support-level-any-version",
        "wirecodec/onnx_compat/defs.py",
        "key = (self.domain, self.name, self.since_version)",
        "key = (self.domain, self.name, 1)",
        (f"{_NAMES}::test_opschema_nested_names_and_support_level_are_onnxs",),
        "every version of an operator that was once experimental reads as EXPERIMENTAL",
    ),
    Mutant(
        "node-inference-keeps-invented-dims",
        "wirecodec/onnx_compat/shape_inference.py",
        'if dim.dim_param.startswith("unk__") and dim.dim_param not in given:',
        'if dim.dim_param.startswith("unk__") and dim.dim_param in given:',
        (f"{_NAMES}::test_infer_node_outputs_is_onnxs",),
        "infer_node_outputs returns the unk__N names the model inference invents",
    ),
    Mutant(
        "onnx-save-threshold-without-object-overhead",
        "wirecodec/onnx_compat/_external_save.py",
        "len(t.raw_data) + helper._BYTES_OVERHEAD >= size_threshold",
        "len(t.raw_data) >= size_threshold",
        (_SAVE,),
        "the threshold counts payload bytes, not sys.getsizeof as onnx: a 992-byte tensor stays inline",
    ),
    Mutant(
        "onnx-save-aligns-offsets",
        "wirecodec/onnx_compat/_external_save.py",
        "offset = data.size if wanted is None else wanted",
        "offset = -(-data.size // 64) * 64 if wanted is None else wanted",
        (_SAVE,),
        "tensors are aligned to 64 bytes (wirecodec.save's habit), not back to back as onnx writes them",
    ),
    Mutant(
        "onnx-save-drops-marked-offset",
        "wirecodec/onnx_compat/_external_save.py",
        "where, wanted = info.location, info.offset",
        "where, wanted = info.location, None",
        (f"{_SAVE}::test_tensors_marked_before_the_save_keep_their_files_and_offsets",),
        "a tensor marked with an offset is written at the end of its file instead",
    ),
    Mutant(
        "onnx-save-writes-through-a-symlink",
        "wirecodec/onnx_compat/_external_save.py",
        "if target.is_symlink():",
        "if target.is_symlink() and not target.exists():",
        (f"{_SAVE}::test_a_data_file_that_is_a_symlink_is_refused_as_onnx_refuses_it",),
        "only a dangling symlink is refused; one to a real file is written over",
    ),
    Mutant(
        "inliner-subgraph-shares-scope",
        "wirecodec/onnx_compat/inliner.py",
        "scope = dict(renames)",
        "scope = renames",
        (_INLINER,),
        "names a subgraph defines leak into the enclosing scope (a sibling branch reuses them)",
    ),
    Mutant(
        "inliner-unset-ref-kept",
        "wirecodec/onnx_compat/inliner.py",
        "source = given.get(attribute.ref_attr_name)",
        "source = given.get(attribute.ref_attr_name) or attribute",
        (_INLINER,),
        "an attribute reference the call does not set is kept, unresolved (onnx drops it)",
    ),
)
