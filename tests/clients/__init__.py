"""The client tier: libraries built on onnx, each task run on onnx and on wirecodec (the shim)."""
