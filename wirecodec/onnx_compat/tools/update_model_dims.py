"""``onnx.tools.update_model_dims``: set the dimensions of a model's inputs and outputs.

>>> from wirecodec import helper
>>> from schema_dsl.onnx import TensorProto
>>> graph = helper.make_graph(
...     [helper.make_node("Relu", ["x"], ["y"])], "g",
...     [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 3])],
...     [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 3])])
>>> model = update_inputs_outputs_dims(helper.make_model(graph), {"x": [8, 3]}, {"y": [-1, 3]})
>>> [(d.dim_value, d.dim_param) for d in model.graph.output[0].type.tensor_type.shape.dim]
[(0, 'y_0'), (3, '')]
"""

from __future__ import annotations

from typing import Any

from schema_dsl.onnx import ModelProto, ValueInfoProto
from wirecodec.onnx_compat import checker

__all__ = ["update_inputs_outputs_dims"]


def update_inputs_outputs_dims(
    model: ModelProto, input_dims: dict[str, list[Any]], output_dims: dict[str, list[Any]]
) -> ModelProto:
    """Give each graph input and output the dimensions listed for it, in place; returns the model.

    A dimension is a size (``int`` ≥ 0, which must agree with a size already there), a
    name (``str``), or a negative ``int``: then the name ``<value name>_<axis>``, which
    must not already be a dimension name of the graph. Every input and output must be
    listed (``KeyError``). The model is then checked (``checker.check_model``), as onnx does.
    """
    taken = {
        dim.dim_param
        for info in (*model.graph.input, *model.graph.output, *model.graph.value_info)
        for dim in info.type.tensor_type.shape.dim
        if dim.HasField("dim_param")
    }
    for values, dims in ((model.graph.input, input_dims), (model.graph.output, output_dims)):
        for value in values:
            for axis, size in enumerate(dims[value.name]):
                _set_dim(value, axis, size, taken)
    checker.check_model(model)
    return model


def _set_dim(value: ValueInfoProto, axis: int, size: Any, taken: set[str]) -> None:
    dim = value.type.tensor_type.shape.dim[axis]
    if isinstance(size, int):
        if size >= 0:
            if dim.HasField("dim_value") and dim.dim_value != size:
                raise ValueError(
                    f"Unable to set dimension value to {size} for axis {axis} of {value.name}. "
                    f"Contradicts existing dimension value {dim.dim_value}."
                )
            dim.dim_value = size
            return
        generated = f"{value.name}_{axis}"
        if generated in taken:
            raise ValueError(
                f"Unable to generate unique dim_param for axis {axis} of {value.name}. "
                "Please manually provide a dim_param value."
            )
        dim.dim_param = generated
    elif isinstance(size, str):
        dim.dim_param = size
    else:
        raise TypeError(f"Only int or str is accepted as dimension value, incorrect type: {type(size)}")
