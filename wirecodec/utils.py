"""``onnx.utils``'s tools: :func:`extract_model` cuts a subgraph out of a model file.

It takes onnx's arguments and writes onnx's bytes (see :mod:`wirecodec.graphs.subgraph` for
the rules), and it also works where ``onnx.utils.extract_model`` cannot: on models past
2 GiB, on ``.onnxz`` containers and on models with external data, without reading the
weights it does not keep: the source is mapped, and only the kept tensors' bytes are
copied to the new file.

>>> import pathlib, tempfile
>>> import wirecodec
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> model = build()
>>> model.graph.value_info.append(wirecodec.helper.make_tensor_value_info("a", 1, ["N", 16]))
>>> wirecodec.save(model, folder / "mlp.onnx")
>>> extract_model(folder / "mlp.onnx", folder / "head.onnx", ["x"], ["a"])
>>> [node.op_type for node in wirecodec.load(folder / "head.onnx").graph.node]
['Gemm', 'Relu']
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Sequence
from typing import Final

from schema_dsl.onnx import ModelProto
from wirecodec.errors import GraphError
from wirecodec.files.load import load
from wirecodec.files.writeback import write_back
from wirecodec.graphs.subgraph import Extractor, extract

__all__ = ["Extractor", "extract", "extract_model", "save_like_onnx"]

MAXIMUM_PROTOBUF: Final = 2**31
"""Protobuf's limit on one message (onnx.checker.MAXIMUM_PROTOBUF): past it, onnx writes external data."""


def save_like_onnx(
    model: ModelProto, path: str | os.PathLike[str], *, external_data: bool | None = None
) -> None:
    """Write a model made by a tool as onnx's tools write theirs.

    ``path`` ending in ``.onnxz`` makes a zip container. Otherwise ``external_data=None``
    follows onnx: one file, unless the model is over 2 GiB, when tensors of 1 KiB or
    more go to ``<file name>.data`` beside it; ``True`` always writes that data file,
    ``False`` always one file (wirecodec reads single files of any size). Where data goes
    is :mod:`wirecodec.files.writeback`'s rule, as for :func:`wirecodec.save`: a tensor
    still in a data file that resolves from ``path`` keeps pointing into it, and no file
    is written over or deleted (``<file name>.data`` taken: a fresh ``.N.data``).
    """
    target = pathlib.Path(path)
    if target.suffix == ".onnxz":
        write_back(model, target, "zip")
        return
    if external_data is None:
        external_data = model.ByteSize() > MAXIMUM_PROTOBUF
    # The one write-back (wirecodec.files.writeback): tensors still in a data file that
    # resolves from ``path`` stay there, unread; new data goes to <name>.data (or a fresh
    # <name>.N.data when that is taken); nothing is deleted.
    write_back(model, target, "external" if external_data else "single")


def extract_model(
    input_path: str | os.PathLike[str],
    output_path: str | os.PathLike[str],
    input_names: Sequence[str],
    output_names: Sequence[str],
    check_model: bool = True,
    infer_shapes: bool = True,
    *,
    external_data: bool | None = None,
) -> None:
    """Write the part of the model at ``input_path`` that computes ``output_names`` from ``input_names``.

    As ``onnx.utils.extract_model``: the names must be inputs, outputs or value_info of
    the graph; nodes, initializers, value_info and local functions are kept as onnx keeps
    them, so the file has onnx's bytes. The source may be any layout wirecodec loads (a
    single file of any size, external data, ``.onnxz``); the output's layout is chosen by
    :func:`save_like_onnx` (``external_data``, or an ``.onnxz`` name).

    ``check_model`` checks the source and the result with :func:`wirecodec.check`
    (the IR rules, no operator schemas), and the result *before* it is written: a cut that
    leaves a node's input undefined raises :class:`~wirecodec.GraphError` naming it, and
    nothing is written.

    ``infer_shapes`` (onnx's default) first infers the types of every value with
    :func:`wirecodec.shape_inference.infer_shapes`, as onnx does with its own, so a cut at
    a value the model records no type for gets one; no weight is read for it. Without, the
    new inputs and outputs take the types the model records (inputs, outputs,
    ``value_info``; a name without one is a ``GraphError`` that says so). Either way the
    file is the one ``onnx.utils.extract_model`` writes with the same arguments.
    """
    if not os.fspath(output_path):
        raise GraphError("output_path: empty")
    model = load(input_path)
    if infer_shapes:
        from wirecodec.shape_inference import infer_shapes as infer  # only when asked

        model = infer(model)
    extracted = extract(model, input_names, output_names, check_model=check_model)
    save_like_onnx(extracted, output_path, external_data=external_data)
