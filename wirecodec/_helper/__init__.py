"""The parts of :mod:`wirecodec.helper`, :mod:`wirecodec.numpy_helper` and :mod:`wirecodec.onnx_compat`.

One job per module: ``args`` checks builder arguments, ``tensor`` is ``make_tensor``,
``minifloat_encode`` converts values to the element types numpy lacks, ``attributes``
builds and reads attributes, ``versions`` holds onnx's release table, ``element_types``
maps data types to numpy and to fields, ``printable`` is ``printable_graph``.
"""
