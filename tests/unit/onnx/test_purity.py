"""The library runs without the reference packages: importing and using it loads none of them."""

from __future__ import annotations

import subprocess
import sys
import textwrap

FORBIDDEN = ("google.protobuf", "onnx", "onnxruntime", "onnx_ir", "onnxscript", "torch")


def test_importing_and_using_wirecodec_loads_no_reference_package() -> None:
    script = textwrap.dedent(
        f"""
        import sys
        import wirecodec, schema_dsl, schema_dsl.onnx
        from wirecodec.examples.build_mlp import build
        model = wirecodec.decode(schema_dsl.onnx.ModelProto, wirecodec.encode(build()))
        assert model.graph.node[0].op_type == "Gemm"
        for optional in ("wirecodec.tensors", "wirecodec.tensors.values", "wirecodec.files.load",
                         "wirecodec.files.save", "wirecodec.files.external.read", "wirecodec.cli"):
            try:
                __import__(optional)
            except ModuleNotFoundError as exc:
                if exc.name != optional:
                    raise
        forbidden = {FORBIDDEN!r}
        loaded = sorted(m for m in sys.modules if m.split(".")[0] in forbidden or m.startswith(forbidden))
        print(loaded)
        sys.exit(1 if loaded else 0)
        """
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
