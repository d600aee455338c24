"""Wire rewrites for fuzzing parsers, for any schema (this package knows no ONNX).

* :mod:`~wirecodec.protobuf.rewrite.records` — a message's records as a tree, parsed by
  the schema and written back with every length recomputed;
* :mod:`~wirecodec.protobuf.rewrite.kinds` — semantics-preserving rewrites (``REWRITES``);
* :mod:`~wirecodec.protobuf.rewrite.invalid` — encodings every parser must refuse (``INVALID``);
* :mod:`~wirecodec.protobuf.rewrite.moves` — structure-aware mutation (add, delete, mutate,
  copy, clone) over the schema;
* :mod:`~wirecodec.protobuf.rewrite.apply` — a whole message rewritten by chosen kinds.

The ONNX-aware public API is :mod:`wirecodec.fuzz`.
"""
