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
* ``hostile``: decode a ``GraphProto`` and read every node's attribute list.

Libraries: ``wirecodec`` (and ``wirecodec-not-durable``, the same but for ``save``'s
``durable=False``); ``onnx`` and ``protobuf-python`` (the onnx package on the upb or
the pure-Python protobuf backend, chosen by ``PROTOCOL_BUFFERS_PYTHON_IMPLEMENTATION`` in
this process's environment); ``onnx-ir``.
"""

from __future__ import annotations

import gc
import hashlib
import json
import pathlib
import re
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


class Wirecodec:
    """wirecodec, through its public functions; ``durable`` is what ``save`` passes on."""

    def __init__(self, durable: bool = True) -> None:
        import wirecodec
        from schema_dsl.onnx import GraphProto, ModelProto

        self.wirecodec, self.model_class, self.graph_class = wirecodec, ModelProto, GraphProto
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


JOBS: dict[str, Callable[[Any, pathlib.Path, pathlib.Path | None], dict[str, Any]]] = {
    "arrays": job_arrays,
    "graph": job_graph,
    "save": job_save,
    "hostile": job_hostile,
}


def main(argv: list[str]) -> int:
    if len(argv) not in (3, 4) or argv[0] not in JOBS or argv[1] not in LIBRARIES:
        print(__doc__.split("\n")[2].strip(), file=sys.stderr)
        return 2
    job, name, path = argv[0], argv[1], pathlib.Path(argv[2])
    scratch = pathlib.Path(argv[3]) if len(argv) == 4 else None
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
