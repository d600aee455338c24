"""The modules behind onnx's private names under ``onnx.reference.ops`` (``_op_list``,
``op_conv``...): :data:`wirecodec.onnx_compat.reference.ops.PRIVATE` maps each name here."""
