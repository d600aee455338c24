"""Generic protobuf machinery: knows the wire format and schema_dsl, never ONNX.

* :mod:`~wirecodec.protobuf.wire` — varints, tags, fixed widths, skipping unknown fields;
* :mod:`~wirecodec.protobuf.compile` and the ``gen_*`` modules — the schema compiler that
  generates one decoder, encoder and validator per message class;
* :mod:`~wirecodec.protobuf.runtime` — helpers the generated code calls on rare paths;
* :mod:`~wirecodec.protobuf.lazy` — small repeated elements kept as offsets until read;
* :mod:`~wirecodec.protobuf.codec` — the public ``decode`` / ``encode``;
* :mod:`~wirecodec.protobuf.sparse` — decoding a mapped file without faulting in payloads.
"""
