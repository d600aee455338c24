"""Every verb of wirecodec once, checked byte-exact, with nothing but the standard library.

The portability tests run this in a subprocess whose environment lacks something
(numpy, ``os.pread`` and friends, working file maps, threads), and the Pyodide job runs it
inside WebAssembly, so it imports neither numpy, onnx, protobuf nor pytest. Each case
is a function taking a fresh working directory; :func:`run_all` runs them all and
returns the names of those that failed (with their tracebacks printed).

    python -m tests.unit.portability.scenario WORKDIR     # exit status 1 if a case failed
"""

from __future__ import annotations

import contextlib
import io
import pathlib
import re
import sys
import traceback
from collections.abc import Callable

import wirecodec
from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.cli import main as cli_main
from wirecodec.files.stream.reader import assemble

EXAMPLE = pathlib.Path(wirecodec.__file__).parent / "examples" / "mlp.onnx"

# Big enough for every path that only large payloads take: the sparse copy of a mapped
# file (1 MiB and more), payloads read back in chunks by the streaming reader (over
# 64 KiB), external data (over the default 1 KiB threshold).
BIG_ELEMENTS = 400_000


def big_model() -> ModelProto:
    """The bundled example with one more initializer of 1.6 MB (a byte pattern, no numpy)."""
    model = wirecodec.load(EXAMPLE)
    pattern = bytes(range(251)) * (BIG_ELEMENTS * 4 // 251 + 1)
    big = TensorProto(name="big", data_type=TensorProto.DataType.FLOAT, dims=[BIG_ELEMENTS])
    big.raw_data = pattern[: BIG_ELEMENTS * 4]
    model.graph.initializer.append(big)
    return model


def _cli(*args: str, status: int = 0) -> str:
    """Run a verb through ``wirecodec.cli.main``; its standard output (another exit status raises)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        got = cli_main(list(args))
    if got != status:
        raise AssertionError(f"wirecodec {' '.join(args)} exited {got}: {err.getvalue().strip()}")
    return out.getvalue()


def _same(a: object, b: object, what: str) -> None:
    if a != b:
        raise AssertionError(f"{what}: differ")


def case_decode_encode(work: pathlib.Path) -> None:
    data = EXAMPLE.read_bytes()
    _same(wirecodec.encode(wirecodec.decode(ModelProto, data)), data, "decode/encode of the example")
    _same(wirecodec.encode(wirecodec.load(EXAMPLE)), data, "load/encode of the example")


def case_layouts(work: pathlib.Path) -> None:
    """save and convert between one file, external data and .onnxz, byte-exact where they must be."""
    model = big_model()
    single = work / "single.onnx"
    wirecodec.save(model, single)
    original = single.read_bytes()
    _same(original, wirecodec.encode(model), "save as one file")
    _same(wirecodec.encode(wirecodec.load(single)), original, "load of the saved file")
    _same(wirecodec.encode(wirecodec.load(single, lazy=False)), original, "eager load")
    external = work / "external" / "model.onnx"
    external.parent.mkdir()
    wirecodec.save(model, external, external_data=True)
    if len(external.read_bytes()) >= len(original) // 2:
        raise AssertionError("external data: the big tensor stayed in the model file")
    _same(_payloads(wirecodec.load(external)), _payloads(model), "load of external data")
    zipped = work / "model.onnxz"
    wirecodec.convert(external, zipped, to="zip")
    _same(wirecodec.load(zipped), model, "external -> zip")
    back = work / "back.onnx"
    wirecodec.convert(zipped, back, to="single")
    _same(back.read_bytes(), original, "zip -> single, byte-exact")
    external2 = work / "external2" / "model.onnx"
    external2.parent.mkdir()
    wirecodec.convert(single, external2, to="external")
    back2 = work / "back2.onnx"
    wirecodec.convert(external2, back2, to="single")
    # Back in one file, a tensor that was external says data_location: DEFAULT, as onnx's does.
    _same(_payloads(wirecodec.load(back2)), _payloads(model), "single -> external -> single")
    # Save over the file the model is mapped from (docs/platforms.md): the model stays whole.
    loaded = wirecodec.load(back)
    wirecodec.save(loaded, back)
    _same(back.read_bytes(), original, "save over the file a model was loaded from")
    _same(wirecodec.encode(loaded), original, "the model after its file was replaced")
    wirecodec.save(model, work / "fast.onnx", durable=False)
    _same((work / "fast.onnx").read_bytes(), original, "save with durable=False")


def _payloads(model: ModelProto) -> list[bytes]:
    return [bytes(tensor.raw_data) for tensor in model.graph.initializer]


def case_stream(work: pathlib.Path) -> None:
    model = big_model()
    path = work / "model.onnx"
    wirecodec.save(model, path)
    with wirecodec.stream(path) as events:
        _same(assemble(events), model, "stream of a file")
    with open(path, "rb") as file, wirecodec.stream(file) as events:
        _same(assemble(events), model, "stream of a file object")
    _same(assemble(wirecodec.stream(path.read_bytes())), model, "stream of bytes")
    _same(wirecodec.load_tensor(_tensor_file(work, model)), model.graph.initializer[-1], "load_tensor")


def _tensor_file(work: pathlib.Path, model: ModelProto) -> pathlib.Path:
    path = work / "big.pb"
    wirecodec.save_tensor(model.graph.initializer[-1], path)
    return path


def case_check(work: pathlib.Path) -> None:
    wirecodec.check(big_model())
    broken = wirecodec.load(EXAMPLE)
    broken.graph.node[0].input[0] = "nowhere"
    try:
        wirecodec.check(broken)
    except wirecodec.CheckError:
        return
    raise AssertionError("check passed a node reading an undefined name")


def case_text_and_json(work: pathlib.Path) -> None:
    model = wirecodec.load(EXAMPLE)
    _same(wirecodec.from_text(ModelProto, wirecodec.to_text(model)), model, "text format round trip")
    _same(wirecodec.from_json(ModelProto, wirecodec.to_json(model)), model, "JSON round trip")
    printed = wirecodec.printer.to_text(model)
    if not re.search(r"w1 = +\{-?[0-9]", printed):  # values, not "..."
        raise AssertionError(f"the printer did not print w1's values:\n{printed}")
    parsed = wirecodec.parser.parse_model(printed)
    _same(wirecodec.printer.to_text(parsed), printed, "printer -> parser -> printer")


def case_cli(work: pathlib.Path) -> None:
    """Every verb that needs no onnxruntime, through ``wirecodec.cli.main``."""
    path = work / "model.onnx"
    wirecodec.save(big_model(), path)
    model = str(path)
    if "round trip    byte-identical" not in _cli("inspect", model):
        raise AssertionError("inspect did not find the round trip byte-identical")
    _cli("check", model)
    _cli("dump", model, "graph.node[0]")
    _cli("dump", "--format", "json", model, "opset_import")
    _cli("dump", "--format", "onnx", model)
    if "graph.initializer[4]" not in _cli("tensors", "--list", model):
        raise AssertionError("tensors --list did not list the big tensor")
    edited = str(work / "edited.onnx")
    _cli("edit", "-o", edited, "--set-producer", "portable:1", "--rename-input", "x=features", model)
    if "producer_name" not in _cli("diff", model, edited, status=1):
        raise AssertionError("diff did not see the new producer")
    _cli("diff", model, model)
    external = str(work / "converted" / "model.onnx")
    pathlib.Path(external).parent.mkdir()
    _cli("convert", "--to", "external", model, external)
    zipped = str(work / "model.onnxz")
    _cli("convert", "--to", "zip", external, zipped)
    single = work / "single.onnx"
    _cli("convert", "--to", "single", zipped, str(single))
    _same(single.read_bytes(), path.read_bytes(), "wirecodec convert external -> zip -> single")
    _cli("extract", "--inputs", "x", "--outputs", "y", model, str(work / "extracted.onnx"))
    _cli("merge", "--io-map", "y:x", "--prefix2", "second_", model, model, str(work / "merged.onnx"))
    _cli("check", str(work / "merged.onnx"))
    _cli("draw", model)


def constant_weights_model() -> ModelProto:
    """Weights in Constant nodes, as many exporters ship them: each way a Constant holds its
    value (a tensor of typed int64_data, a raw float tensor, value_ints, value_int,
    value_floats, value_float), each feeding a node whose output shape depends on it."""
    from schema_dsl.onnx import (
        AttributeProto,
        GraphProto,
        NodeProto,
        OperatorSetIdProto,
        TensorShapeProto,
        TypeProto,
        ValueInfoProto,
    )

    kinds = AttributeProto.AttributeType
    floats = TensorProto.DataType.FLOAT

    def constant(output: str, **attribute: object) -> NodeProto:
        value = AttributeProto(**attribute)  # type: ignore[arg-type]
        return NodeProto(op_type="Constant", output=[output], attribute=[value])

    def info(name: str, elem: int, dims: list[int]) -> ValueInfoProto:
        shape = TensorShapeProto(dim=[TensorShapeProto.Dimension(dim_value=d) for d in dims])
        tensor_type = TypeProto.Tensor(elem_type=elem, shape=shape)
        return ValueInfoProto(name=name, type=TypeProto(tensor_type=tensor_type))

    typed = TensorProto(name="s", data_type=TensorProto.DataType.INT64, dims=[2], int64_data=[3, 4])
    raw = TensorProto(name="r", data_type=floats, dims=[12], raw_data=bytes(range(48)))
    nodes = [
        constant("shape", name="value", type=kinds.TENSOR, t=typed),
        NodeProto(op_type="Reshape", input=["x", "shape"], output=["a"]),
        constant("weights", name="value", type=kinds.TENSOR, t=raw),
        NodeProto(op_type="Add", input=["x", "weights"], output=["b"]),
        constant("ints", name="value_ints", type=kinds.INTS, ints=[4, 3]),
        NodeProto(op_type="Reshape", input=["b", "ints"], output=["c"]),
        constant("one", name="value_int", type=kinds.INT, i=0),
        constant("axes", name="value_ints", type=kinds.INTS, ints=[0]),
        NodeProto(op_type="Unsqueeze", input=["one", "axes"], output=["d"]),
        constant("pair", name="value_floats", type=kinds.FLOATS, floats=[1.5, 2.5]),
        constant("half", name="value_float", type=kinds.FLOAT, f=0.5),
        NodeProto(op_type="Mul", input=["pair", "half"], output=["e"]),
    ]
    graph = GraphProto(
        name="constants",
        node=nodes,
        input=[info("x", floats, [12])],
        output=[
            info("a", floats, [3, 4]),
            info("c", floats, [4, 3]),
            info("d", TensorProto.DataType.INT64, [1]),
            info("e", floats, [2]),
        ],
    )
    return ModelProto(ir_version=8, opset_import=[OperatorSetIdProto(version=17)], graph=graph)


def case_constant_weights(work: pathlib.Path) -> None:
    """Weights in Constant nodes through every verb that reads the graph (numpy or not):
    convert to .onnxz and back byte-exact, check --full, infer-shapes, inspect."""
    path = work / "constants.onnx"
    wirecodec.save(constant_weights_model(), path)
    zipped = str(work / "constants.onnxz")
    _cli("convert", "--to", "zip", str(path), zipped)
    _cli("check", "--full", zipped)
    back = work / "back.onnx"
    _cli("convert", "--to", "single", zipped, str(back))
    # The same values (a typed tensor comes back in raw_data where numpy made its entry).
    text = wirecodec.printer.to_text
    _same(text(wirecodec.load(back)), text(wirecodec.load(path)), "Constant weights: single -> zip -> single")
    inferred = work / "inferred.onnx"
    _cli("infer-shapes", str(path), str(inferred))
    _cli("check", "--full", str(inferred))
    _cli("inspect", zipped)


def case_arrays_need_numpy(work: pathlib.Path) -> None:
    """Without numpy: the one clear error, from the top-level name and from the package."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        pass
    else:
        return  # numpy is here: nothing to show
    tensor = wirecodec.load(EXAMPLE).graph.initializer[0]
    for call in (lambda: wirecodec.to_array(tensor), lambda: wirecodec.numpy_helper.to_array(tensor)):
        try:
            call()
        except wirecodec.NumpyMissingError as error:
            if not isinstance(error, ModuleNotFoundError) or "numpy" not in str(error):
                raise AssertionError(f"not the promised error: {error!r}") from error
        else:
            raise AssertionError("an array was made without numpy")


CASES: dict[str, Callable[[pathlib.Path], None]] = {
    name.removeprefix("case_"): function
    for name, function in sorted(globals().items())
    if name.startswith("case_") and callable(function)
}


def run_all(work: pathlib.Path, only: list[str] | None = None) -> list[str]:
    """Run the cases (all, or those named) each in a fresh folder under ``work``; the failures."""
    failed = []
    for name, case in CASES.items():
        if only and name not in only:
            continue
        folder = work / name
        folder.mkdir(parents=True)
        try:
            case(folder)
        except Exception:
            failed.append(name)
            print(f"FAILED {name}", file=sys.stderr)
            traceback.print_exc()
        else:
            print(f"ok {name}")
    return failed


def main(argv: list[str]) -> int:
    work = pathlib.Path(argv[0])
    failed = run_all(work, argv[1:] or None)
    print(f"{len(CASES) - len(failed)} passed, {len(failed)} failed", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
