"""Where the data files of a model by URL are fetched from: a location written with
Windows separators (``sub\\w.bin``, as a model saved on Windows may carry) names the
file ``sub/w.bin`` beside the model, as it does for a local model; never ``sub%5Cw.bin``.

Against the loopback test server (tests/support/http_server.py), which serves ranges.
"""

from __future__ import annotations

import numpy as np
import pytest

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from tests.support.http_server import BadServer
from wirecodec import helper

WEIGHT = np.arange(70_000, dtype=np.float32)  # 280 KB: large enough to wait until read


def _model_with_location(location: str) -> ModelProto:
    tensor = TensorProto(
        name="w", data_type=TensorProto.FLOAT, dims=[WEIGHT.size], data_location=TensorProto.EXTERNAL
    )
    tensor.external_data.add(key="location", value=location)
    graph = helper.make_graph(
        [helper.make_node("Identity", ["w"], ["y"])],
        "g",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [WEIGHT.size])],
        initializer=[tensor],
    )
    return helper.make_model(graph)


@pytest.mark.parametrize("location", ["sub\\w.bin", "sub/w.bin"])
def test_a_windows_separator_in_a_location_names_the_file_in_the_folder(
    bad_server: BadServer, location: str
) -> None:
    folder = bad_server.root / "windows"
    (folder / "sub").mkdir(parents=True, exist_ok=True)
    (folder / "sub" / "w.bin").write_bytes(WEIGHT.tobytes())
    name = f"m{location.count(chr(92))}.onnx"
    (folder / name).write_bytes(wirecodec.encode(_model_with_location(location)))
    behaviour = bad_server.behave(None)
    model = wirecodec.load(bad_server.url(f"windows/{name}"))
    assert np.array_equal(wirecodec.to_array(model.graph.initializer[0]), WEIGHT)
    assert behaviour.seen >= 2  # the model, then its data file (found: no 404)
