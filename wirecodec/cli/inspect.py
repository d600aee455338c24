"""Summarise a model: versions, operators, parameters, external data, the largest tensors,
inputs and outputs, functions, metadata, and whether it re-encodes to the same bytes.

The model is opened as any user would (``wirecodec.load``, mapped) but its external
data is not loaded: tensor sizes come from their headers (``dims``, ``data_type``,
``external_data``), so the data files are never read. The round-trip check compares
the re-encoding with the model file chunk by chunk, without a second copy of it.
MODEL ``-`` reads the model from standard input; without MODEL the example bundled
with the package is summarised.

Exit code 0 when the model re-encodes byte for byte and every external data file is
found; 1 otherwise (or when the model cannot be read).

  wirecodec inspect model.onnx
  wirecodec inspect --json --top 20 model.onnx
  cat model.onnx | wirecodec inspect -
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import time
from collections.abc import Iterator
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, TensorProto
from wirecodec.cli.common import EXAMPLE, STDIN, CliError, Opened, describe_error, open_model, print_json
from wirecodec.cli.facts import TensorFacts, tensor_facts, tensor_sites, value_info_json
from wirecodec.errors import DecodeError, ExternalDataError, WireCodecError
from wirecodec.files.external import resolve
from wirecodec.files.stream import assemble, stream
from wirecodec.protobuf.codec import encode_chunks

__all__ = ["HELP", "add_arguments", "describe", "run", "same_bytes", "summarise", "text_lines"]

HELP = "summarise a model (default: the bundled example; - reads standard input)"


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        nargs="?",
        default=str(EXAMPLE),
        help="an .onnx file, or - for standard input (default: the bundled example)",
    )
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--top", type=_count, default=5, metavar="N", help="list the N largest tensors (default: 5)"
    )


def op_name(node: NodeProto) -> str:
    """``Conv``, or ``com.microsoft::Attention`` for an operator outside the default domain."""
    domain = node.domain
    return f"{domain}::{node.op_type}" if domain and domain != "ai.onnx" else node.op_type


def _nested_nodes(graph: GraphProto) -> Iterator[NodeProto]:
    """The nodes of every subgraph held by ``graph``'s nodes (If/Loop/Scan bodies), at any depth."""
    for node in graph.node:
        for attribute in node.attribute:
            subgraphs = [attribute.g] if attribute.HasField("g") else []
            for sub in [*subgraphs, *attribute.graphs]:
                yield from sub.node
                yield from _nested_nodes(sub)


def _parameters(graph: GraphProto) -> dict[str, Any]:
    """Element count and bytes of the graph's initializers, in total and by element type.

    A sparse initializer counts its stored values (and its indices' bytes).
    """
    by_dtype: dict[str, dict[str, int]] = {}
    total = {"tensors": 0, "count": 0, "bytes": 0}

    def add(facts: TensorFacts, extra_bytes: int = 0) -> None:
        entry = by_dtype.setdefault(facts.dtype, {"tensors": 0, "count": 0, "bytes": 0})
        for bucket in (entry, total):
            bucket["tensors"] += 1
            bucket["count"] += facts.elements
            bucket["bytes"] += facts.nbytes + extra_bytes

    for tensor in graph.initializer:
        add(tensor_facts(tensor))
    for sparse in graph.sparse_initializer:
        add(tensor_facts(sparse.values), tensor_facts(sparse.indices).nbytes)
    return {**total, "by_dtype": dict(sorted(by_dtype.items()))}


def _external_files(
    sites: list[tuple[str, TensorProto, TensorFacts]], base: pathlib.Path | None
) -> list[dict[str, Any]]:
    """Each external data file: how many tensors and bytes point into it, and its size on disk."""
    files: dict[str, dict[str, Any]] = {}
    for _, tensor, facts in sites:
        if facts.location is None:
            continue
        entry = files.get(facts.location)
        if entry is None:
            entry = {"location": facts.location, "tensors": 0, "bytes": 0, "file_size": None, "error": None}
            if base is None:
                entry["error"] = "the model came from standard input: its data files cannot be found"
            else:
                try:
                    entry["file_size"] = resolve(base, facts.location, tensor).stat().st_size
                except (ExternalDataError, OSError) as exc:
                    entry["error"] = str(exc)
            files[facts.location] = entry
        entry["tensors"] += 1
        entry["bytes"] += facts.nbytes
    return list(files.values())


# Chunks of the encoding at least this big (tensor payloads) are compared where they lie;
# smaller ones (headers, names) are gathered first, so numpy is called rarely.
_BIG_CHUNK: Final = 1 << 16


def _address(array: npt.NDArray[Any]) -> int:
    return int(array.__array_interface__["data"][0])


def same_bytes(model: ModelProto, original: Any) -> bool:
    """Whether encoding ``model`` gives exactly ``original`` (any buffer), without a second copy.

    The encoding's chunks are compared in order against the original's bytes. A payload
    chunk that is a view of ``original`` at the very offset it would be written to
    holds those bytes by definition, so it is skipped: for a model decoded from a
    mapped file, the weights are never read.
    """
    chunks, size = encode_chunks(model)
    whole = np.frombuffer(original, dtype=np.uint8)
    if size != whole.size:
        return False
    start = _address(whole)
    position = 0
    pending = bytearray()

    def matches(piece: Any) -> bool:
        nonlocal position
        got = np.frombuffer(piece, dtype=np.uint8)
        same = _address(got) == start + position or bool(
            np.array_equal(whole[position : position + got.size], got)
        )
        position += got.size
        return same

    for chunk in chunks:
        if memoryview(chunk).nbytes < _BIG_CHUNK:
            pending += chunk
            continue
        if (pending and not matches(pending)) or not matches(chunk):
            return False
        pending = bytearray()
    return not pending or matches(pending)


def _where(path: str) -> str:
    if path.startswith("graph.initializer["):
        return "initializer"
    if path.startswith("graph.sparse_initializer["):
        return "sparse initializer"
    if ".attribute" in path or ".attribute_proto" in path:
        return "attribute"
    return "other"


def summarise(opened: Opened, original: Any, *, top: int = 5) -> dict[str, Any]:
    """Everything ``inspect`` reports about a model, as JSON-ready values.

    ``original`` is the file's bytes (any buffer), for the round-trip verdict; ``opened.model`` was
    loaded without its external data.
    """
    model: ModelProto = opened.model
    graph = model.graph
    sites = [(path, tensor, tensor_facts(tensor)) for path, tensor in tensor_sites(model)]
    largest = sorted(sites, key=lambda site: (-site[2].nbytes, site[0]))[:top]
    nested = collections.Counter(op_name(n) for n in _nested_nodes(graph))
    external = _external_files(sites, opened.path.parent if opened.path is not None else None)
    return {
        "model": opened.label,
        "size": opened.size,
        "ir_version": model.ir_version,
        "opset_import": [{"domain": o.domain, "version": o.version} for o in model.opset_import],
        "producer": {"name": model.producer_name, "version": model.producer_version},
        "domain": model.domain,
        "model_version": model.model_version,
        "graph": {
            "name": graph.name,
            "nodes": len(graph.node),
            "initializers": len(graph.initializer),
            "sparse_initializers": len(graph.sparse_initializer),
            "value_info": len(graph.value_info),
        },
        "operators": dict(collections.Counter(op_name(n) for n in graph.node).most_common()),
        "subgraph_operators": dict(nested.most_common()),
        "parameters": _parameters(graph),
        "external_data": external,
        "largest_tensors": [
            {"path": path, "where": _where(path), **facts.json()} for path, _, facts in largest
        ],
        "inputs": [value_info_json(v) for v in graph.input],
        "outputs": [value_info_json(v) for v in graph.output],
        "functions": [
            {
                "domain": f.domain,
                "name": f.name,
                "nodes": len(f.node),
                "inputs": list(f.input),
                "outputs": list(f.output),
                "operators": dict(collections.Counter(op_name(n) for n in f.node).most_common()),
            }
            for f in model.functions
        ],
        "metadata_props": {p.key: p.value for p in model.metadata_props},
        # None: read as a stream (standard input), whose bytes were not kept to compare.
        "byte_identical": None if original is None else same_bytes(model, original),
    }


def _opset(entry: dict[str, Any]) -> str:
    return f"{entry['domain'] or 'ai.onnx'}:{entry['version']}"


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{op}×{n}" for op, n in counter.items()) or "(none)"


def _mib(n: int) -> str:
    return f"{n:,} bytes" if n < 1 << 20 else f"{n:,} bytes ({n / (1 << 20):.1f} MiB)"


def text_lines(summary: dict[str, Any], load_seconds: float | None = None) -> list[str]:
    """The human-readable form of :func:`summarise`'s result, one fact per line."""
    s = summary
    graph, params = s["graph"], s["parameters"]
    lines = [f"model         {s['model']} ({s['size']:,} bytes)"]
    if load_seconds is not None:
        lines.append(f"loaded in     {load_seconds * 1000:.2f} ms")
    lines += [
        f"ir_version    {s['ir_version']}",
        f"producer      {s['producer']['name']} {s['producer']['version']}".rstrip(),
        f"opsets        {', '.join(_opset(o) for o in s['opset_import'])}",
        f"graph         {graph['name']!r}: {graph['nodes']} nodes, {graph['initializers']} initializers"
        + (f", {graph['sparse_initializers']} sparse" if graph["sparse_initializers"] else ""),
        f"parameters    {params['count']:,} in {params['tensors']} tensors, {_mib(params['bytes'])}",
    ]
    for dtype, entry in params["by_dtype"].items():
        count, tensors, size = entry["count"], entry["tensors"], _mib(entry["bytes"])
        lines.append(f"  {dtype:<11} {count:,} in {tensors} tensors, {size}")
    for put in s["external_data"]:
        on_disk = f"file {_mib(put['file_size'])}" if put["file_size"] is not None else put["error"]
        lines.append(
            f"external data {put['location']}: {put['tensors']} tensors, {_mib(put['bytes'])}; {on_disk}"
        )
    for label, key in (("inputs", "inputs"), ("outputs", "outputs")):
        values = s[key]
        lines.append(f"{label:<13} " + (f"{values[0]['name']}: {values[0]['type']}" if values else "(none)"))
        lines += [f"              {v['name']}: {v['type']}" for v in values[1:]]
    lines.append(f"operators     {_counts(s['operators'])}")
    if s["subgraph_operators"]:
        lines.append(f"in subgraphs  {_counts(s['subgraph_operators'])}")
    for f in s["functions"]:
        lines.append(
            f"function      {f['domain']}::{f['name']}({', '.join(f['inputs'])}) -> "
            f"{', '.join(f['outputs'])}: {f['nodes']} nodes"
        )
    if s["largest_tensors"]:
        lines.append("largest")
        for t in s["largest_tensors"]:
            shape = "[" + ",".join(str(d) for d in t["shape"]) + "]"
            where = f" in {t['location']}" if t["location"] else ""
            name = t["name"] or "(unnamed)"
            lines.append(f"  {t['bytes']:>13,} bytes  {name} {t['dtype']}{shape}{where}  ({t['path']})")
    for key, value in s["metadata_props"].items():
        lines.append(f"metadata      {key} = {value}")
    verdict = {True: "byte-identical", False: "DIFFERS", None: "not checked (read as a stream)"}
    lines.append(f"round trip    {verdict[s['byte_identical']]}")
    return lines


def _ok(summary: dict[str, Any]) -> bool:
    return summary["byte_identical"] is not False and not any(f["error"] for f in summary["external_data"])


def _open(source: str) -> tuple[Opened, Any, float]:
    """The model (external data left on disk), the bytes it was decoded from, and the load time.

    Standard input is read as a stream (``wirecodec.stream``), tensor payloads skipped as
    they go by, so a model of any size is summarised in bounded memory; its bytes are not
    kept, so there is no round-trip verdict (None).
    """
    started = time.perf_counter()
    if source == STDIN:
        return _open_stream(), None, time.perf_counter() - started
    opened = open_model(source, load_external_data=False, keep_bytes=True)
    return opened, opened.data, time.perf_counter() - started


def _open_stream() -> Opened:
    import sys

    try:
        with stream(sys.stdin.buffer, skip_payloads=True) as events:
            # Initializers keep their headers: dims and data type give their sizes.
            model = assemble(events, tensor=lambda lazy: lazy.header)
            size = events.position
        if size == 0:
            raise DecodeError("empty input: not an ONNX model", 0, "ModelProto")
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error("<stdin>", exc)) from None
    return Opened(model, "<stdin>", None, size)


def describe(path: pathlib.Path) -> tuple[list[str], bool]:
    """Summary lines of the model at ``path`` and whether it re-encodes to the same bytes."""
    opened, original, seconds = _open(str(path))
    summary = summarise(opened, original)
    return text_lines(summary, seconds), bool(summary["byte_identical"])


def run(args: argparse.Namespace) -> int:
    opened, original, seconds = _open(args.model)
    summary = summarise(opened, original, top=args.top)
    if args.json:
        print_json(summary)
    else:
        print("\n".join(text_lines(summary, seconds)))
    return 0 if _ok(summary) else 1
