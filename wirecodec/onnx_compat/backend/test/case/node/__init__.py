"""``onnx.backend.test.case.node``: the input helpers onnx's evaluator tests import from there.

onnx's node-case generators are not here (onnx's data is not shipped); only the helpers
that code written against onnx reads (``roialign.get_roi_align_input_values``).
"""
