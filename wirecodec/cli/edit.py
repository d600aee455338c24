"""Change a model's names, dimensions, outputs, opsets, metadata or doc strings, and save it.

Renames reach every place the name is used: graph inputs and outputs, value_info,
node inputs and outputs, initializers of the same name, quantization annotations, and
subgraphs (If/Loop/Scan bodies) that read the value from the enclosing graph. The new
name must not already name a value. ``--set-dim-*`` change one axis of a graph input's
(or output's) shape; AXIS counts from 0, negative from the end; they name the input as
it is called after any renames of the same command. A symbolic axis (``batch``) set to a
size or a new name changes every dimension of that name in the model (inputs, outputs,
value_info), as onnxruntime's make_dynamic_shape_fixed does. --set-opset changes the
version number only: no operator is converted (onnx's version_converter does that).
--add-output makes a value of the main graph an output, typed as the model records it.
--toposort puts the nodes of every graph in topological order (what check and extract
need; stable: nodes already in order stay). --fold-constants computes every node of the
main graph whose inputs are all constant (initializers, Constant outputs) with the
reference evaluator, its results up to --fold-limit bytes (default 1M), makes them
initializers and removes the nodes and the initializers no longer read; If/Loop/Scan
nodes and their bodies are left alone (wirecodec.reference.fold has the rules).
--clear-value-info removes the recorded shapes of intermediate values, which a changed
dimension leaves stale (edit says so).

Every option may be given several times. The model is written atomically (OUT is
replaced only when complete), so OUT may be MODEL, and keeps its layout: written beside
MODEL, its external data files stay as they are, never read, and only OUT is written;
written to another directory, the external tensors are copied to OUT.data there. No
file is deleted: a data file the edited model no longer uses is named, never deleted.
A .onnxz container (or an OUT ending in .onnxz) is written as a container. ``--json``
prints what was done and written (docs/cli.md has the keys) instead of the lines.

  wirecodec edit model.onnx -o model.onnx --set-dim-param input:0=batch
  wirecodec edit model.onnx -o renamed.onnx --rename-input input.1=pixels
  wirecodec edit model.onnx -o tagged.onnx --set-metadata license=MIT
  wirecodec edit model.onnx -o sorted.onnx --toposort
  wirecodec edit model.onnx -o folded.onnx --fold-constants --fold-limit 4M
"""

from __future__ import annotations

import argparse
import pathlib
import re
from collections.abc import Callable, Iterator

from schema_dsl.onnx import (
    GraphProto,
    ModelProto,
    StringStringEntryProto,
    TensorProto,
    TensorShapeProto,
    ValueInfoProto,
)
from wirecodec.cli.common import (
    CliError,
    Opened,
    UsageError,
    add_model_argument,
    describe_error,
    open_model,
    print_json,
)
from wirecodec.cli.convert import byte_count
from wirecodec.cli.edit_ops import add_output, remove_metadata, set_opset, strip_doc_strings
from wirecodec.cli.facts import is_external
from wirecodec.cli.graph_order import clear_value_info, toposort, value_info_count
from wirecodec.cli.progress import Status, status
from wirecodec.errors import WireCodecError
from wirecodec.files.base.references import parse_ref
from wirecodec.files.base.walk import iter_tensors
from wirecodec.files.integrity import refuse_bad_crc
from wirecodec.files.load import load
from wirecodec.files.writeback import where_data_went, write_back
from wirecodec.graphs.scopes import bodies_in, given_names
from wirecodec.protobuf.walk import walk

__all__ = ["HELP", "add_arguments", "rename_value", "run", "set_dim", "set_metadata", "value_names"]

HELP = "rename, set dimensions, opsets, outputs, metadata; save atomically"


def _pair(what: str) -> Callable[[str], tuple[str, str]]:
    def parse(text: str) -> tuple[str, str]:
        old, found, new = text.partition("=")
        if not found or not old or not new:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return old, new

    return parse


def _metadata(text: str) -> tuple[str, str]:
    key, found, value = text.partition("=")
    if not found or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    return key, value


_DIM = re.compile(r"(?P<name>.+):(?P<axis>-?\d+)=(?P<value>.*)", re.DOTALL)


def _opset(text: str) -> tuple[str, int]:
    domain, sep, version = text.rpartition("=")
    if not sep or not version.isdigit():
        raise argparse.ArgumentTypeError(
            f"expected DOMAIN=VERSION (ai.onnx=18, com.microsoft=1), got {text!r}"
        )
    return ("" if domain == "ai.onnx" else domain), int(version)


def _dim(what: str, number: bool) -> Callable[[str], tuple[str, int, str | int]]:
    def parse(text: str) -> tuple[str, int, str | int]:
        match = _DIM.fullmatch(text)
        if match is None or not match["value"]:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        value: str | int = match["value"]
        if number:
            if not match["value"].isdigit():
                raise argparse.ArgumentTypeError(f"{text!r}: the size must be a whole number >= 0")
            value = int(match["value"])
        return match["name"], int(match["axis"]), value

    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "-o",
        "--output",
        required=True,
        metavar="OUT",
        help="where to write (may be MODEL: its external data then stays as it is)",
    )
    parser.add_argument("--set-producer", metavar="NAME[:VERSION]", help="producer_name and producer_version")
    for role in ("input", "output"):
        parser.add_argument(
            f"--rename-{role}",
            action="append",
            default=[],
            type=_pair("OLD=NEW"),
            metavar="OLD=NEW",
            help=f"rename a graph {role} everywhere it is used",
        )
    parser.add_argument(
        "--set-dim-param",
        action="append",
        default=[],
        type=_dim("INPUT:AXIS=NAME", number=False),
        metavar="INPUT:AXIS=NAME",
        help="make an axis symbolic",
    )
    parser.add_argument(
        "--set-dim-value",
        action="append",
        default=[],
        type=_dim("INPUT:AXIS=N", number=True),
        metavar="INPUT:AXIS=N",
        help="give an axis a fixed size",
    )
    parser.add_argument(
        "--set-metadata",
        action="append",
        default=[],
        type=_metadata,
        metavar="KEY=VALUE",
        help="add or replace a metadata_props entry",
    )
    parser.add_argument(
        "--remove-metadata", action="append", default=[], metavar="KEY", help="remove a metadata_props entry"
    )
    parser.add_argument(
        "--set-opset",
        action="append",
        default=[],
        type=_opset,
        metavar="DOMAIN=VERSION",
        help="set an opset import's version (the number only; no operator is converted)",
    )
    parser.add_argument(
        "--add-output", action="append", default=[], metavar="NAME", help="make a value a graph output"
    )
    parser.add_argument("--strip-doc-strings", action="store_true", help="remove every doc_string")
    parser.add_argument(
        "--toposort",
        action="store_true",
        help="put every graph's nodes in topological order (stable: nodes in order stay)",
    )
    parser.add_argument(
        "--clear-value-info",
        action="store_true",
        help="remove every value_info entry (shapes of intermediate values; runtimes infer them)",
    )
    parser.add_argument(
        "--fold-constants",
        action="store_true",
        help="compute the nodes whose inputs are all constant and store their results as initializers "
        "(main graph; If/Loop/Scan left alone)",
    )
    parser.add_argument(
        "--fold-limit",
        type=byte_count,
        default=None,
        metavar="BYTES",
        help="--fold-constants: fold a node only when its results take at most BYTES (default 1M)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print what was done and written as JSON (docs/cli.md)"
    )


def _defined_in(graph: GraphProto) -> set[str]:
    """The names a graph defines itself: inputs, initializers, node outputs."""
    names = given_names(graph)
    for node in graph.node:
        names.update(node.output)
    return names


def value_names(graph: GraphProto) -> set[str]:
    """Every value name ``graph`` and its subgraphs use (the empty name of an omitted input is not one)."""
    names = _defined_in(graph)
    names.update(v.name for v in graph.output)
    names.update(v.name for v in graph.value_info)
    for node in graph.node:
        names.update(node.input)
    for sub in bodies_in(graph):
        names.update(value_names(sub))
    names.discard("")
    return names


def rename_value(graph: GraphProto, old: str, new: str) -> int:
    """Rename the value ``old`` to ``new`` wherever ``graph`` and its subgraphs use it; returns the count.

    A subgraph that defines ``old`` itself (shadowing, which the IR forbids but
    exporters have written) keeps its own value untouched.
    """
    count = 0

    def swap(names: list[str]) -> None:
        nonlocal count
        for i, name in enumerate(names):
            if name == old:
                names[i] = new
                count += 1

    for infos in (graph.input, graph.output, graph.value_info):
        for info in infos:
            if info.name == old:
                info.name = new
                count += 1
    for tensor in graph.initializer:
        if tensor.name == old:
            tensor.name = new
            count += 1
    for sparse in graph.sparse_initializer:
        if sparse.values.name == old:
            sparse.values.name = new
            count += 1
    for node in graph.node:
        swap(node.input)
        swap(node.output)
    for annotation in graph.quantization_annotation:
        if annotation.tensor_name == old:
            annotation.tensor_name = new
            count += 1
    for sub in bodies_in(graph):
        if old not in _defined_in(sub):
            count += rename_value(sub, old, new)
    return count


def _rename(graph: GraphProto, old: str, new: str, role: str) -> str:
    infos = graph.input if role == "input" else graph.output
    if not any(v.name == old for v in infos):
        names = ", ".join(repr(v.name) for v in infos) or "none"
        raise UsageError(f"--rename-{role}: the graph has no {role} {old!r} ({role}s: {names})")
    if old == new:
        return f"{role} {old!r} keeps its name"
    if new in value_names(graph):
        raise UsageError(f"--rename-{role}: {new!r} already names a value in the graph")
    count = rename_value(graph, old, new)
    return f"renamed {role} {old!r} to {new!r} ({count} place{'s' if count != 1 else ''})"


def _find_value(graph: GraphProto, name: str, renamed: dict[str, str]) -> ValueInfoProto:
    for candidate in (name, renamed.get(name)):
        for info in [*graph.input, *graph.output]:
            if candidate is not None and info.name == candidate:
                return info
    raise UsageError(f"the graph has no input or output {name!r}")


def set_dim(info: ValueInfoProto, axis: int, value: str | int, model: ModelProto | None = None) -> str:
    """Set one axis of a tensor input's shape to a size (int) or a symbolic name (str).

    When the axis was symbolic (``batch``) and ``model`` is given, every other dimension
    of that name in the model's inputs, outputs and value_info (subgraphs included) gets
    the same value, as onnxruntime's ``make_dynamic_shape_fixed`` does: a name is one
    size wherever it appears.
    """
    kind = info.type.WhichOneof("value")
    if kind not in ("tensor_type", "sparse_tensor_type"):
        raise UsageError(f"{info.name!r} is not a tensor (its type is {kind or 'unset'})")
    holder = info.type.tensor_type if kind == "tensor_type" else info.type.sparse_tensor_type
    if not holder.HasField("shape"):
        raise UsageError(f"{info.name!r} has no shape (its rank is unknown)")
    dims = holder.shape.dim
    if not -len(dims) <= axis < len(dims):
        raise UsageError(f"{info.name!r} has {len(dims)} axes; there is no axis {axis}")
    dim = dims[axis]
    old = dim.dim_param if dim.WhichOneof("value") == "dim_param" else None
    _set(dim, value)
    done = f"{info.name!r} axis {axis % len(dims)} = {value!r}"
    if old and model is not None and old != value:
        others = [
            d for d in _symbolic_dims(model) if d.WhichOneof("value") == "dim_param" and d.dim_param == old
        ]
        for other in others:
            _set(other, value)
        if others:
            done += f" (and {len(others)} other dimension{'s' if len(others) != 1 else ''} named {old!r})"
    return done


def _set(dim: TensorShapeProto.Dimension, value: str | int) -> None:
    if isinstance(value, int):
        dim.dim_value = value
    else:
        dim.dim_param = value


def _symbolic_dims(model: ModelProto) -> Iterator[TensorShapeProto.Dimension]:
    """Every shape dimension of every input, output and value_info, in every graph."""
    for site in walk(model, (TensorShapeProto.Dimension,)):
        if isinstance(site.message, TensorShapeProto.Dimension):
            yield site.message


def set_metadata(model: ModelProto, key: str, value: str) -> str:
    """Add a metadata_props entry, or replace the value of the entry with that key."""
    for entry in model.metadata_props:
        if entry.key == key:
            entry.value = value
            return f"metadata {key!r} = {value!r} (replaced)"
    model.metadata_props.append(StringStringEntryProto(key=key, value=value))
    return f"metadata {key!r} = {value!r}"


def _producer(model: ModelProto, text: str) -> str:
    name, _, version = text.partition(":")
    if not name:
        raise UsageError(f"--set-producer: expected NAME[:VERSION], got {text!r}")
    model.producer_name = name
    if version:
        model.producer_version = version
    else:
        model.ClearField("producer_version")  # the old version belongs to the old producer
    return f"producer {name!r}" + (f" version {version!r}" if version else "")


def apply(model: ModelProto, args: argparse.Namespace) -> list[str]:
    """Make every change the arguments ask for, in a fixed order; returns what was done."""
    done = []
    if args.set_producer is not None:
        done.append(_producer(model, args.set_producer))
    graph = model.graph
    renamed: dict[str, str] = {}
    for role, pairs in (("input", args.rename_input), ("output", args.rename_output)):
        for old, new in pairs:
            done.append(_rename(graph, old, new, role))
            renamed[old] = new
    for name, axis, value in [*args.set_dim_param, *args.set_dim_value]:
        done.append(set_dim(_find_value(graph, name, renamed), axis, value, model))
    for key, value in args.set_metadata:
        done.append(set_metadata(model, key, value))
    for key in args.remove_metadata:
        done.append(remove_metadata(model, key))
    for domain, version in args.set_opset:
        done.append(set_opset(model, domain, version))
    for name in args.add_output:
        done.append(add_output(model, renamed.get(name, name)))
    if args.strip_doc_strings:
        done.append(strip_doc_strings(model))
    if args.toposort:
        done.append(toposort(model))
    if args.clear_value_info:
        done.append(clear_value_info(model))
    elif args.set_dim_value or args.set_dim_param:
        recorded = value_info_count(model)
        if recorded:
            done.append(
                f"note: {recorded} value_info entr{'ies' if recorded != 1 else 'y'} still record shapes "
                "computed from the old dimensions; --clear-value-info removes them"
            )
    return done


def run(args: argparse.Namespace) -> int:
    with status(args) as shown:
        return _edit(args, shown)


def _edit(args: argparse.Namespace, shown: Status) -> int:
    shown(f"opening {args.model}")
    opened = open_model(args.model, options=args, load_external_data=False)
    model = opened.model
    to_zip = opened.layout == "zip" or str(args.output).endswith(".onnxz")
    old_files = _data_files(model) if opened.layout == "external" else set()
    try:
        refuse_bad_crc(opened)  # a container's entries are copied whole: a corrupt one must not pass on
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(opened.label, exc)) from None
    before = (len(model.graph.node), len(model.graph.initializer))
    if args.fold_limit is not None and not args.fold_constants:
        raise UsageError("--fold-limit goes with --fold-constants")
    done = apply(model, args)
    folded: dict[str, object] | None = None
    if args.fold_constants:
        shown(f"folding constants of {len(model.graph.node)} nodes")
        model, folded = _fold(opened, model, args.fold_limit)
        done.append(
            f"folded {folded['nodes']} nodes: {folded['initializers_added']} initializers added, "
            f"{folded['initializers_removed']} removed"
        )
    try:
        shown(f"writing {args.output}")
        # The one write-back: references that still resolve from OUT are kept, unread; the
        # model (mapped) is replaced only once the new file is complete.
        written = write_back(
            model, args.output, "zip" if to_zip else opened.layout, source=opened.data, move_inline=False
        )
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(args.output, exc)) from None
    shown.clear()
    unused: list[str] = []
    if opened.path is not None and old_files and _same_file(opened.path, pathlib.Path(args.output)):
        # Never deleted here: the user may keep other models that point into them.
        left = old_files - _data_files(load(args.output, load_external_data=False))
        unused = [name for name in sorted(left) if (opened.path.parent / name).exists()]
    if args.json:
        print_json(
            {
                "model": opened.label,
                "out": str(args.output),
                "bytes": written.path.stat().st_size,
                "layout": "zip" if to_zip else opened.layout,
                "changes": [line for line in done if not line.startswith("note: ")],
                "notes": [line[len("note: ") :] for line in done if line.startswith("note: ")],
                "nodes": len(model.graph.node),
                "nodes_before": before[0],
                "initializers": len(model.graph.initializer),
                "initializers_before": before[1],
                "data_files_written": list(written.data_files),
                "data_files_kept": list(written.kept),
                "data_files_unused": unused,
                **({} if folded is None else {"folded": folded}),
            }
        )
        return 0
    for line in done:
        print(line)
    print(f"wrote {args.output}" + where_data_went(written))
    for name in unused:
        print(f"note: {name} is no longer used by {args.output}; remove it if nothing else needs it")
    return 0


def _fold(opened: Opened, model: ModelProto, limit: int | None) -> tuple[ModelProto, dict[str, object]]:
    """``model`` with its constant nodes folded (initializers read through the opened
    model's own data, external or in a container), and what was done."""
    from wirecodec.reference.fold import DEFAULT_LIMIT, fold_constants_report
    from wirecodec.tensors import array_from_raw

    def read(tensor: TensorProto) -> object:
        if is_external(tensor):
            return array_from_raw(opened.data.view(tensor), tensor.data_type, tensor.dims, name=tensor.name)
        from wirecodec.numpy_helper import to_array

        return to_array(tensor)

    try:
        folded, report = fold_constants_report(model, DEFAULT_LIMIT if limit is None else limit, read=read)
    except (WireCodecError, OSError) as exc:
        raise CliError(describe_error(opened.label, exc)) from None
    return folded, report.to_dict()


def _data_files(model: ModelProto) -> set[str]:
    """The external data files a model (loaded without its external data) points into."""
    return {parse_ref(t).location for t in iter_tensors(model) if is_external(t)}


def _same_file(a: pathlib.Path, b: pathlib.Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False
