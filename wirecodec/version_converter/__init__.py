"""Convert a model's default-domain (``ai.onnx``) opset, up or down, as onnx's
``version_converter`` does, without onnx and without reading the weights.

- :func:`convert_version` ``(model, target_version)``: a converted copy; the model given
  is never changed;
- :class:`~wirecodec.errors.ConvertError`: what cannot be converted, naming the node
  (``graph.node[3]``) and what to do.

Each opset step visits every node (subgraphs of If, Loop and Scan too); an operator
whose schema changes at the step gets its adapter (an attribute turned into a Constant
input, an attribute set or dropped, element types checked), or the conversion stops
with an error where there is none. docs/opset-conversion.md lists what is converted.
"""

from __future__ import annotations

from wirecodec.errors import ConvertError
from wirecodec.version_converter._convert import convert_version

__all__ = ["ConvertError", "convert_version"]
