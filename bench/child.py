"""One measurement in a fresh process: ``python bench/child.py JOB LIBRARY INPUT [SCRATCH]``.

``bench/run.py`` starts this script once per library per repeat and reads the JSON lines
it prints: one per timed step as the step ends, then the cross-check values. The library
is imported before any clock starts (its import time is reported apart); everything after
the import counts, including whatever a library builds on first use (wirecodec generates
its codec on the first decode). Before each timed step the
process resets its peak-RSS counter (``/proc/self/clear_refs``), so a step's peak is the
most memory the process held *during that step*, including what it held before it.

Jobs (what is timed):

* ``arrays``: open the model and get every initializer as a numpy array;
* ``graph``: decode the model from bytes and walk all of it (step ``decode+walk``), then
  encode the decoded model back to bytes (step ``encode``), then rename the node in the
  middle of the graph (not timed) and encode again (step ``encode-changed``);
* ``save``: load the model (not timed), then save it as one file into SCRATCH;
  ``wirecodec-not-durable`` saves with ``wirecodec.save(..., durable=False)`` (no ``fsync``);
* ``hostile``: decode a ``GraphProto`` and read every node's attribute list;
* ``tool``: decode the model from bytes and walk it as a graph tool does (step
  ``decode+tool-walk``, :func:`walk_tool`): the models people have;
* ``rename-all``: decode (not timed), rename every node (not timed), encode (``encode``);
* ``retype``: load (not timed), change every initializer's ``data_type`` to another of
  the same width (not timed), encode (``encode``);
* ``build``: build a ``meta-N`` graph from scratch with the library's ``helper``
  (``build``), then encode it (``encode``);
* ``import``: a fresh interpreter imports the library (``import``; the library is
  never imported in this process);
* ``inspect``: wall time of a fresh ``wirecodec inspect MODEL`` (``inspect``); the
  reference prints ``onnx.helper.printable_graph`` of ``onnx.load(MODEL)``.

Libraries: ``wirecodec`` (and ``wirecodec-not-durable``, the same but for ``save``'s
``durable=False``); ``onnx`` and ``protobuf-python`` (the onnx package on the upb or
the pure-Python protobuf backend, chosen by ``PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION`` in
this process's environment); ``onnx-ir``. The ``import`` job also has
``wirecodec-load`` (``from wirecodec import load``: the package and what opening a
model needs) and ``numpy-alone`` (``import numpy``, the floor under both).
"""

from __future__ import annotations

import gc
import hashlib
import json
import pathlib
import re
import resource
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from typing import Any

# Appended to the name of the node the ``encode-changed`` step renames.
RENAMED = "/renamed"


def rename_middle_node_proto(model: Any) -> None:
    """The change before ``encode-changed``, through the protobuf API (onnx or wirecodec)."""
    node = model.graph.node[len(model.graph.node) // 2]
    node.name = node.name + RENAMED


def rename_every_node_proto(model: Any) -> None:
    """The change before ``rename-all``'s encode: every node of the main graph gets a new name."""
    for node in model.graph.node:
        node.name = node.name + RENAMED


# TensorProto.DataType: each to another of the same width, so raw_data stays valid.
_SAME_WIDTH = {1: 6, 6: 1, 7: 11, 11: 7, 10: 16, 16: 10, 2: 3, 3: 2, 4: 5, 5: 4, 12: 13, 13: 12}


def retype_every_initializer_proto(model: Any) -> None:
    """The change before ``retype``'s encode: every initializer's data_type, to one of the same width."""
    for tensor in model.graph.initializer:
        tensor.data_type = _SAME_WIDTH.get(tensor.data_type, tensor.data_type)


# AttributeProto.AttributeType values, from onnx.proto.
_FLOAT, _INT, _STRING, _TENSOR, _FLOATS, _INTS, _STRINGS = 1, 2, 3, 4, 6, 7, 8


def _status(field: str) -> int:
    """A ``/proc/self/status`` memory figure in bytes."""
    with open("/proc/self/status") as status:
        found = re.search(rf"^{field}:\s+(\d+) kB", status.read(), re.MULTILINE)
    return int(found.group(1)) * 1024 if found else 0


def _reset_peak() -> bool:
    """Start a new peak-RSS window (Linux >= 4.0); False where the kernel does not allow it."""
    try:
        with open("/proc/self/clear_refs", "w") as clear:
            clear.write("5")
    except OSError:
        return False
    return True


def measure(label: str, step: Callable[[], Any]) -> Any:
    """Run ``step`` once and print its seconds, RSS before and peak RSS during it (bytes).

    Each step's figures are a JSON line of their own, printed as soon as the step ends,
    so a run stopped during a later step still reports the steps it finished.
    """
    gc.collect()
    reset = _reset_peak()
    before = _status("VmRSS")
    started = time.perf_counter()
    result = step()
    seconds = time.perf_counter() - started
    figures = {"seconds": seconds, "rss_before": before, "peak_rss": _status("VmHWM"), "peak_reset": reset}
    print(json.dumps({"step": label, "figures": figures}), flush=True)
    return result


# --- walks: the same visit for every library ----------------------------------------------


def walk_proto(model: Any) -> dict[str, int]:
    """Visit every node, attribute and value type of an onnx-shaped ModelProto (onnx or wirecodec)."""
    graph = model.graph
    counts = dict.fromkeys(("nodes", "attributes", "int_sum", "text", "values", "dims", "dim_value_sum"), 0)
    counts["dim_params"] = 0
    for node in graph.node:
        counts["nodes"] += 1
        counts["text"] += len(node.name) + len(node.op_type) + len(node.domain)
        counts["text"] += sum(len(name) for name in node.input) + sum(len(name) for name in node.output)
        for attribute in node.attribute:
            counts["attributes"] += 1
            counts["text"] += len(attribute.name)
            counts["int_sum"] += _attribute_ints(attribute)
    for values in (graph.input, graph.value_info, graph.output):
        for value in values:
            tensor_type = value.type.tensor_type
            counts["values"] += 1
            counts["int_sum"] += tensor_type.elem_type
            for dim in tensor_type.shape.dim:
                counts["dims"] += 1
                counts["dim_value_sum"] += dim.dim_value
                counts["dim_params"] += len(dim.dim_param) > 0
    return counts


def _attribute_ints(attribute: Any) -> int:
    """Read the attribute's value by its type; the integers in it, summed (for the cross-check)."""
    kind = attribute.type
    if kind == _INT:
        return int(attribute.i)
    if kind == _INTS:
        return sum(attribute.ints)
    if kind == _FLOAT:
        return int(attribute.f != 0.0)
    if kind == _FLOATS:
        return len(attribute.floats)
    if kind == _STRING:
        return len(attribute.s)
    if kind == _STRINGS:
        return sum(len(s) for s in attribute.strings)
    if kind == _TENSOR:
        return sum(attribute.t.dims) + attribute.t.data_type + len(attribute.t.raw_data)
    return 0


def walk_ir(model: Any) -> dict[str, int]:
    """The same visit through onnx-ir's object model: nodes, attributes, and every value's type."""
    graph = model.graph
    counts = dict.fromkeys(("nodes", "attributes", "int_sum", "text", "values", "dims", "dim_value_sum"), 0)
    counts["dim_params"] = 0
    values: list[Any] = list(graph.inputs)
    for node in graph:
        counts["nodes"] += 1
        counts["text"] += len(node.name or "") + len(node.op_type) + len(node.domain)
        counts["text"] += sum(len(value.name or "") for value in node.inputs if value is not None)
        counts["text"] += sum(len(value.name or "") for value in node.outputs)
        for attribute in node.attributes.values():
            counts["attributes"] += 1
            counts["text"] += len(attribute.name)
            counts["int_sum"] += _ir_attribute_ints(attribute)
        values.extend(node.outputs)
    for value in values:
        if value.type is None:
            continue
        counts["values"] += 1
        counts["int_sum"] += int(value.dtype)
        for dim in value.shape or ():
            counts["dims"] += 1
            if isinstance(dim, int):
                counts["dim_value_sum"] += dim
            else:
                counts["dim_params"] += dim.value is not None
    return counts


def _ir_attribute_ints(attribute: Any) -> int:
    kind, value = int(attribute.type), attribute.value
    if kind == _INT:
        return int(value)
    if kind == _INTS:
        return sum(value)
    if kind == _FLOAT:
        return int(value != 0.0)
    if kind == _FLOATS:
        return len(value)
    if kind == _STRING:
        return len(value.encode())
    if kind == _STRINGS:
        return sum(len(s.encode()) for s in value)
    if kind == _TENSOR:
        return sum(value.shape) + int(value.dtype) + value.nbytes
    return 0


_GRAPH, _GRAPHS = 5, 10


def walk_tool(model: Any) -> dict[str, Any]:
    """What a graph tool (a viewer, a linter, an optimiser's pattern matcher) reads of a model.

    Every node's op_type, name, domain, inputs and outputs, in the main graph, in every
    subgraph (``If``/``Loop`` bodies) and in every function; every attribute's name and
    value when it is not a tensor (``i``, ``f``, ``s``, ``ints``, ``floats``, ``strings``),
    a tensor attribute's ``data_type`` and ``dims`` only; every graph input, output and
    ``value_info``'s element type and shape; every initializer's name, ``data_type`` and
    ``dims``. Not read: metadata (``doc_string``, ``metadata_props``, model properties)
    and tensor contents (``raw_data``, ``float_data``, ...). Protobuf API: onnx or wirecodec.
    """
    counts: dict[str, Any] = dict.fromkeys(
        ("graphs", "nodes", "attributes", "text", "int_sum", "floats", "values", "dims", "initializers"), 0
    )
    counts["float_sum"] = 0.0
    for graph in [model.graph]:
        _tool_graph(graph, counts)
    for function in model.functions:
        for node in function.node:
            _tool_node(node, counts)
    counts["float_sum"] = round(counts["float_sum"], 3)
    return counts


def _tool_graph(graph: Any, counts: dict[str, Any]) -> None:
    counts["graphs"] += 1
    for node in graph.node:
        _tool_node(node, counts)
    for values in (graph.input, graph.output, graph.value_info):
        for value in values:
            tensor_type = value.type.tensor_type
            counts["values"] += 1
            counts["text"] += len(value.name)
            counts["int_sum"] += tensor_type.elem_type
            for dim in tensor_type.shape.dim:
                counts["dims"] += 1
                counts["int_sum"] += dim.dim_value
                counts["text"] += len(dim.dim_param)
    for tensor in graph.initializer:
        counts["initializers"] += 1
        counts["text"] += len(tensor.name)
        counts["int_sum"] += tensor.data_type + sum(tensor.dims)


def _tool_node(node: Any, counts: dict[str, Any]) -> None:
    counts["nodes"] += 1
    counts["text"] += len(node.op_type) + len(node.name) + len(node.domain)
    counts["text"] += sum(len(name) for name in node.input) + sum(len(name) for name in node.output)
    for attribute in node.attribute:
        counts["attributes"] += 1
        counts["text"] += len(attribute.name)
        kind = attribute.type
        if kind == _INT:
            counts["int_sum"] += attribute.i
        elif kind == _FLOAT:
            counts["floats"] += 1
            counts["float_sum"] += attribute.f
        elif kind == _STRING:
            counts["text"] += len(attribute.s)
        elif kind == _INTS:
            counts["int_sum"] += sum(attribute.ints)
        elif kind == _FLOATS:
            counts["floats"] += len(attribute.floats)
            counts["float_sum"] += sum(attribute.floats)
        elif kind == _STRINGS:
            counts["text"] += sum(len(s) for s in attribute.strings)
        elif kind == _TENSOR:
            counts["int_sum"] += attribute.t.data_type + sum(attribute.t.dims)
        elif kind == _GRAPH:
            _tool_graph(attribute.g, counts)
        elif kind == _GRAPHS:
            for graph in attribute.graphs:
                _tool_graph(graph, counts)


def _touch_nodes(nodes: Iterable[Any], attributes_of: Callable[[Any], Any]) -> dict[str, int]:
    counts = {"nodes": 0, "attributes": 0}
    for node in nodes:
        counts["nodes"] += 1
        counts["attributes"] += len(attributes_of(node))
    return counts


def _array_check(arrays: list[Any]) -> dict[str, float]:
    # Two elements per tensor: enough to show every library read the same data.
    ends = sum(float(a.reshape(-1)[0]) + float(a.reshape(-1)[-1]) for a in arrays if a.size)
    return {"tensors": len(arrays), "bytes": sum(a.nbytes for a in arrays), "ends": round(ends, 3)}


# --- the libraries ------------------------------------------------------------------------


class OnnxPackage:
    """The onnx package, on whichever protobuf backend this process's environment selected."""

    def __init__(self) -> None:
        import onnx
        from google.protobuf.internal import api_implementation
        from onnx import numpy_helper

        self.onnx, self.numpy_helper = onnx, numpy_helper
        self.backend = api_implementation.Type()

    def arrays(self, path: pathlib.Path) -> list[Any]:
        model = self.onnx.load(str(path))
        return [self.numpy_helper.to_array(tensor) for tensor in model.graph.initializer]

    def decode(self, data: bytes) -> Any:
        return self.onnx.load_model_from_string(data)

    def walk(self, model: Any) -> dict[str, int]:
        return walk_proto(model)

    def encode(self, model: Any) -> bytes:
        data: bytes = model.SerializeToString()
        return data

    def rename_middle_node(self, model: Any) -> None:
        rename_middle_node_proto(model)

    def load(self, path: pathlib.Path) -> Any:
        return self.onnx.load(str(path))

    def save(self, model: Any, path: pathlib.Path) -> None:
        self.onnx.save(model, str(path))

    def hostile(self, data: bytes) -> dict[str, int]:
        graph = self.onnx.GraphProto.FromString(data)
        return _touch_nodes(graph.node, lambda node: node.attribute)

    def helpers(self) -> tuple[Any, Any]:
        from onnx import helper, numpy_helper

        return helper, numpy_helper


class Wirecodec:
    """wirecodec, through its public functions; ``durable`` is what ``save`` passes on."""

    def __init__(self, durable: bool = True) -> None:
        import wirecodec
        from schema_dsl.onnx import GraphProto, ModelProto

        self.wirecodec, self.model_class, self.graph_class = wirecodec, ModelProto, GraphProto
        # wirecodec imports its public names on first use: bring in what the jobs call now, so
        # that the import is reported with the import, not inside the first timed step.
        for name in ("decode", "encode", "load", "save", "to_array"):
            getattr(wirecodec, name)
        self.durable = durable

    def arrays(self, path: pathlib.Path) -> list[Any]:
        model = self.wirecodec.load(path)
        return [self.wirecodec.to_array(tensor) for tensor in model.graph.initializer]

    def decode(self, data: bytes) -> Any:
        return self.wirecodec.decode(self.model_class, data)

    def walk(self, model: Any) -> dict[str, int]:
        return walk_proto(model)

    def encode(self, model: Any) -> bytes:
        return self.wirecodec.encode(model)

    def rename_middle_node(self, model: Any) -> None:
        rename_middle_node_proto(model)

    def load(self, path: pathlib.Path) -> Any:
        return self.wirecodec.load(path)

    def save(self, model: Any, path: pathlib.Path) -> None:
        self.wirecodec.save(model, path, durable=self.durable)

    def hostile(self, data: bytes) -> dict[str, int]:
        graph = self.wirecodec.decode(self.graph_class, data)
        return _touch_nodes(graph.node, lambda node: node.attribute)

    def helpers(self) -> tuple[Any, Any]:
        return self.wirecodec.helper, self.wirecodec.numpy_helper


class OnnxIr:
    """onnx-ir: its own loader and saver; from bytes, protobuf (upb) parses and onnx-ir deserializes."""

    def __init__(self) -> None:
        import onnx
        import onnx_ir

        self.onnx, self.ir = onnx, onnx_ir

    def arrays(self, path: pathlib.Path) -> list[Any]:
        model = self.ir.load(path)
        return [value.const_value.numpy() for value in model.graph.initializers.values()]

    def decode(self, data: bytes) -> Any:
        return self.ir.serde.deserialize_model(self.onnx.load_model_from_string(data))

    def walk(self, model: Any) -> dict[str, int]:
        return walk_ir(model)

    def encode(self, model: Any) -> bytes:
        data: bytes = self.ir.serde.serialize_model(model).SerializeToString()
        return data

    def load(self, path: pathlib.Path) -> Any:
        return self.ir.load(path)

    def save(self, model: Any, path: pathlib.Path) -> None:
        self.ir.save(model, path)

    def rename_middle_node(self, model: Any) -> None:
        nodes = list(model.graph)
        node = nodes[len(nodes) // 2]
        node.name = node.name + RENAMED

    def hostile(self, data: bytes) -> dict[str, int]:
        graph = self.ir.serde.deserialize_graph(self.onnx.GraphProto.FromString(data))
        return _touch_nodes(graph, lambda node: node.attributes)


LIBRARIES: dict[str, Callable[[], Any]] = {
    "wirecodec": Wirecodec,
    "wirecodec-not-durable": lambda: Wirecodec(durable=False),
    "wirecodec-load": Wirecodec,
    "numpy-alone": lambda: None,
    "onnx": OnnxPackage,
    "protobuf-python": OnnxPackage,
    "onnx-ir": OnnxIr,
}


# --- the jobs -------------------------------------------------------------------------------


def job_arrays(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    arrays = measure("arrays", lambda: library.arrays(path))
    return _array_check(arrays)


def job_graph(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    holder: list[Any] = [path.read_bytes()]

    def decode_and_walk() -> dict[str, int]:
        # The bytes are dropped once decoded, as a caller done with them would (wirecodec keeps
        # views of them alive, upb copies what it needs).
        holder.append(library.decode(holder.pop()))
        return library.walk(holder[0])  # type: ignore[no-any-return]

    counts = measure("decode+walk", decode_and_walk)
    encoded = measure("encode", lambda: library.encode(holder[0]))
    library.rename_middle_node(holder[0])
    changed = measure("encode-changed", lambda: library.encode(holder[0]))
    return {
        **counts,
        "encoded_bytes": len(encoded),
        "encoded_sha256": hashlib.sha256(encoded).hexdigest(),
        "changed_sha256": hashlib.sha256(changed).hexdigest(),
    }


def job_save(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    if scratch is None:
        raise SystemExit("save needs a scratch directory")
    model = library.load(path)
    target = scratch / "saved.onnx"
    measure("save", lambda: library.save(model, target))
    return {"written_bytes": sum(p.stat().st_size for p in scratch.iterdir())}


def job_hostile(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    data = path.read_bytes()
    return measure("decode+read", lambda: library.hostile(data))  # type: ignore[no-any-return]


def job_tool(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    holder: list[Any] = [path.read_bytes()]

    def decode_and_walk() -> dict[str, Any]:
        holder.append(library.decode(holder.pop()))  # the bytes dropped once decoded, as in job_graph
        return walk_tool(holder[0])

    counts = measure("decode+tool-walk", decode_and_walk)
    model = holder[0]
    return {**counts, "producer": f"{model.producer_name} {model.producer_version}".strip()}


def job_rename_all(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    model = library.decode(path.read_bytes())
    rename_every_node_proto(model)
    return _digest(measure("encode", lambda: library.encode(model)))


def job_retype(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    model = library.load(path)
    retype_every_initializer_proto(model)
    return {
        **_digest(measure("encode", lambda: library.encode(model))),
        "tensors": len(model.graph.initializer),
    }


def job_build(library: Any, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    # The input only names the size (its folder is meta-N); the model is built here, by the library.
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
    import inputs

    nodes = int(path.parent.name.removeprefix("meta-"))
    helper, numpy_helper = library.helpers()
    model = measure("build", lambda: inputs.metadata_model(nodes, helper, numpy_helper))
    return _digest(measure("encode", lambda: library.encode(model)))


def _digest(encoded: bytes) -> dict[str, Any]:
    return {"encoded_bytes": len(encoded), "encoded_sha256": hashlib.sha256(encoded).hexdigest()}


# What each library's ``import`` job imports in a fresh interpreter.
IMPORTS = {
    "wirecodec": "import wirecodec",
    "wirecodec-load": "from wirecodec import load",
    "numpy-alone": "import numpy",
    "onnx": "import onnx",
    "protobuf-python": "import onnx",
    "onnx-ir": "import onnx_ir",
}
# Only ``time`` is imported before the clock starts: what the statement needs, it pays for.
_IMPORT_SCRIPT = """
import time
started = time.perf_counter()
{statement}
seconds = time.perf_counter() - started
peak = [line.split()[1] for line in open("/proc/self/status") if line.startswith("VmHWM:")][0]
print(seconds, int(peak) * 1024)
"""


def job_import(name: str, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    """``import`` timed inside a fresh interpreter (after its own start, before anything else)."""
    script = _IMPORT_SCRIPT.format(statement=IMPORTS[name])
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - started
    seconds, peak = done.stdout.split()
    _print_step("import", float(seconds), int(peak))
    return {"process_seconds": round(wall, 4)}


# What each library's ``inspect`` job runs in a fresh process, on MODEL.
INSPECTS = {
    "wirecodec": ["-m", "wirecodec", "inspect"],
    "onnx": ["-c", "import onnx, sys; print(onnx.helper.printable_graph(onnx.load(sys.argv[1]).graph))"],
}


def job_inspect(name: str, path: pathlib.Path, scratch: pathlib.Path | None) -> dict[str, Any]:
    """Wall time of a whole fresh process that prints a summary of the model."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, *INSPECTS[name], str(path)], capture_output=True, check=True)
    seconds = time.perf_counter() - started
    _print_step("inspect", seconds, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)
    return {"printed_lines": done.stdout.count(b"\n") > 0}


def _print_step(label: str, seconds: float, peak: int) -> None:
    """A step measured in another process: its seconds and that process's peak RSS."""
    figures = {"seconds": seconds, "rss_before": 0, "peak_rss": peak, "peak_reset": False}
    print(json.dumps({"step": label, "figures": figures}), flush=True)


JOBS: dict[str, Callable[[Any, pathlib.Path, pathlib.Path | None], dict[str, Any]]] = {
    "arrays": job_arrays,
    "graph": job_graph,
    "save": job_save,
    "hostile": job_hostile,
    "tool": job_tool,
    "rename-all": job_rename_all,
    "retype": job_retype,
    "build": job_build,
}
# Jobs that start their own interpreter: this process never imports the library.
FRESH_JOBS: dict[str, Callable[[str, pathlib.Path, pathlib.Path | None], dict[str, Any]]] = {
    "import": job_import,
    "inspect": job_inspect,
}


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4) or argv[0] not in {**JOBS, **FRESH_JOBS} or argv[1] not in LIBRARIES:
        print(__doc__.split("\n")[2].strip(), file=sys.stderr)
        return 2
    job, name, path = argv[0], argv[1], pathlib.Path(argv[2])
    scratch = pathlib.Path(argv[3]) if len(argv) == 4 else None
    if job in FRESH_JOBS:
        print(json.dumps({"check": FRESH_JOBS[job](name, path, scratch)}))
        return 0
    started = time.perf_counter()
    library = LIBRARIES[name]()
    imported = {"seconds": time.perf_counter() - started, "rss": _status("VmRSS")}
    if name == "protobuf-python" and library.backend != "python":
        raise SystemExit(f"protobuf backend is {library.backend!r}, not 'python'")
    check = JOBS[job](library, path, scratch)
    print(json.dumps({"check": check, "import": imported}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
