"""onnxslim on models from PyPI wheels (bench/models_people_have.py): each model given after
the output path is loaded, slimmed (constant folding, dead-node and Identity removal) and
written; the result is the slimmed models' bytes, one after the other."""

import sys

import onnx
import onnxslim

with open(sys.argv[1], "wb") as out:
    for path in sys.argv[2:]:
        out.write(onnxslim.slim(onnx.load(path)).SerializeToString())
