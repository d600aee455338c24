"""Which name each tensor of a model has in a safetensors file (saving and attaching agree).

A safetensors file is a map from name to tensor, an ONNX model is not: initializers of
different graphs may share a name, Constant-node tensors are often unnamed. So every
tensor the walk visits (initializers of every graph, attribute tensors, functions) is
given a name, deterministically, from the model alone:

1. a tensor keeps its own name when it is not empty, not ``__metadata__`` (reserved by
   the format) and no tensor before it in the walk kept the same name;
2. every other tensor gets ``<name>.<n>`` (``tensor.<n>`` when it has no usable name)
   with the smallest ``n`` >= 1 that no tensor kept in step 1 and no earlier tensor of
   step 2 has.

Step 1 runs over the whole model before step 2, so a tensor with a unique name is never
renamed because of another one. Saving writes these names, and
:func:`wirecodec.attach_weights` looks tensors up by them, so a model and the file it
was saved with match again. The reference itself (location, offset, length) does not
depend on the name.
"""

from __future__ import annotations

from typing import Final

from schema_dsl.onnx import ModelProto, TensorProto
from wirecodec.files.base.walk import tensor_sites
from wirecodec.files.safetensors.format import METADATA_KEY

__all__ = ["named_tensors"]

_UNNAMED: Final = "tensor"


def _usable(name: str) -> bool:
    if not name or name == METADATA_KEY:
        return False
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: not valid JSON text in UTF-8
        return False
    return True


def named_tensors(model: ModelProto) -> list[tuple[TensorProto, str, bool]]:
    """``(tensor, safetensors name, is an initializer)`` for every tensor, in walk order.

    Each tensor object appears once. Sparse tensors and training graphs are left out,
    as ONNX's own external-data save leaves them out.
    """
    # By path, not by identity: the first walk's tensors are not held, and a freed one's
    # id could be a later tensor's.
    initializers = {
        site.path
        for site in tensor_sites(model, attributes=False, sparse=False, functions=False, training=False)
    }
    seen: set[int] = set()  # ids of tensors held in ``found``: none is reused meanwhile
    found: list[TensorProto] = []
    is_initializer: list[bool] = []
    for site in tensor_sites(model, attributes=True, sparse=False, functions=True, training=False):
        tensor = site.message
        assert isinstance(tensor, TensorProto)
        if id(tensor) not in seen:
            seen.add(id(tensor))
            found.append(tensor)
            is_initializer.append(site.path in initializers)
    names: list[str | None] = []
    taken: set[str] = set()
    for tensor in found:
        name = tensor.name
        if _usable(name) and name not in taken:
            taken.add(name)
            names.append(name)
        else:
            names.append(None)
    counters: dict[str, int] = {}
    result: list[tuple[TensorProto, str, bool]] = []
    for tensor, kept, initializer in zip(found, names, is_initializer, strict=True):
        if kept is None:
            base = tensor.name if tensor.name and _usable(tensor.name + ".1") else _UNNAMED
            n = counters.get(base, 0) + 1
            while f"{base}.{n}" in taken:
                n += 1
            counters[base] = n
            kept = f"{base}.{n}"
            taken.add(kept)
        result.append((tensor, kept, initializer))
    return result
