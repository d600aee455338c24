"""atheris harness: decode a TensorProto and turn it into numpy.

    python fuzz/fuzz_to_array.py -atheris_runs=100000 fuzz/seeds/
"""

from __future__ import annotations

from _common import fuzz, instrumented

with instrumented():
    from _common import EXPECTED

    import wirecodec
    from schema_dsl.onnx import TensorProto


def test_one_input(data: bytes) -> None:
    try:
        tensor = wirecodec.decode(TensorProto, data)
        array = wirecodec.to_array(tensor)
    except EXPECTED:
        return
    if array.size and tensor.HasField("raw_data") and array.nbytes > len(tensor.raw_data) * 8 + 64:
        raise AssertionError("an array far larger than its payload")


if __name__ == "__main__":
    fuzz(test_one_input)
