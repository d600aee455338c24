"""Models on disk: load and save, external data (read and write), atomic writes.

Everything here is ONNX-specific and sits on :mod:`wirecodec.protobuf` (bytes ↔
messages) and :mod:`wirecodec.tensors` (tensors ↔ numpy).
"""
