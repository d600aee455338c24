"""Summarise a model: versions, operators, parameters, external data, the largest tensors,
inputs and outputs, functions, metadata, and whether it re-encodes to the same bytes.

The model is opened as every verb opens it (mapped; a .onnxz container's entries in
place) and its external data is not read: tensor sizes come from their headers, and
each reference is only located (the file or entry exists and holds the range).
Parameters count every initializer (subgraphs too) and every Constant node's value.
The round-trip check compares the re-encoding with the model's bytes chunk by chunk,
without a second copy. MODEL - reads standard input; without MODEL the example bundled
with the package is summarised.

Exit code 0 when the model re-encodes byte for byte and every tensor's data is where
its reference says; 1 otherwise (or when the model cannot be read).

  wirecodec inspect model.onnx
  wirecodec inspect --json --top 20 model.onnx
  cat model.onnx | wirecodec inspect -
"""

from __future__ import annotations

import argparse
import collections
import textwrap
import time
from collections.abc import Iterator
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any, Final

from schema_dsl.onnx import AttributeProto, ModelProto, NodeProto, TensorProto
from wirecodec.cli.common import EXAMPLE, Opened, add_model_argument, open_model, print_json
from wirecodec.cli.facts import TensorFacts, tensor_facts, value_info_json
from wirecodec.cli.make_up import Nodes, as_packed, make_up, packed_weights
from wirecodec.cli.make_up import text as make_up_text
from wirecodec.errors import WireCodecError

if TYPE_CHECKING:
    import numpy.typing as npt
from wirecodec.files.base.tensor_data import TensorData
from wirecodec.files.base.walk import ORDER
from wirecodec.protobuf.codec import encode_chunks
from wirecodec.protobuf.walk import walk

__all__ = ["HELP", "add_arguments", "describe", "run", "same_bytes", "summarise", "text_lines"]

HELP = "summarise a model (default: the bundled example)"
WIDTH: Final = 80
_METADATA_CHARS: Final = 200  # a metadata value longer than this is cut (the length is said)


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must not be negative: {value}")
    return value


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser, default=str(EXAMPLE))
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument(
        "--top", type=_count, default=5, metavar="N", help="list the N largest tensors (default: 5)"
    )


def op_name(node: NodeProto) -> str:
    """``Conv``, or ``com.microsoft::Attention`` for an operator outside the default domain."""
    domain = node.domain
    return f"{domain}::{node.op_type}" if domain and domain != "ai.onnx" else node.op_type


class Weight:
    """A tensor that holds parameters: an initializer, a sparse initializer's parts, or a
    Constant node's value. ``path`` is the field path of the tensor (or sparse tensor)."""

    def __init__(self, path: str, tensor: TensorProto, facts: TensorFacts, extra_bytes: int = 0) -> None:
        self.path, self.tensor, self.facts, self.extra_bytes = path, tensor, facts, extra_bytes


def _constant_node(path: str, nodes: dict[str, NodeProto]) -> NodeProto | None:
    """The Constant node whose ``value``/``sparse_value`` attribute holds the tensor at ``path``."""
    head, sep, _ = path.rpartition(".attribute[")
    node = nodes.get(head) if sep else None
    return (
        node if node is not None and node.op_type == "Constant" and node.domain in ("", "ai.onnx") else None
    )


def model_tensors(
    model: ModelProto, bare: AbstractSet[int] = frozenset()
) -> Iterator[tuple[str, TensorProto, bool]]:
    """Every tensor with its path, and whether it is a weight (initializer or Constant value).

    ``bare``: the ``id()`` of nodes known to hold no tensor (:attr:`make_up.Nodes.bare`,
    nodes the caller holds): the walk does not enter them."""
    nodes: dict[str, NodeProto] = {}
    prune = (lambda site: id(site.message) in bare) if bare else None
    for site in walk(model, (TensorProto,), order=ORDER, prune=prune):
        item = site.message
        if isinstance(item, NodeProto):
            nodes[site.path] = item
        elif isinstance(item, TensorProto):
            weight = site.field in ("initializer", "values", "indices")
            if site.field == "t" and isinstance(site.parent, AttributeProto):
                weight = site.parent.name == "value" and _constant_node(site.path, nodes) is not None
            elif site.field in ("values", "indices"):
                inside = site.path.rpartition(".")[0]
                weight = ".sparse_initializer[" in inside or (
                    inside.endswith(".sparse_tensor") and _constant_node(inside, nodes) is not None
                )
            yield site.path, item, weight


def _parameters(weights: list[tuple[str, TensorProto, TensorFacts]]) -> dict[str, Any]:
    """Element count and bytes of the model's weights, in total and by element type.

    A sparse tensor counts its stored values, and its indices' bytes.
    """
    by_dtype: dict[str, dict[str, int]] = {}
    total = {"tensors": 0, "count": 0, "bytes": 0}
    for path, _, facts in weights:
        indices = path.endswith(".indices")
        entry = by_dtype.setdefault(facts.dtype, {"tensors": 0, "count": 0, "bytes": 0})
        buckets = (total,) if indices else (entry, total)
        for bucket in buckets:
            bucket["bytes"] += facts.nbytes
            if not indices:
                bucket["tensors"] += 1
                bucket["count"] += facts.elements
    if any(path.endswith(".indices") for path, _, _ in weights):
        by_dtype = {k: v for k, v in by_dtype.items() if v["tensors"]}
    return {**total, "by_dtype": dict(sorted(by_dtype.items()))}


def _external(sites: list[tuple[str, TensorProto, TensorFacts]], data: TensorData) -> list[dict[str, Any]]:
    """Each data file (or container entry): how many tensors and bytes refer to it, its size,
    and the first problem found (missing, unsafe, a range past its end)."""
    files: dict[str, dict[str, Any]] = {}
    for path, tensor, facts in sites:
        if facts.location is None:
            continue
        entry = files.get(facts.location)
        if entry is None:
            kind = "entry" if data.kind == "zip" else "file"
            entry = {
                "location": facts.location,
                "kind": kind,
                "tensors": 0,
                "bytes": 0,
                "file_size": None,
                "error": None,
            }
            files[facts.location] = entry
            try:
                entry["file_size"] = data.whole(facts.location, tensor).size
            except WireCodecError as exc:
                entry["error"] = f"{path}: {exc}"
        entry["tensors"] += 1
        entry["bytes"] += facts.nbytes
        if entry["file_size"] is not None and entry["error"] is None:
            try:
                data.locate(tensor)
            except WireCodecError as exc:
                entry["error"] = f"{path}: {exc}"
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
    try:
        import numpy as np
    except ImportError:
        return _same_bytes_read(model, original)
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


def _same_bytes_read(model: ModelProto, original: Any) -> bool:
    """:func:`same_bytes` without numpy (docs/platforms.md): every chunk compared, payloads
    included (they are read, where with numpy a view in place is known equal unread)."""
    chunks, size = encode_chunks(model)
    whole = memoryview(original).cast("B")
    if size != whole.nbytes:
        return False
    position = 0
    for chunk in chunks:
        piece = memoryview(chunk).cast("B")
        if whole[position : position + piece.nbytes] != piece:
            return False
        position += piece.nbytes
    return True


def _where(path: str) -> str:
    if ".sparse_initializer[" in path:
        return "sparse initializer"
    if ".initializer[" in path:
        return "initializer"
    if ".attribute" in path:
        return "attribute"
    return "other"


def summarise(opened: Opened, *, top: int = 5) -> dict[str, Any]:
    """Everything ``inspect`` reports about a model, as JSON-ready values.

    ``opened`` comes from the one opener with its references left in place; its
    ``original`` bytes give the round-trip verdict.
    """
    model: ModelProto = opened.model
    graph = model.graph
    # The report walks the nodes several times; a long graph's elements are views, built
    # again by each walk unless someone holds them: every node (bodies' too) and the bodies
    # each holds are read once and held for the length of the report.
    read = Nodes(graph)
    held_nodes = read.main
    sites: list[tuple[str, TensorProto, TensorFacts]] = []
    weights: list[tuple[str, TensorProto, TensorFacts]] = []
    packed = packed_weights(graph, read)  # MatMulNBits' 4-bit weights count as 4-bit parameters
    for path, tensor, weight in model_tensors(model, read.bare):
        site = (path, tensor, tensor_facts(tensor))
        sites.append(site)
        if weight:
            weights.append((path, tensor, as_packed(site[2], packed)) if packed else site)
    largest = sorted(sites, key=lambda site: (-site[2].nbytes, site[0]))[:top]
    nested = collections.Counter(op_name(node) for node in read.in_bodies())
    return {
        "model": opened.label,
        "size": opened.size,
        "layout": opened.layout,
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
        "operators": dict(collections.Counter(op_name(n) for n in held_nodes).most_common()),
        "subgraph_operators": dict(nested.most_common()),
        "parameters": _parameters(weights),
        "make_up": make_up(model, packed, read),
        "external_data": _external(sites, opened.data),
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
        # A model by URL has no original here: comparing would download its weights.
        "byte_identical": None if opened.original is None else same_bytes(model, opened.original),
    }


def _opset(entry: dict[str, Any]) -> str:
    return f"{entry['domain'] or 'ai.onnx'}:{entry['version']}"


def _counts(counter: dict[str, int]) -> str:
    return ", ".join(f"{op}×{n}" for op, n in counter.items()) or "(none)"


def _mib(n: int) -> str:
    return f"{n:,} bytes" if n < 1 << 20 else f"{n:,} bytes ({n / (1 << 20):.1f} MiB)"


_LABEL: Final = 14  # the column where values start


def _wrapped(label: str, text: str, *, break_words: bool = False) -> list[str]:
    """``label`` then ``text`` folded to :data:`WIDTH` columns, continuation lines indented.

    Words are never broken (a field path or a name copied from here must work in
    ``dump`` and ``tensors``): one longer than a line gets a line of its own, wider
    than the rest. ``break_words`` breaks them (free text, such as metadata values)."""
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=f"{label:<{_LABEL}}",
        subsequent_indent=" " * _LABEL,
        break_long_words=break_words,
        break_on_hyphens=False,
    ) or [label]


def _shortened(value: str) -> str:
    """A metadata value on one line: its first line, cut, with its size said when cut."""
    first = value.split("\n", 1)[0]
    if len(first) <= _METADATA_CHARS and first == value:
        return value
    lines = value.count("\n") + 1
    return f"{first[:_METADATA_CHARS]}… ({len(value):,} characters, {lines:,} lines; --json has all)"


_LISTED_FILES: Final = 4  # more data files (or container entries) than this are summed up in one line


def _external_lines(files: list[dict[str, Any]]) -> list[str]:
    """Where tensor data lives: each data file, or (many files, a container's entries) one sum;
    every problem on a line of its own."""
    lines: list[str] = []
    if len(files) <= _LISTED_FILES and not any(f["kind"] == "entry" for f in files):
        for put in files:
            where = f"file {_mib(put['file_size'])}" if put["file_size"] is not None else "not found"
            text = f"{put['location']}: {put['tensors']} tensors, {_mib(put['bytes'])}; {where}"
            lines += _wrapped("external data", text)
    elif files:
        kind = "entries" if files[0]["kind"] == "entry" else "files"
        tensors, stored = sum(f["tensors"] for f in files), sum(f["bytes"] for f in files)
        label = "in container" if kind == "entries" else "external data"
        lines += _wrapped(label, f"{tensors} tensors in {len(files)} {kind}, {_mib(stored)}")
    for put in files:
        if put["error"]:
            lines += _wrapped("  PROBLEM", put["error"])
    return lines


def text_lines(summary: dict[str, Any], load_seconds: float | None = None) -> list[str]:
    """The human-readable form of :func:`summarise`'s result, one fact per line, 80 columns."""
    s = summary
    graph, params = s["graph"], s["parameters"]
    lines = _wrapped("model", f"{s['model']} ({s['size']:,} bytes, {s['layout']})")
    if load_seconds is not None:
        lines.append(f"{'opened in':<{_LABEL}}{load_seconds * 1000:.2f} ms")
    lines += [f"{'ir_version':<{_LABEL}}{s['ir_version']}"]
    lines += _wrapped("producer", f"{s['producer']['name']} {s['producer']['version']}".strip())
    lines += _wrapped("opsets", ", ".join(_opset(o) for o in s["opset_import"]))
    sparse = f", {graph['sparse_initializers']} sparse" if graph["sparse_initializers"] else ""
    lines += _wrapped(
        "graph", f"{graph['name']!r}: {graph['nodes']} nodes, {graph['initializers']} initializers{sparse}"
    )
    lines += _wrapped(
        "parameters", f"{params['count']:,} in {params['tensors']} tensors, {_mib(params['bytes'])}"
    )
    for dtype, entry in params["by_dtype"].items():
        count, tensors, size = entry["count"], entry["tensors"], _mib(entry["bytes"])
        lines += _wrapped(f"  {dtype}", f"{count:,} in {tensors} tensors, {size}")
    for label, text in make_up_text(s["make_up"]):
        lines += _wrapped(label, text)
    lines += _external_lines(s["external_data"])
    for label, key in (("inputs", "inputs"), ("outputs", "outputs")):
        values = s[key] or [{"name": "(none)", "type": ""}]
        for i, v in enumerate(values):
            lines += _wrapped(
                label if i == 0 else "", f"{v['name']}: {v['type']}" if v["type"] else v["name"]
            )
    lines += _wrapped("operators", _counts(s["operators"]))
    if s["subgraph_operators"]:
        lines += _wrapped("in subgraphs", _counts(s["subgraph_operators"]))
    for f in s["functions"]:
        lines += _wrapped(
            "function",
            f"{f['domain']}::{f['name']}({', '.join(f['inputs'])}) -> {', '.join(f['outputs'])}: "
            f"{f['nodes']} nodes",
        )
    if s["largest_tensors"]:
        lines.append("largest")
        for t in s["largest_tensors"]:
            shape = "[" + ",".join(str(d) for d in t["shape"]) + "]"
            where = f" in {t['location']}" if t["location"] else ""
            name = t["name"] or "(unnamed)"
            lines += _wrapped("", f"{t['bytes']:,} bytes {name} {t['dtype']}{shape}{where} at {t['path']}")
    for key, value in s["metadata_props"].items():
        lines += _wrapped("metadata", f"{key} = {_shortened(value)}", break_words=True)
    unkept = "not checked (a URL or a pipe: its bytes were not kept)"
    verdict = {True: "byte-identical", False: "DIFFERS", None: unkept}
    lines.append(f"{'round trip':<{_LABEL}}{verdict[s['byte_identical']]}")
    return lines


def _ok(summary: dict[str, Any]) -> bool:
    return summary["byte_identical"] is not False and not any(f["error"] for f in summary["external_data"])


def _open(source: str, options: argparse.Namespace | None = None) -> tuple[Opened, float]:
    """The model (references left in place) and how long opening it took."""
    started = time.perf_counter()
    opened = open_model(source, options=options, load_external_data=False, payloads=False)
    return opened, time.perf_counter() - started


def describe(path: str) -> tuple[list[str], bool]:
    """Summary lines of the model at ``path`` and whether it re-encodes to the same bytes."""
    opened, seconds = _open(str(path))
    summary = summarise(opened)
    return text_lines(summary, seconds), bool(summary["byte_identical"])


def run(args: argparse.Namespace) -> int:
    opened, seconds = _open(args.model, args)
    summary = summarise(opened, top=args.top)
    if args.json:
        print_json(summary)
    else:
        print("\n".join(text_lines(summary, seconds)))
        if args.model == str(EXAMPLE):
            print("(the bundled example; wirecodec --help lists the verbs)")
    return 0 if _ok(summary) else 1
