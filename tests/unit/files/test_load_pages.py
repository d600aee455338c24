"""``load`` must not bring a model's tensor payloads into memory: they are read when touched.

Measured in a fresh process as the growth of its file-backed resident pages (RssFile)
while ``load`` runs, on a weight-heavy model that is also structure-heavy (a value_info
for every intermediate, as in real exports) with random weights, whose bytes contain
every byte value — the shape that once defeated the sparse copy and faulted in every
payload page.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from schema_dsl.onnx import (
    AttributeProto,
    GraphProto,
    ModelProto,
    NodeProto,
    TensorProto,
    TensorShapeProto,
    TypeProto,
    ValueInfoProto,
)
from wirecodec import encode, from_array

PAYLOAD_MB = 48

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")


def _model() -> ModelProto:
    rng = np.random.default_rng(0)
    graph = GraphProto(name="g")
    dims = [TensorShapeProto.Dimension(dim_param="batch"), TensorShapeProto.Dimension(dim_value=64)]
    for block in range(PAYLOAD_MB // 2):
        for step in range(400):
            name = f"/layers.{block}/act_{step}"
            graph.node.append(NodeProto(op_type="Relu", input=[f"{name}_in"], output=[name]))
            shape = TensorShapeProto(dim=list(dims))
            tensor_type = TypeProto.Tensor(elem_type=TensorProto.FLOAT, shape=shape)
            graph.value_info.append(ValueInfoProto(name=name, type=TypeProto(tensor_type=tensor_type)))
        weights = rng.standard_normal(1 << 18).astype(np.float32)  # 1 MiB each
        constant = NodeProto(op_type="Constant", output=[f"c{block}"])
        value = from_array(weights, f"c{block}")
        constant.attribute.append(AttributeProto(name="value", type=AttributeProto.TENSOR, t=value))
        graph.node.append(constant)
        graph.initializer.append(from_array(rng.standard_normal(1 << 18).astype(np.float32), f"w{block}"))
    return ModelProto(ir_version=10, graph=graph)


def test_load_touches_no_payload_page(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "model.onnx"
    path.write_bytes(encode(_model()))  # one large write, as onnx.save does: large page-cache folios
    script = textwrap.dedent(
        f"""
        import wirecodec
        from schema_dsl.onnx import ModelProto

        def rss_file_kb():
            for line in open("/proc/self/status"):
                if line.startswith("RssFile:"):
                    return int(line.split()[1])

        wirecodec.decode(ModelProto, wirecodec.encode(ModelProto()))  # codec built before measuring
        before = rss_file_kb()
        model = wirecodec.load({str(path)!r})
        grown = rss_file_kb() - before
        assert len(model.graph.initializer) == {PAYLOAD_MB // 2}
        print(grown)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    grown_mb = int(result.stdout.split()[-1]) / 1024
    # The structure (nodes, value_info) is a few MB; the payloads are PAYLOAD_MB.
    assert grown_mb < PAYLOAD_MB / 8, f"load brought {grown_mb:.1f} MB of the file into memory"
