"""onnxconverter-common on models from PyPI wheels (bench/models_people_have.py): each model
given after the output path converted to float16 with its inputs and outputs kept float32
(convert_float_to_float16(keep_io_types=True)); the result is the converted models' bytes."""

import sys

import onnx
from onnxconverter_common import float16

with open(sys.argv[1], "wb") as out:
    for path in sys.argv[2:]:
        out.write(float16.convert_float_to_float16(onnx.load(path), keep_io_types=True).SerializeToString())
