"""List the tensors a model holds, or write one of them to a ``.npy`` file.

Without TENSOR every tensor is listed with its field path. TENSOR is looked up among
every tensor in the model: initializers (external data included), sparse initializers
(written dense), tensors in attributes at any depth (If/Loop/Scan bodies, functions),
and the values of Constant nodes, also found by the name of the node's output. A field
path as any verb prints it (``graph.node[3].attribute[0].t``, or the Constant node's
``graph.node[3]``) picks one tensor when a name is used twice. A Constant's value is
listed at its tensor's path (``...attribute[0].t``), as inspect prints it.

Without ``-o`` the file is NAME.npy (an unnamed tensor: its path, made a file name) and
an existing file of that name is kept unless ``--force``.

Element types a ``.npy`` file cannot describe are widened without loss: bfloat16 and
the float8/float6/float4 formats to float32, int4/int2 to int8, uint4/uint2 to uint8.

  wirecodec tensors model.onnx
  wirecodec tensors model.onnx fc.weight -o fc_weight.npy
  wirecodec tensors model.onnx fc.weight -o - > fc_weight.npy
"""

from __future__ import annotations

import argparse
import math
import pathlib
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any

from schema_dsl import Message
from schema_dsl.onnx import AttributeProto, ModelProto, NodeProto, SparseTensorProto, TensorProto
from wirecodec.cli.common import (
    CliError,
    Opened,
    UsageError,
    add_model_argument,
    describe_error,
    open_model,
    print_json,
)
from wirecodec.cli.facts import is_external, tensor_facts
from wirecodec.cli.integrity import refuse_bad_crc
from wirecodec.errors import PathError, WireCodecError
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.files.base.walk import ORDER
from wirecodec.protobuf import fieldpath
from wirecodec.protobuf.walk import walk
from wirecodec.tensors.dtypes import info_of, numpy_module

if TYPE_CHECKING:
    import numpy.typing as npt

__all__ = ["HELP", "Found", "add_arguments", "array_of", "find_all", "run"]

HELP = "list a model's tensors, or write one to a .npy file"

Attr = AttributeProto.AttributeType


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "tensor", nargs="?", metavar="TENSOR", help="a tensor's name or field path (none: list them all)"
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="the .npy file to write, - for standard output (default: NAME.npy, or from the "
        "field path for an unnamed tensor, never replacing a file unless --force)",
    )
    parser.add_argument(
        "--force", action="store_true", help="let the default NAME.npy replace a file of that name"
    )
    parser.add_argument("--list", action="store_true", help="list the model's tensors (the default)")
    parser.add_argument("--json", action="store_true", help="print the list as JSON")


@dataclass(frozen=True)
class Found:
    """A tensor the model holds: the names it answers to, where it is, and what holds it.

    ``source`` is a TensorProto, a SparseTensorProto, or (for a ``Constant`` node) the
    attribute that holds the value.
    """

    names: tuple[str, ...]
    path: str
    source: Message

    def describe(self) -> dict[str, Any]:
        """Name, field path, element type, shape and stored bytes (payloads are not read)."""
        dtype, shape, nbytes = _header(self.source)
        return {
            "name": self.names[0] if self.names else "",
            "names": list(self.names),
            "path": self.path,
            "dtype": dtype,
            "shape": shape,
            "bytes": nbytes,
        }


def _header(source: Message) -> tuple[str, list[int], int]:
    if isinstance(source, TensorProto):
        facts = tensor_facts(source)
        return facts.dtype, list(facts.dims), facts.nbytes
    if isinstance(source, SparseTensorProto):
        values, indices = tensor_facts(source.values), tensor_facts(source.indices)
        return values.dtype, [int(d) for d in source.dims], values.nbytes + indices.nbytes
    assert isinstance(source, AttributeProto)
    kind = source.type
    if kind == Attr.TENSOR:
        return _header(source.t)
    if kind == Attr.SPARSE_TENSOR:
        return _header(source.sparse_tensor)
    if kind == Attr.FLOAT:
        return "FLOAT", [], 4
    if kind == Attr.INT:
        return "INT64", [], 8
    if kind == Attr.STRING:
        return "STRING", [], len(source.s)
    if kind == Attr.FLOATS:
        return "FLOAT", [len(source.floats)], 4 * len(source.floats)
    if kind == Attr.INTS:
        return "INT64", [len(source.ints)], 8 * len(source.ints)
    return "STRING", [len(source.strings)], sum(len(s) for s in source.strings)


# The attributes of Constant that hold its value (one of them is set).
_CONSTANT_VALUES = frozenset(
    {
        "value",
        "sparse_value",
        "value_float",
        "value_floats",
        "value_int",
        "value_ints",
        "value_string",
        "value_strings",
    }
)


def _constant_value(node: NodeProto) -> tuple[int, AttributeProto] | None:
    if node.op_type != "Constant" or node.domain not in ("", "ai.onnx") or not node.output:
        return None
    for i, attribute in enumerate(node.attribute):
        if attribute.name in _CONSTANT_VALUES:
            return i, attribute
    return None


def find_all(model: ModelProto) -> Iterator[Found]:
    """Every tensor in ``model``, in the order the file holds them."""
    claimed: set[str] = set()  # paths already covered by their Constant node or sparse tensor
    for path, message, _, _ in walk(model, (TensorProto,), order=ORDER):
        if path in claimed:
            continue
        if isinstance(message, NodeProto):
            held = _constant_value(message)
            if held is not None:
                i, attribute = held
                at = fieldpath.join(path, "attribute", i)
                inner = attribute.t.name if attribute.HasField("t") else ""
                names = tuple(dict.fromkeys(n for n in (message.output[0], inner) if n))
                claimed.update({fieldpath.join(at, "t"), fieldpath.join(at, "sparse_tensor")})
                yield _constant_found(names, at, attribute)
        elif isinstance(message, SparseTensorProto):
            claimed.update({fieldpath.join(path, "values"), fieldpath.join(path, "indices")})
            yield Found((message.values.name,) if message.values.name else (), path, message)
        elif isinstance(message, TensorProto):
            yield Found((message.name,) if message.name else (), path, message)


def _at_path(model: ModelProto, wanted: str) -> Found | None:
    """The tensor at field path ``wanted`` (any path the other verbs print), or None if it is
    not a path to a tensor, a sparse tensor or a Constant node's value."""
    try:
        value = fieldpath.resolve(model, wanted)
    except PathError:
        return None
    if isinstance(value, NodeProto):
        held = _constant_value(value)
        if held is None:
            return None
        return _constant_found((value.output[0],), fieldpath.join(wanted, "attribute", held[0]), held[1])
    if isinstance(value, TensorProto):
        return Found((value.name,) if value.name else (), wanted, value)
    if isinstance(value, SparseTensorProto):
        return Found((value.values.name,) if value.values.name else (), wanted, value)
    if isinstance(value, AttributeProto) and value.type in (Attr.TENSOR, Attr.SPARSE_TENSOR):
        inner = value.t.name if value.type == Attr.TENSOR else value.sparse_tensor.values.name
        return _constant_found((inner,) if inner else (), wanted, value)
    return None


def _constant_found(names: tuple[str, ...], at: str, attribute: AttributeProto) -> Found:
    """A Constant's value (or a tensor attribute) at the path of the tensor itself,
    ``...attribute[0].t``, as inspect and the checker print it: one path for one tensor."""
    if attribute.type == Attr.TENSOR:
        return Found(names, fieldpath.join(at, "t"), attribute.t)
    if attribute.type == Attr.SPARSE_TENSOR:
        return Found(names, fieldpath.join(at, "sparse_tensor"), attribute.sparse_tensor)
    return Found(names, at, attribute)  # value_float, value_ints...: the attribute is the value


def find(model: ModelProto, wanted: str) -> Found:
    """The one tensor named (or at the field path) ``wanted``; a UsageError if none or several."""
    by_path = _at_path(model, wanted)
    if by_path is not None:
        return by_path
    matches = [f for f in find_all(model) if wanted in f.names]
    if not matches:
        raise UsageError(f"no tensor named {wanted!r} (--list shows the tensors)")
    if len(matches) > 1:
        paths = ", ".join(f.path for f in matches)
        raise UsageError(f"{len(matches)} tensors are named {wanted!r}; give one of their paths: {paths}")
    return matches[0]


def _densify(sparse: SparseTensorProto) -> npt.NDArray[Any]:
    """The dense array a SparseTensorProto stands for (indices: [NNZ] linear, or [NNZ, rank])."""
    import numpy as np

    from wirecodec.tensors.reading import to_array

    shape = tuple(int(d) for d in sparse.dims)
    values = to_array(sparse.values).reshape(-1)
    indices = to_array(sparse.indices).astype(np.int64)
    size = math.prod(shape)
    if indices.ndim == 2 and indices.shape == (len(values), len(shape)):
        if np.any(indices < 0) or np.any(indices >= np.array(shape, dtype=np.int64)):
            raise CliError(f"sparse tensor {sparse.values.name!r}: an index lies outside dims {list(shape)}")
        linear = np.ravel_multi_index(tuple(indices.T), shape) if len(values) else indices[:, 0]
    elif indices.ndim == 1 and len(indices) == len(values):
        if np.any(indices < 0) or np.any(indices >= size):
            raise CliError(f"sparse tensor {sparse.values.name!r}: an index lies outside {size} elements")
        linear = indices
    else:
        raise CliError(
            f"sparse tensor {sparse.values.name!r}: indices of shape {list(indices.shape)} do not fit "
            f"{len(values)} values of a {len(shape)}-d tensor"
        )
    dense = np.zeros(size, dtype=values.dtype)
    dense[linear] = values
    return dense.reshape(shape)


def _strings(values: list[Any], where: str) -> npt.NDArray[Any]:
    import numpy as np

    try:
        return np.array([bytes(v).decode("utf-8") for v in values], dtype=np.str_)
    except UnicodeDecodeError:
        raise CliError(f"{where}: a string is not valid UTF-8") from None


def array_of(found: Found) -> npt.NDArray[Any]:
    """The tensor's elements (external data must already be resolved)."""
    import numpy as np

    from wirecodec.tensors.reading import to_array

    source = found.source
    if isinstance(source, TensorProto):
        return to_array(source)
    if isinstance(source, SparseTensorProto):
        return _densify(source)
    assert isinstance(source, AttributeProto)
    kind = source.type
    if kind == Attr.TENSOR:
        return to_array(source.t)
    if kind == Attr.SPARSE_TENSOR:
        return _densify(source.sparse_tensor)
    if kind in (Attr.FLOAT, Attr.FLOATS):
        return np.array(source.f if kind == Attr.FLOAT else list(source.floats), dtype=np.float32)
    if kind in (Attr.INT, Attr.INTS):
        return np.array(source.i if kind == Attr.INT else list(source.ints), dtype=np.int64)
    if kind == Attr.STRING:
        return _strings([source.s], found.path).reshape(())
    return _strings(list(source.strings), found.path)


def _for_npy(array: npt.NDArray[Any], data_type: int | None) -> npt.NDArray[Any]:
    """``array`` in a dtype ``.npy`` describes: strings as unicode, small types widened losslessly."""
    import numpy as np

    from wirecodec.tensors.minifloat import to_float32

    if array.dtype == np.object_:
        return array.astype(np.str_) if array.size else np.zeros(array.shape, dtype=np.str_)
    if data_type is None:
        return array
    info = info_of(data_type, "tensor")
    if info.native is not None:
        return array
    widened = to_float32(array, data_type)
    if info.ml_name and info.ml_name.startswith("uint"):
        return widened.astype(np.uint8)
    if info.ml_name and info.ml_name.startswith("int"):
        return widened.astype(np.int8)
    return widened


def _data_type(found: Found) -> int | None:
    source = found.source
    if isinstance(source, AttributeProto):
        if source.type not in (Attr.TENSOR, Attr.SPARSE_TENSOR):
            return None  # value_float(s), value_int(s), value_string(s): plain numpy types
        source = source.t if source.type == Attr.TENSOR else source.sparse_tensor
    if isinstance(source, SparseTensorProto):
        source = source.values
    return int(source.data_type) if isinstance(source, TensorProto) else None


def _resolve_external(found: Found, opened: Opened) -> None:
    """Resolve only this tensor's reference (the rest of the model's data stays where it is)."""
    holders = [
        site.message
        for site in walk(found.source, (TensorProto,))
        if isinstance(site.message, TensorProto) and is_external(site.message)
    ]
    try:
        # The entry is read whole to write it out: its CRC-32 costs nothing more.
        refuse_bad_crc(opened, (("", tensor) for tensor in holders))  # the message names found.path
        opened.data.resolve_all(holders)
    except WireCodecError as exc:
        raise CliError(describe_error(f"{opened.label}: {found.path}", exc)) from None


def _default_output(found: Found) -> str:
    """NAME.npy from the tensor's name, or from its field path when it has none (never a
    name shared by every unnamed tensor, which the next extraction would overwrite)."""
    name = found.names[0] if found.names else found.path
    # Tensor names hold '/', ':' and '.' (PyTorch: "encoder.layers.0/attn:0"): keep a plain file name.
    return (re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("._") or "tensor") + ".npy"


class _Writer:
    """Only ``write``: numpy writes its array in chunks through it."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.write = stream.write


def _write(array: npt.NDArray[Any], output: str) -> None:
    import numpy as np

    if output == "-":
        # Through write() (numpy writes a real file with tofile, whose failure on a closed
        # pipe is a bare "N requested and M written", not a BrokenPipeError).
        np.save(_Writer(sys.stdout.buffer), array, allow_pickle=False)
        sys.stdout.buffer.flush()
        return
    with AtomicFiles() as files:
        with files.open(output) as file:
            np.save(file, array, allow_pickle=False)
        files.commit()


def _list(opened: Opened, as_json: bool) -> int:
    entries = [found.describe() for found in find_all(opened.model)]
    if as_json:
        print_json({"model": opened.label, "tensors": entries})
        return 0
    for e in entries:
        shape = "[" + ",".join(str(d) for d in e["shape"]) + "]"
        names = " | ".join(e["names"]) or "(unnamed)"
        print(f"{names}\t{e['dtype']}{shape}\t{e['bytes']:,} bytes\t{e['path']}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.list or args.tensor is None:
        if args.tensor is not None or args.output is not None:
            raise UsageError("--list takes only MODEL")
        opened = open_model(args.model, options=args, load_external_data=False, payloads=False)
        return _list(opened, args.json)
    if args.json:
        raise UsageError("--json goes with the list (no TENSOR)")
    numpy_module()  # writing a .npy file needs numpy: say so before any work (NumpyMissingError)
    opened = open_model(args.model, options=args, load_external_data=False)
    found = find(opened.model, args.tensor)
    _resolve_external(found, opened)
    array = _for_npy(array_of(found), _data_type(found))
    output = args.output or _default_output(found)
    if args.output is None and not args.force and pathlib.Path(output).exists():
        # A name chosen for the user must not replace what an earlier extraction wrote.
        raise UsageError(f"{output} exists; --force replaces it, or -o names another file")
    try:
        _write(array, output)
    except BrokenPipeError:
        raise  # standard output's reader went away: main() stops quietly
    except OSError as exc:
        raise CliError(describe_error(output, exc)) from None
    if output != "-":
        print(f"{found.path} -> {output}: {array.dtype}{list(array.shape)}")
    return 0
