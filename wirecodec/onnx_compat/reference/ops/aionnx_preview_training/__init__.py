"""``onnx.reference.ops.aionnx_preview_training``: the training operators (ai.onnx.preview.training)."""
