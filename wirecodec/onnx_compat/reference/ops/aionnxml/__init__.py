"""``onnx.reference.ops.aionnxml``: the ``ai.onnx.ml`` operators' helpers."""
