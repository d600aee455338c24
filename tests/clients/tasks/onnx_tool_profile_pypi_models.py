"""onnx-tool on models from PyPI wheels (bench/models_people_have.py): each model given after
the output path profiled (shapes per tensor, MACs and parameters per node), an input of
symbolic size given one batch at the model's sizes; the result is each profile table
followed by the model onnx-tool writes with the shapes."""

import pathlib
import sys

import numpy as np
import onnx
import onnx_tool

with open(sys.argv[1], "wb") as out:
    for i, path in enumerate(sys.argv[2:]):
        sizes = {"batch": 1, "height": 320, "width": 320}
        dynamic = {}
        for given in onnx.load(path).graph.input:
            dims = given.type.tensor_type.shape.dim
            if any(d.dim_param for d in dims):
                shape = [d.dim_value or sizes[d.dim_param] for d in dims]
                dynamic[given.name] = np.zeros(shape, np.float32)
        onnx_tool.model_profile(
            path, dynamic_shapes=dynamic or None, save_profile=f"profile{i}.txt", save_model=f"shaped{i}.onnx"
        )
        table = pathlib.Path(f"profile{i}.txt").read_bytes()
        assert b"Total" in table, table
        out.write(table + pathlib.Path(f"shaped{i}.onnx").read_bytes())
