"""Check a model against the rules of the ONNX IR specification (no operator schemas needed)."""
