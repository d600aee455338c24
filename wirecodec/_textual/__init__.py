"""The ONNX textual syntax shared by wirecodec.printer and wirecodec.parser."""
