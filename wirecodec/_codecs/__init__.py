"""The ONNX schema's codecs as generated Python source, shipped as protobuf ships ``_pb2.py``.

One module per codec kind (``onnx_<kind>.py``, wirecodec.protobuf.shipped), each the exact
text the generators (wirecodec/protobuf/gen) make for every ONNX message class, so the
import system compiles it once and keeps its bytecode (``__pycache__``, a wheel's ``.pyc``)
for every interpreter. Made by ``python -m wirecodec._codecs`` (wirecodec._codecs._generate);
a test regenerates them and compares, byte for byte.
"""
