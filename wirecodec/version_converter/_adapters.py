"""The adapters: what changes in a node when its operator's version changes.

Each adapter takes the graph's :class:`~._graph.Scope`, the node's index, the step and
its table arguments; it edits the node in place (adding a Constant node before it when
an attribute becomes an input) and returns the node's index afterwards. It raises
:class:`~wirecodec.errors.ConvertError` naming the node when the node cannot be converted.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from typing import Final

from schema_dsl.onnx import AttributeProto, NodeProto, TensorProto, TensorShapeProto, ValueInfoProto
from wirecodec.version_converter._graph import Scope, float_constant, int64_constant
from wirecodec.version_converter._table import TYPE_SETS

__all__ = ["ADAPTERS", "Adapter"]

Adapter = Callable[[Scope, int, tuple[int, int], tuple[object, ...]], int]

_LOWEST_FLOAT: Final = -3.4028234663852886e38  # numeric_limits<float>::lowest()


def _attribute(node: NodeProto, name: str) -> AttributeProto | None:
    for attribute in node.attribute:
        if attribute.name == name:
            return attribute
    return None


def _remove_attribute(node: NodeProto, name: str) -> None:
    for index, attribute in enumerate(node.attribute):
        if attribute.name == name:
            del node.attribute[index]
            return


def _set_attribute(node: NodeProto, name: str, value: object) -> None:
    """Replace the attribute in its place, or append it (as onnx's IR sets one)."""
    made = AttributeProto(name=name)
    if isinstance(value, bytes):
        made.s, made.type = value, AttributeProto.STRING
    elif isinstance(value, int):
        made.i, made.type = value, AttributeProto.INT
    elif isinstance(value, list) and value and all(isinstance(v, float) for v in value):
        made.floats.extend(value)
        made.type = AttributeProto.FLOATS
    elif isinstance(value, list):
        made.ints.extend(int(v) for v in value)
        made.type = AttributeProto.INTS
    else:
        raise TypeError(f"no attribute kind for {value!r}")
    for _index, attribute in enumerate(node.attribute):
        if attribute.name == name:
            attribute.Clear()
            attribute.CopyFrom(made)
            return
    node.attribute.append(made)


def _insert_constant(scope: Scope, index: int, value: TensorProto) -> tuple[str, int]:
    """A Constant node holding ``value`` inserted before node ``index``: its output's name
    and the node's new index."""
    name = scope.new_value_name()
    constant = NodeProto(op_type="Constant", output=[name])
    constant.attribute.append(AttributeProto(name="value", t=value, type=AttributeProto.TENSOR))
    scope.graph.node.insert(index, constant)
    return name, index + 1


def _check_types(scope: Scope, index: int, values: list[str], type_set: str, step: tuple[int, int]) -> None:
    refused = {getattr(TensorProto, name): name for name in TYPE_SETS[type_set]}
    types = scope.element_types()
    node = scope.graph.node[index]
    for value in values:
        elem_type = types.get(value, 0)
        if elem_type in refused:
            raise scope.fail(
                index,
                f"{node.op_type} at opset {step[1]} does not take {refused[elem_type]} (value {value!r}); "
                f"cast it, or keep the model at opset {step[0]} or above",
            )


def same(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Nothing a model holds changes."""
    return index


def restrict(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """The target version takes fewer element types: refuse a node using one of them."""
    node = scope.graph.node[index]
    _check_types(scope, index, [*node.input, *node.output], str(args[0]), step)
    return index


def restrict_first_input(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """As :func:`restrict`, for the data input and the outputs only."""
    node = scope.graph.node[index]
    _check_types(scope, index, [*node.input[:1], *node.output], str(args[0]), step)
    return index


def set_if_absent(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    node = scope.graph.node[index]
    if _attribute(node, str(args[0])) is None:
        _set_attribute(node, str(args[0]), args[1])
    return index


def set_(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    _set_attribute(scope.graph.node[index], str(args[0]), args[1])
    return index


def remove(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Drop an attribute the target version does not have; refuse when it holds any other
    value than ``args[1]`` (the only meaning the target version has)."""
    node = scope.graph.node[index]
    name, required = str(args[0]), args[1]
    attribute = _attribute(node, name)
    if attribute is None:
        return index
    if required is not None:
        held: object = attribute.s if isinstance(required, bytes) else attribute.i
        if held != required:
            text = isinstance(required, bytes)
            shown = required.decode() if isinstance(required, bytes) else required
            got = held.decode(errors="replace") if isinstance(held, bytes) else held
            # onnx's wording first ("mode must have value DCR", "... must be -1 ... got 3")
            why = f" ({args[2]})" if len(args) > 2 else ""
            raise scope.fail(
                index,
                f"{name} must {'have value' if text else 'be'} {shown} to convert {node.op_type} to "
                f"opset {step[1]}, which has no attribute {name!r}; got {got}{why}; "
                f"keep the model at opset {step[0]} or above",
            )
    _remove_attribute(node, name)
    return index


def remove_unless(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Drop an attribute; refuse when it holds ``args[1]`` (a meaning the target version lacks)."""
    node = scope.graph.node[index]
    name = str(args[0])
    attribute = _attribute(node, name)
    if attribute is None:
        return index
    if attribute.i == args[1]:
        raise scope.fail(
            index,
            f"{node.op_type} at opset {step[1]} has no {name}={args[1]} mode; "
            f"keep the model at opset {step[0]}",
        )
    _remove_attribute(node, name)
    return index


def attribute_to_input(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """An attribute becomes a constant input (a Constant node before the node).

    ``args``: the attribute, its kind (``ints`` or ``i``) and whether it must be present.
    """
    node = scope.graph.node[index]
    name, kind, required = str(args[0]), str(args[1]), bool(args[2])
    for gone in args[3:]:  # an attribute the new version drops with it (Reshape's consumed_inputs)
        _remove_attribute(node, str(gone))
    attribute = _attribute(node, name)
    if attribute is None:
        if required:
            raise scope.fail(
                index, f"{node.op_type} has no attribute {name!r}, which opset {step[0]} requires"
            )
        return index
    values = [int(v) for v in attribute.ints] if kind == "ints" else [int(attribute.i)]
    created, index = _insert_constant(scope, index, int64_constant(values))
    node = scope.graph.node[index]
    node.input.append(created)
    _remove_attribute(node, name)
    return index


def _int64s(tensor: TensorProto) -> list[int]:
    if tensor.data_type != TensorProto.INT64:
        raise ValueError(f"element type {tensor.data_type}, not INT64")
    if tensor.HasField("raw_data"):
        raw = bytes(tensor.raw_data)
        values = list(struct.unpack(f"<{len(raw) // 8}q", raw[: len(raw) // 8 * 8]))
        held = f"{len(raw)} bytes of raw_data"
    else:
        values = [int(v) for v in tensor.int64_data]
        held = f"{len(values)} int64_data values"
    count = 1
    for size in tensor.dims:
        count *= size
    if len(values) != count or (tensor.HasField("raw_data") and len(raw) != 8 * count):
        raise ValueError(f"dims {list(tensor.dims)} say {count} values, the tensor holds {held}")
    return values


def _floats(tensor: TensorProto) -> list[float]:
    if tensor.data_type != TensorProto.FLOAT:
        raise ValueError(f"element type {tensor.data_type}, not FLOAT")
    count = 1
    for size in tensor.dims:
        count *= size
    if tensor.HasField("raw_data"):
        raw = bytes(tensor.raw_data)
        if len(raw) != 4 * count:
            raise ValueError(f"dims {list(tensor.dims)} say {count} values, raw_data has {len(raw)} bytes")
        return [float(v) for v in struct.unpack(f"<{count}f", raw)]
    values = [float(v) for v in tensor.float_data]
    if len(values) != count:
        raise ValueError(f"dims {list(tensor.dims)} say {count} values, the tensor holds {len(values)}")
    return values


def input_to_attribute(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """A constant second input (a Constant node's output or an initializer) becomes an
    attribute; the constant goes when nothing else reads it."""
    graph = scope.graph
    node = graph.node[index]
    name = str(args[0])
    if len(node.input) <= 1:
        return index
    source = node.input[1]
    producer = scope.producer(source) if source else None
    tensor: TensorProto | None = None
    if producer is not None:
        if graph.node[producer].op_type == "Constant":
            value = _attribute(graph.node[producer], "value")
            tensor = value.t if value is not None else None
    else:
        tensor = next((t for t in graph.initializer if source and t.name == source), None)
    if tensor is None:
        raise scope.fail(
            index,
            f"{node.op_type} at opset {step[1]} takes {name!r} as an attribute, "
            f"but input {source!r} is neither "
            "a Constant node's output nor an initializer of this graph; fold it to a constant first",
        )
    try:
        values: list[int] | list[float] = _floats(tensor) if "floats" in args[1:] else _int64s(tensor)
    except ValueError as exc:
        raise scope.fail(index, f"{node.op_type}'s {name!r} input {source!r}: {exc}") from None
    _set_attribute(node, name, values)
    del node.input[1]
    if scope.uses(source) == 0:
        scope.forget(source)
        if producer is not None:
            del graph.node[producer]
            if producer < index:
                index -= 1
        else:
            for at, tensor in enumerate(graph.initializer):
                if tensor.name == source:
                    del graph.initializer[at]
                    break
            for at, info in enumerate(graph.input):
                if info.name == source:
                    del graph.input[at]
                    break
    return index


def clip_10_11(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Clip's min and max become inputs (a lowest-float min when only max is given)."""
    node = scope.graph.node[index]
    low, high = _attribute(node, "min"), _attribute(node, "max")
    if low is not None:
        created, index = _insert_constant(scope, index, float_constant(low.f))
        node = scope.graph.node[index]
        node.input.append(created)
        _remove_attribute(node, "min")
    if high is not None:
        if low is None:
            created, index = _insert_constant(scope, index, float_constant(_LOWEST_FLOAT))
            scope.graph.node[index].input.append(created)
        created, index = _insert_constant(scope, index, float_constant(high.f))
        node = scope.graph.node[index]
        node.input.append(created)
        _remove_attribute(node, "max")
    return index


def dropout_11_12(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Dropout's ratio becomes an input (0.5 when absent)."""
    node = scope.graph.node[index]
    ratio = _attribute(node, "ratio")
    value = ratio.f if ratio is not None else 0.5
    _remove_attribute(node, "ratio")
    created, index = _insert_constant(scope, index, float_constant(value))
    scope.graph.node[index].input.append(created)
    return index


def split_17_18(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Split without a split input says how many outputs it makes."""
    node = scope.graph.node[index]
    if _attribute(node, "num_outputs") is None and len(node.input) != 2:
        _set_attribute(node, "num_outputs", len(node.output))
    return index


def _rank(scope: Scope, name: str) -> int:
    for info in (*scope.graph.input, *scope.graph.value_info, *scope.graph.output):
        if info.name == name and info.type.HasField("tensor_type"):
            return len(info.type.tensor_type.shape.dim)
    return 0


def softmax(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Softmax, LogSoftmax and Hardmax: opset 13 normalises along one axis, earlier ones
    over all axes from ``axis`` on (the input coerced to 2-D at ``axis``).

    Up, the last axis (``-1``, or ``rank - 1`` where the rank is known) is the same
    operation; any other axis, or an unknown rank, becomes what opset 12 computes and opset
    13 can say for any rank: ``Flatten(axis)``, the operator along the last axis, and a
    ``Reshape`` back to the input's ``Shape`` (onnx's rewrite, with onnx's names). ``args``
    = ``("keep_last",)`` (Hardmax): a last axis is kept as written, as onnx keeps it.
    """
    node = scope.graph.node[index]
    if not node.input or not node.output or not node.output[0]:
        raise scope.fail(index, f"{node.op_type} needs its input and its output")
    rank = _rank(scope, node.input[0])
    held = _attribute(node, "axis")
    if step == (12, 13):
        axis = held.i if held is not None else 1
        if axis < 0:
            axis += rank
        if axis == rank - 1:
            if "keep_last" not in args:
                _set_attribute(node, "axis", -1)
            return index
        return _flatten_around(scope, index, axis)
    axis = held.i if held is not None else -1
    if axis == -1:
        _set_attribute(node, "axis", rank - 1)
        return index
    if axis < 0:
        axis += rank
    if rank and axis == rank - 1:
        _set_attribute(node, "axis", axis)
        return index
    if not rank:
        raise scope.fail(
            index,
            f"{node.op_type} along axis {axis} of an input of unknown rank has no opset 12 form "
            "(opset 12 normalises over every axis from 'axis' on); give the input a shape, "
            "or keep the model at opset 13",
        )
    return _transpose_around(scope, index, axis, rank)


def _transpose_around(scope: Scope, index: int, axis: int, rank: int) -> int:
    """``y = Op(x, axis)`` (opset 13, ``axis`` not the last) becomes
    ``Transpose(Op(Transpose(x, axis to the end), -1 as rank - 1), back)``: opset 12's
    operator over the last axis alone is the same thing. (onnx's converter keeps the axis,
    which at opset 12 normalises over every axis from it on: another result.)"""
    graph = scope.graph
    node = graph.node[index]
    perm = [*range(axis), *range(axis + 1, rank), axis]
    back = [perm.index(at) for at in range(rank)]
    moved, inner = scope.new_value_name(), scope.new_value_name()
    before = NodeProto(op_type="Transpose", input=[node.input[0]], output=[moved])
    _set_attribute(before, "perm", perm)
    after = NodeProto(op_type="Transpose", input=[inner], output=[node.output[0]])
    _set_attribute(after, "perm", back)
    node.input[0] = moved
    node.output[0] = inner
    _set_attribute(node, "axis", rank - 1)
    graph.node.insert(index + 1, after)
    graph.node.insert(index, before)
    return index + 2


def _flatten_around(scope: Scope, index: int, axis: int) -> int:
    """``y = Op(x)`` (opset 12, at ``axis``) becomes ``Reshape(Op(Flatten(x, axis), -1), Shape(x))``;
    the index of the Reshape (the walk goes on after it)."""
    graph = scope.graph
    node = graph.node[index]
    source, output = node.input[0], node.output[0]
    shape_name, flat_name = scope.new_value_name(), scope.new_value_name()
    scope.new_value_name()  # the Reshape's own value, renamed to the output (onnx counts it)
    intermediate = f"{output}_intermediate"
    element = scope.element_types().get(output) or scope.element_types().get(source, 0)
    shape = NodeProto(op_type="Shape", input=[source], output=[shape_name])
    flatten = NodeProto(op_type="Flatten", input=[source], output=[flat_name])
    flatten.attribute.append(AttributeProto(name="axis", i=axis, type=AttributeProto.INT))
    node.input[0] = flat_name
    node.output[0] = intermediate
    _set_attribute(node, "axis", -1)
    reshape = NodeProto(op_type="Reshape", input=[intermediate, shape_name], output=[output])
    graph.node.insert(index + 1, reshape)
    graph.node.insert(index, flatten)
    graph.node.insert(index, shape)
    info = ValueInfoProto(name=intermediate)
    if element:
        info.type.tensor_type.elem_type = element
    # onnx writes value_info in node order: the intermediate goes before the first value
    # made at or after the Reshape
    later: set[str] = set()
    for made in list(graph.node)[index + 3 :]:
        later.update(made.output)
    at = next((i for i, held in enumerate(graph.value_info) if held.name in later), len(graph.value_info))
    graph.value_info.insert(at, info)
    return index + 3


def at_most_outputs(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    node = scope.graph.node[index]
    limit = int(str(args[0]))
    if len(node.output) > limit:
        raise scope.fail(
            index,
            f"{node.op_type} at opset {step[1]} has at most {limit} outputs (it has {len(node.output)}); "
            "drop the saved mean and variance outputs first",
        )
    return index


def broadcast_forward(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Opset 7 broadcasts as numpy: the ``broadcast`` flag and ``axis`` go. A broadcast
    from an explicit ``axis`` (the second input aligned at that axis of the first) becomes
    an Unsqueeze of the second input, trailing 1s up to the first's last axis (onnx's
    converter, for axis 0; for another axis it pads to the first's rank, which misaligns)."""
    node = scope.graph.node[index]
    flag = _attribute(node, "broadcast")
    axis = _attribute(node, "axis")
    if flag is not None and flag.i == 1 and axis is not None:
        first, second = _known_dims(scope, index, 0), _known_dims(scope, index, 1)
        at = int(axis.i) + (len(first) if axis.i < 0 else 0)
        if not 0 <= at <= len(first) - len(second):
            raise scope.fail(
                index,
                f"{node.op_type}'s axis {axis.i} does not place a rank-{len(second)} input inside "
                f"a rank-{len(first)} one",
            )
        trailing = len(first) - at - len(second)
        if at != len(first) - len(second) and trailing > 0:
            made = scope.new_value_name()
            unsqueeze = NodeProto(op_type="Unsqueeze", input=[node.input[1]], output=[made])
            _set_attribute(unsqueeze, "axes", [len(second) + i for i in range(trailing)])
            node.input[1] = made
            scope.graph.node.insert(index, unsqueeze)
            index += 1
            node = scope.graph.node[index]
    _remove_attribute(node, "broadcast")
    _remove_attribute(node, "axis")
    return index


def range_27_26(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    restrict(scope, index, step, args)
    _remove_attribute(scope.graph.node[index], "stash_type")
    return index


def mod_28_27(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Opset 28's Mod takes floats with fmod=0; opset 27's does not."""
    node = scope.graph.node[index]
    fmod = _attribute(node, "fmod")
    if fmod is None or fmod.i == 0:
        elem_type = scope.element_types().get(node.input[0], 0) if node.input else 0
        if elem_type == 0:
            raise scope.fail(
                index, "Mod with fmod=0 and an input of unknown type cannot go to opset 27; declare its type"
            )
        if elem_type in {getattr(TensorProto, name) for name in TYPE_SETS[str(args[0])]}:
            raise scope.fail(
                index, "Mod with floating-point inputs and fmod=0 cannot go to opset 27; set fmod=1"
            )
    return index


def restrict_and_attribute(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """As :func:`restrict`, and the element type an attribute names (Cast's ``to``) too."""
    restrict(scope, index, step, args)
    node = scope.graph.node[index]
    held = _attribute(node, str(args[1]))
    names = {getattr(TensorProto, name): name for name in TYPE_SETS[str(args[0])]}
    if held is not None and held.i in names:
        raise scope.fail(
            index,
            f"{node.op_type} with {args[1]}={names[held.i]}: that type does not exist at opset {step[1]}",
        )
    return index


def remove_values(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Refuse a string attribute holding one of the values the target version lacks."""
    node = scope.graph.node[index]
    held = _attribute(node, str(args[0]))
    if held is not None and held.s in args[1:]:
        raise scope.fail(
            index,
            f"{node.op_type} with {args[0]}={held.s.decode(errors='replace')} does not exist at opset "
            f"{step[1]}; keep the model at opset {step[0]}",
        )
    return index


def scatter_10_11(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Scatter becomes ScatterElements (a new node: its outputs keep their names)."""
    node = scope.graph.node[index]
    if len(node.input) < 3:
        raise scope.fail(
            index, f"Scatter has {len(node.input)} inputs; opset 10 needs data, indices and updates"
        )
    axis = _attribute(node, "axis")
    made = NodeProto(op_type="ScatterElements", input=list(node.input[:3]), output=list(node.output))
    made.attribute.append(
        AttributeProto(name="axis", i=axis.i if axis is not None else 0, type=AttributeProto.INT)
    )
    _replace_node(scope, index, made)
    return index


def restrict_then_remove(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """:func:`restrict` by type set ``args[0]``, then :func:`remove` of ``args[1]`` (kept: ``args[2]``)."""
    index = restrict(scope, index, step, args[:1])
    return remove(scope, index, step, args[1:])


def rename_value(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """A string attribute's value renamed: ``args`` = (attribute, (old, new), ...)."""
    node = scope.graph.node[index]
    held = _attribute(node, str(args[0]))
    if held is not None:
        for pair in args[1:]:
            assert isinstance(pair, tuple)
            if held.s == pair[0]:
                _set_attribute(node, str(args[0]), pair[1])
                break
    return index


def attributes_to_inputs(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """:func:`attribute_to_input` for each (attribute, required) pair, in order."""
    for pair in args:
        assert isinstance(pair, tuple)
        index = attribute_to_input(scope, index, step, (pair[0], "ints", pair[1]))
    return index


def at_most_inputs(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    node = scope.graph.node[index]
    limit = int(str(args[0]))
    if len(node.input) > limit:
        raise scope.fail(
            index,
            f"{node.op_type} at opset {step[1]} has at most {limit} inputs; its input {args[1]} "
            f"({node.input[limit]!r}) has no place there: keep the model at opset {step[0]}",
        )
    return index


def remove_each(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """:func:`remove` for each (attribute, only value) pair."""
    for pair in args:
        assert isinstance(pair, tuple)
        index = remove(scope, index, step, pair)
    return index


def _replace_node(scope: Scope, index: int, made: NodeProto) -> None:
    """Put ``made`` in the place of node ``index``, naming its outputs as onnx's IR does:
    an output the graph returns keeps its name (the IR numbers it twice); any other is a
    new value ``_v_N``, which the nodes reading the old one read instead (its inferred
    type renamed with it)."""
    graph = scope.graph
    returned = {info.name for info in graph.output}
    for at, name in enumerate(made.output):
        if not name:
            continue
        if name in returned:
            scope.new_value_name()
            scope.new_value_name()
            continue
        renamed = scope.new_value_name()
        made.output[at] = renamed
        for node in graph.node:
            for slot, value in enumerate(node.input):
                if value == name:
                    node.input[slot] = renamed
        for info in graph.value_info:
            if info.name == name:
                info.name = renamed
    graph.node.insert(index, made)
    del graph.node[index + 1]


def upsample_9_10(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Upsample becomes Resize (same mode, same X and scales)."""
    node = scope.graph.node[index]
    if len(node.input) < 2:
        raise scope.fail(index, "Upsample at opset 9 needs its scales input")
    mode = _attribute(node, "mode")
    made = NodeProto(op_type="Resize", input=list(node.input[:2]), output=list(node.output))
    made.attribute.append(
        AttributeProto(name="mode", s=mode.s if mode is not None else b"nearest", type=AttributeProto.STRING)
    )
    _replace_node(scope, index, made)
    return index


def resize_10_11(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Resize gains its roi input (a constant: 0s then 1s, twice the input's rank) before scales."""
    node = scope.graph.node[index]
    if len(node.input) < 2:
        raise scope.fail(index, "Resize at opset 10 needs its scales input")
    rank = _rank(scope, node.input[0])
    roi = TensorProto(data_type=TensorProto.FLOAT, dims=[2 * rank], float_data=[0.0] * rank + [1.0] * rank)
    scales = node.input[1]
    node.input.append(scales)
    created, index = _insert_constant(scope, index, roi)
    scope.graph.node[index].input[1] = created
    return index


def scan_8_9(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Scan loses its batch axis: the (empty) sequence_lens input goes, ``directions`` is
    renamed ``scan_input_directions``, and the declared shapes of its inputs and outputs
    lose their first axis."""
    node = scope.graph.node[index]
    if not node.input:
        raise scope.fail(index, "Scan at opset 8 needs its sequence_lens input (empty or not)")
    if node.input[0]:
        raise scope.fail(
            index, "Scan at opset 9 has no sequence_lens: only a Scan whose first input is empty converts"
        )
    directions = _attribute(node, "directions")
    if directions is not None:
        values = [int(v) for v in directions.ints]
        _remove_attribute(node, "directions")
        _set_attribute(node, "scan_input_directions", values)
    del node.input[0]
    graph = scope.graph
    for name in {*node.input, *node.output}:
        for info in (*graph.input, *graph.value_info, *graph.output):
            if info.name == name and info.type.HasField("tensor_type"):
                shape = info.type.tensor_type.shape
                if info.type.tensor_type.HasField("shape") and len(shape.dim):
                    del shape.dim[0]
    return index


def scan_9_8(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Scan gets its batch axis back: an empty sequence_lens input comes first,
    ``scan_input_directions`` is renamed ``directions``, and the declared shapes of its
    inputs and outputs gain a first axis of 1. Only a Scan scanning its inputs and
    outputs along axis 0 converts (opset 8 has no other axis)."""
    node = scope.graph.node[index]
    for name in ("scan_input_axes", "scan_output_axes"):
        axes = _attribute(node, name)
        if axes is not None and any(int(v) != 0 for v in axes.ints):
            raise scope.fail(
                index, f"Scan at opset 8 scans along axis 0 only: {name} must be all 0 (transpose first)"
            )
    directions = _attribute(node, "scan_input_directions")
    if directions is not None:
        values = [int(v) for v in directions.ints]
        _remove_attribute(node, "scan_input_directions")
        _set_attribute(node, "directions", values)
    graph = scope.graph
    for name in {*node.input, *node.output}:
        for info in (*graph.input, *graph.value_info, *graph.output):
            tensor = info.type.tensor_type
            if info.name == name and info.type.HasField("tensor_type") and tensor.HasField("shape"):
                tensor.shape.dim.insert(0, TensorShapeProto.Dimension(dim_value=1))
    node.input.insert(0, "")
    return index


def axis_to_input(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """An ``axis`` attribute becomes a scalar constant input at position ``args[0]`` (its
    default ``args[1]`` when absent), empty inputs filling the positions before it."""
    position, default = int(str(args[0])), int(str(args[1]))
    node = scope.graph.node[index]
    axis = _attribute(node, "axis")
    value = axis.i if axis is not None else default
    while len(node.input) < position:
        scope.new_value_name()  # an empty input is a value to onnx's IR too
        node.input.append("")
    created, index = _insert_constant(scope, index, int64_constant([value], scalar=True))
    node = scope.graph.node[index]
    node.input.append(created)
    _remove_attribute(node, "axis")
    return index


def axis_to_attribute(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """A scalar ``axis`` input at position ``args[0]`` becomes the attribute (``args[1]`` when absent)."""
    position, default = int(str(args[0])), int(str(args[1]))
    graph = scope.graph
    node = graph.node[index]
    if len(node.input) <= position or not node.input[position]:
        _set_attribute(node, "axis", default)
        return index
    source = node.input[position]
    producer = scope.producer(source)
    tensor: TensorProto | None = None
    if producer is not None and graph.node[producer].op_type == "Constant":
        value = _attribute(graph.node[producer], "value")
        tensor = value.t if value is not None else None
    elif producer is None:
        tensor = next((t for t in graph.initializer if t.name == source), None)
    if tensor is None:
        raise scope.fail(
            index,
            f"{node.op_type} at opset {step[1]} takes its axis as an attribute, "
            f"but input {source!r} is not a "
            "constant of this graph; fold it to a constant first",
        )
    try:
        values: list[int] | list[float] = _floats(tensor) if "floats" in args[1:] else _int64s(tensor)
    except ValueError as exc:
        raise scope.fail(index, f"{node.op_type}'s axis input {source!r}: {exc}") from None
    if not values:
        raise scope.fail(index, f"{node.op_type}'s axis input {source!r} is empty")
    _set_attribute(node, "axis", values[0])
    del node.input[position]
    if scope.uses(source) == 0:
        if producer is not None:
            scope.forget(source)
            del graph.node[producer]
            index -= 1 if producer < index else 0
        else:
            for at, held in enumerate(graph.initializer):
                if held.name == source:
                    del graph.initializer[at]
                    break
    return index


def group_normalization_20_21(
    scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]
) -> int:
    """GroupNormalization-21 takes a scale and a bias per channel, 18's one per group: each
    is repeated ``C / num_groups`` times (``Reshape [-1, 1]``, ``Expand [1, C / groups]``,
    ``Reshape [-1]``, with ``C`` read by ``Shape`` at run time), and ``stash_type`` is the
    input's element type, in onnx's order and names."""
    graph = scope.graph
    node = graph.node[index]
    if len(node.input) < 3 or not all(node.input[:3]):
        raise scope.fail(index, "GroupNormalization needs its input, scale and bias")
    groups = _attribute(node, "num_groups")
    if groups is None:
        raise scope.fail(index, "GroupNormalization has no num_groups, which opset 20 requires")
    made: list[NodeProto] = []

    def add(op_type: str, inputs: list[str], **attributes: object) -> str:
        output = scope.new_value_name()
        created = NodeProto(op_type=op_type, input=inputs, output=[output])
        for name, value in attributes.items():
            if isinstance(value, TensorProto):
                created.attribute.append(AttributeProto(name=name, t=value, type=AttributeProto.TENSOR))
            else:
                _set_attribute(created, name, value)
        made.append(created)
        return output

    channels = add("Shape", [node.input[0]], start=1, end=2)
    count = add("Constant", [], value=int64_constant([int(groups.i)]))
    per_group = add("Div", [channels, count])
    one = add("Constant", [], value=int64_constant([1]))
    expand_shape = add("Concat", [one, per_group], axis=0)
    column = add("Constant", [], value=int64_constant([-1, 1]))
    flat = add("Constant", [], value=int64_constant([-1]))
    for slot in (1, 2):
        repeated = add("Reshape", [node.input[slot], column])
        repeated = add("Expand", [repeated, expand_shape])
        node.input[slot] = add("Reshape", [repeated, flat])
    _set_attribute(node, "stash_type", scope.element_types().get(node.input[0], 0))
    for offset, created in enumerate(made):
        graph.node.insert(index + offset, created)
    return index + len(made)


def quantize_21_20(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """QuantizeLinear and DequantizeLinear at 20: none of the types ``args[0]`` names, no
    blocked quantization (``block_size`` 0 is dropped), and QuantizeLinear's output type
    comes from its zero point: an ``output_dtype`` other than uint8 needs one, then goes."""
    node = scope.graph.node[index]
    _check_types(scope, index, [*node.input, *node.output], str(args[0]), step)
    index = remove(
        scope, index, step, ("block_size", 0, f"Blocked quantization is not supported at opset {step[1]}")
    )
    node = scope.graph.node[index]
    output_dtype = _attribute(node, "output_dtype")
    if node.op_type == "QuantizeLinear" and output_dtype is not None:
        if output_dtype.i != TensorProto.UINT8 and (len(node.input) < 3 or not node.input[2]):
            raise scope.fail(
                index,
                f"Attribute output_dtype is not supported at opset {step[1]}: QuantizeLinear takes its "
                "output type from its zero point there; supply a zero-point tensor instead, or keep the "
                f"model at opset {step[0]} or above",
            )
        _remove_attribute(node, "output_dtype")
    return index


def upsample_6_7(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Upsample-1's ``height_scale`` and ``width_scale`` (of a 4-D input) become Upsample-7's
    ``scales`` = [1, 1, height, width]."""
    node = scope.graph.node[index]
    height, width = _attribute(node, "height_scale"), _attribute(node, "width_scale")
    if height is None or width is None:
        raise scope.fail(index, "Upsample at opset 6 needs its height_scale and width_scale attributes")
    rank = _rank(scope, node.input[0]) if node.input else 0
    if rank != 4:
        raise scope.fail(
            index,
            "Upsample at opset 6 scales a 4-D input; this one's rank is "
            f"{rank if rank else 'unknown'}: give the input a 4-D shape first",
        )
    _set_attribute(node, "scales", [1.0, 1.0, float(height.f), float(width.f)])
    _remove_attribute(node, "width_scale")
    _remove_attribute(node, "height_scale")
    return index


def upsample_8_9(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Upsample's ``scales`` attribute becomes a float Constant input."""
    node = scope.graph.node[index]
    scales = _attribute(node, "scales")
    if scales is None:
        raise scope.fail(index, "Upsample at opset 8 needs its scales attribute")
    values = list(scales.floats)
    value = TensorProto(data_type=TensorProto.FLOAT, dims=[len(values)], float_data=values)
    created, index = _insert_constant(scope, index, value)
    node = scope.graph.node[index]
    node.input.append(created)
    _remove_attribute(node, "scales")
    return index


_FLOATS_8 = {TensorProto.FLOAT: "FLOAT", TensorProto.FLOAT16: "FLOAT16", TensorProto.DOUBLE: "DOUBLE"}


def floats_only_8(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Going down to 8, Flatten, Constant, MatMul, Gemm, PRelu, Greater and Less take (and
    give) only float16, float and double. A node on those is kept as it is (as onnx keeps
    it); onnx wraps any other in Casts to float, which changes what integer data computes
    past 2**24: refused here, naming the type."""
    node = scope.graph.node[index]
    if len(node.output) != 1:
        raise scope.fail(index, f"{node.op_type} has {len(node.output)} outputs; it makes exactly one")
    types = scope.element_types()
    values = [] if node.op_type == "Constant" else [name for name in node.input[:1] if name]
    if node.op_type not in ("Greater", "Less"):
        values += [name for name in node.output[:1] if name]
    for value in values:
        element = types.get(value, 0)
        if element not in _FLOATS_8:
            shown = TensorProto.DataType.Name(element) if element else "of unknown type"
            raise scope.fail(
                index,
                f"{node.op_type} at opset {step[1]} takes only float16, float and double; {value!r} is "
                f"{shown}: cast it to float first (onnx's converter inserts those Casts), or keep opset "
                f"{step[0]}",
            )
    return index


def _dims(scope: Scope, name: str) -> list[int | None] | None:
    """The declared or inferred dims of ``name`` (None for a symbolic or unknown one), or
    None where no shape is known."""
    for info in (*scope.graph.input, *scope.graph.value_info, *scope.graph.output):
        if info.name == name and info.type.HasField("tensor_type"):
            tensor = info.type.tensor_type
            if not tensor.HasField("shape"):
                return None
            return [int(d.dim_value) if d.HasField("dim_value") else None for d in tensor.shape.dim]
    return None


def _known_dims(scope: Scope, index: int, at: int) -> list[int]:
    node = scope.graph.node[index]
    dims = _dims(scope, node.input[at]) if at < len(node.input) and node.input[at] else None
    if dims is None or any(d is None for d in dims):
        raise scope.fail(
            index,
            f"the shape of {node.op_type}'s input {at} is not known (or has a symbolic dim): going down, "
            "broadcasting must be decided from shapes; give the inputs shapes, or keep the model's opset",
        )
    return [int(d) for d in dims if d is not None]


def broadcast_backward(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Two inputs broadcasting as numpy go to opset 6's rule: the second's shape a suffix of
    the first's (1s allowed), and ``broadcast=1`` where a broadcast happens. ``args`` =
    ``("no_flag",)`` (Max, Min, Mean at 7, which have no such attribute): a broadcast is
    refused instead (onnx writes the attribute they do not have)."""
    node = scope.graph.node[index]
    if len(node.input) != 2:
        raise scope.fail(
            index,
            f"{node.op_type} at opset {step[1]} can only broadcast between 2 inputs; it has "
            f"{len(node.input)}",
        )
    first, second = _known_dims(scope, index, 0), _known_dims(scope, index, 1)
    axis = len(first) - len(second)
    if axis < 0 or any(b != first[axis + i] and b != 1 for i, b in enumerate(second)):
        raise scope.fail(
            index,
            f"{node.op_type} being converted from {step[0]} to {step[1]} does not have broadcastable inputs: "
            f"{second} is no suffix of {first} at opset {step[1]}; swap or expand the inputs first",
        )
    if axis > 0 or second != first[axis:]:
        if "no_flag" in args:
            raise scope.fail(
                index,
                f"{node.op_type} at opset {step[1]} does not broadcast ({first} and {second}); "
                "expand the inputs to one shape first, or keep the model's opset",
            )
        _set_attribute(node, "broadcast", 1)
    return index


def _needs_broadcast(first: list[int], second: list[int]) -> bool | None:
    """Whether ``second`` broadcasts to ``first`` by opset 6's rule (a suffix, 1s allowed):
    None where it cannot, else whether a broadcast happens at all."""
    axis = len(first) - len(second)
    if axis < 0 or any(b != first[axis + i] and b != 1 for i, b in enumerate(second)):
        return None
    return axis > 0 or second != first[axis:]


def gemm_6_7(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Gemm between 6 (a ``broadcast`` flag for C) and 7 (C broadcasts as numpy): from the
    known shapes of A, B and C, C must broadcast to (M, N) by opset 6's rule; going up the
    flag goes, going down it is set where C broadcasts (as onnx's converter does)."""
    node = scope.graph.node[index]
    if len(node.input) != 3:
        raise scope.fail(index, f"Gemm at opset {step[1]} takes 3 inputs here; it has {len(node.input)}")
    a, b, c = (_known_dims(scope, index, at) for at in range(3))
    if len(a) != 2 or len(b) != 2:
        raise scope.fail(index, "Gemm inputs A and B must have exactly 2 dimensions")
    trans_a, trans_b = _attribute(node, "transA"), _attribute(node, "transB")
    rows = a[1] if trans_a is not None and trans_a.i == 1 else a[0]
    columns = b[0] if trans_b is not None and trans_b.i == 1 else b[1]
    needed = _needs_broadcast([rows, columns], c)
    if needed is None:
        raise scope.fail(
            index,
            f"Gemm being converted from {step[0]} to {step[1]} does not have broadcastable inputs: "
            f"C {c} to (M, N) {[rows, columns]}",
        )
    if step[1] > step[0]:
        _remove_attribute(node, "broadcast")
    elif needed:
        _set_attribute(node, "broadcast", 1)
    return index


def sum_8_7(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Sum-6 does not broadcast: kept where every input has one known shape, refused where
    one differs (onnx lets numpy-broadcastable shapes through, which Sum-6 does not take)."""
    node = scope.graph.node[index]
    shapes = [_known_dims(scope, index, at) for at in range(len(node.input))]
    if any(shape != shapes[0] for shape in shapes[1:]):
        raise scope.fail(
            index,
            f"Sum at opset 7 does not broadcast; its inputs' shapes differ ({shapes}): expand them to "
            "one shape first, or keep the model at opset 8",
        )
    return index


def maxpool_8_7(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """MaxPool-7 has no Indices output and so no ``storage_order`` (which orders only them)."""
    node = scope.graph.node[index]
    if len(node.output) > 1 and node.output[1]:
        raise scope.fail(
            index,
            "MaxPool at opset 7 cannot include the Indices output; drop it, or keep the model at opset 8",
        )
    _remove_attribute(node, "storage_order")
    return index


def optional_input_18_17(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """OptionalHasElement and OptionalGetElement at 17 take an optional only (18 takes a
    tensor or a sequence too): a node whose input is not declared optional is refused."""
    node = scope.graph.node[index]
    source = node.input[0] if node.input else ""
    declared = next(
        (
            info.type
            for info in (*scope.graph.input, *scope.graph.value_info, *scope.graph.output)
            if source and info.name == source and info.HasField("type")
        ),
        None,
    )
    if declared is None or not declared.HasField("optional_type"):
        what = "no input" if not source else f"input {source!r} is not declared optional"
        raise scope.fail(
            index,
            f"{node.op_type} at opset 17 takes an optional input only; {what}: "
            "wrap it in Optional, or keep the model at opset 18 or above",
        )
    return index


def resize_18_17(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Resize-17 has no ``axes``, no ``half_pixel_symmetric`` (opset 19), no antialias and
    no aspect-ratio policy: a node using one is refused; ``antialias=0`` and
    ``keep_aspect_ratio_policy="stretch"`` (what 17 does) are dropped, as onnx drops them."""
    node = scope.graph.node[index]
    if _attribute(node, "axes") is not None:
        raise scope.fail(
            index,
            "Resize's axes attribute has no opset 17 form: give scales or sizes for every axis, "
            "or keep the model at opset 18 or above",
        )
    mode = _attribute(node, "coordinate_transformation_mode")
    if mode is not None and mode.s == b"half_pixel_symmetric":
        raise scope.fail(
            index,
            "Resize coordinate_transformation_mode='half_pixel_symmetric' came in opset 19: "
            "keep the model at opset 19 or above",
        )
    index = remove(scope, index, step, ("antialias", 0, "antialias=1 came in opset 18"))
    return remove(scope, index, step, ("keep_aspect_ratio_policy", b"stretch"))


def _scalar_like(element: int, value: float) -> TensorProto | None:
    """A scalar of float element type ``element`` holding ``value`` (Pad-2 takes floats
    only); None for another type."""
    if element in (TensorProto.FLOAT, 0):
        return float_constant(value)
    if element == TensorProto.DOUBLE:
        return TensorProto(data_type=element, double_data=[value])
    if element == TensorProto.FLOAT16:
        (bits,) = struct.unpack("<H", struct.pack("<e", value))
        return TensorProto(data_type=element, int32_data=[bits])
    return None


def pad_10_11(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    """Pad's ``pads`` becomes an int64 initializer input and, in constant mode, ``value``
    a Constant scalar input (0 when absent), as onnx's converter writes them.

    onnx makes that scalar a float whatever the data's type (Pad-11 then refuses double
    or float16 data); the scalar here has the data's type, the same bytes for float data."""
    graph = scope.graph
    node = graph.node[index]
    pads = _attribute(node, "pads")
    if pads is None:
        raise scope.fail(index, "Pad has no attribute 'pads', which opset 10 requires")
    mode = _attribute(node, "mode")
    value = _attribute(node, "value")
    name = scope.new_value_name()
    scope.new_value_name()  # onnx counts the initializer's value twice
    tensor = int64_constant([int(v) for v in pads.ints])
    tensor.name = name
    graph.initializer.append(tensor)
    node.input.append(name)
    _remove_attribute(node, "pads")
    if mode is None or mode.s == b"constant":
        element = scope.element_types().get(node.input[0], 0)
        scalar = _scalar_like(element, value.f if value is not None else 0.0)
        if scalar is None:
            raise scope.fail(
                index,
                f"Pad's constant value as an input of element type {element} is not written by wirecodec; "
                "cast the data to float first, or keep opset 10",
            )
        created, index = _insert_constant(scope, index, scalar)
        graph.node[index].input.append(created)
    _remove_attribute(graph.node[index], "value")
    return index


def unsupported(scope: Scope, index: int, step: tuple[int, int], args: tuple[object, ...]) -> int:
    node = scope.graph.node[index]
    raise scope.fail(
        index,
        f"converting {node.op_type} from opset {step[0]} to {step[1]} rewrites {args[0]}, which wirecodec's "
        f"converter does not do yet; convert this model with onnx.version_converter, or keep opset {step[0]}",
    )


ADAPTERS: Final[dict[str, Adapter]] = {
    "same": same,
    "restrict": restrict,
    "restrict_first_input": restrict_first_input,
    "set_if_absent": set_if_absent,
    "set": set_,
    "remove": remove,
    "remove_unless": remove_unless,
    "attribute_to_input": attribute_to_input,
    "input_to_attribute": input_to_attribute,
    "clip_10_11": clip_10_11,
    "dropout_11_12": dropout_11_12,
    "split_17_18": split_17_18,
    "softmax": softmax,
    "at_most_outputs": at_most_outputs,
    "broadcast_forward": broadcast_forward,
    "range_27_26": range_27_26,
    "mod_28_27": mod_28_27,
    "restrict_and_attribute": restrict_and_attribute,
    "remove_values": remove_values,
    "scatter_10_11": scatter_10_11,
    "axis_to_input": axis_to_input,
    "scan_8_9": scan_8_9,
    "scan_9_8": scan_9_8,
    "at_most_inputs": at_most_inputs,
    "restrict_then_remove": restrict_then_remove,
    "rename_value": rename_value,
    "attributes_to_inputs": attributes_to_inputs,
    "remove_each": remove_each,
    "upsample_9_10": upsample_9_10,
    "resize_10_11": resize_10_11,
    "axis_to_attribute": axis_to_attribute,
    "unsupported": unsupported,
    "pad_10_11": pad_10_11,
    "resize_18_17": resize_18_17,
    "quantize_21_20": quantize_21_20,
    "group_normalization_20_21": group_normalization_20_21,
    "upsample_6_7": upsample_6_7,
    "upsample_8_9": upsample_8_9,
    "floats_only_8": floats_only_8,
    "maxpool_8_7": maxpool_8_7,
    "optional_input_18_17": optional_input_18_17,
    "broadcast_backward": broadcast_backward,
    "sum_8_7": sum_8_7,
    "gemm_6_7": gemm_6_7,
}
