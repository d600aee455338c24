"""``onnx.tools.replace_constants``: a model's large constants replaced by nodes that make a
tensor of the same shape, so that a graph's structure can be shared (in a test, a bug
report) without its weights.

:func:`replace_initializer_by_constant_of_shape` gives what onnx's gives, node for node and
byte for byte (tests/differential/test_onnx_compat_tools_replace_constants.py):

- every initializer with more than ``threshold`` elements becomes a ``ConstantOfShape`` node
  (filled with 0.5 cast to its type) fed by a new ``<name>__SHAPE`` initializer holding its
  dimensions (also a graph input when ``ir_version`` ≤ 3); a ``Constant`` node's ``value``
  of more than ``threshold`` elements becomes a ``Constant`` of its shape and a
  ``ConstantOfShape``; bodies of ``If``/``Loop``/``Scan`` and model functions likewise;
- then every ``ConstantOfShape`` of a rebuilt graph or function is given the fill value
  ``value_constant_of_shape`` (unless it is 1), or with ``use_range`` replaced by a
  ``Range`` over the element count, cast and reshaped (a tensor that is not constant).

A graph or function that is rebuilt keeps what onnx's rebuild keeps: nodes, inputs,
outputs, initializers (not value_info or doc strings; a rebuilt node keeps its operator,
inputs, outputs and attributes, not its name or domain). A sparse initializer above the
threshold, a ``Constant`` of ``sparse_value`` or of another attribute than ``value``
raise ``NotImplementedError``, as onnx does.

>>> import numpy as np
>>> from wirecodec import helper, numpy_helper
>>> w = numpy_helper.from_array(np.ones((20, 10), np.float32), "w")
>>> graph = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["y"])], "g", [], [], [w])
>>> model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
>>> small = replace_initializer_by_constant_of_shape(model)
>>> [n.op_type for n in small.graph.node], [t.name for t in small.graph.initializer]
(['ConstantOfShape', 'MatMul'], ['w__SHAPE'])
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, TypeVar

from schema_dsl.onnx import (
    AttributeProto,
    FunctionProto,
    GraphProto,
    ModelProto,
    NodeProto,
    SparseTensorProto,
    TensorProto,
)
from wirecodec import helper, numpy_helper

__all__ = ["replace_initializer_by_constant_of_shape"]

_Body = TypeVar("_Body", GraphProto, FunctionProto)
_GRAPH = AttributeProto.AttributeType.GRAPH
_GRAPHS = AttributeProto.AttributeType.GRAPHS


def replace_initializer_by_constant_of_shape(
    onx: FunctionProto | GraphProto | ModelProto,
    threshold: int = 128,
    ir_version: int | None = None,
    use_range: bool = False,
    value_constant_of_shape: float = 0.5,
) -> Any:
    """``onx`` with initializers and ``Constant`` values of more than ``threshold`` elements
    made by ``ConstantOfShape`` (or ``Range`` with ``use_range``) nodes instead: a new model
    (or graph, or function; an unchanged graph or function itself when nothing is rebuilt
    and ``value_constant_of_shape`` is 1). ``ir_version`` (taken from a model) ≤ 3 also
    declares each new shape initializer as a graph input, as that IR requires."""
    options = (threshold, ir_version, use_range, value_constant_of_shape)
    if isinstance(onx, ModelProto):
        return _model(onx, *options)
    if isinstance(onx, FunctionProto):
        return _function(onx, *options)
    if isinstance(onx, GraphProto):
        return _graph(onx, *options)
    raise TypeError(f"onx should be a GraphProto at this stage not {type(onx)}.")


def _model(
    model: ModelProto, threshold: int, ir_version: int | None, use_range: bool, fill: float
) -> ModelProto:
    ir = ir_version or model.ir_version
    graph = _graph(model.graph, threshold, ir, use_range, fill)
    functions = [_function(f, threshold, ir, use_range, fill) for f in model.functions]
    made = helper.make_model(
        graph,
        functions=functions,
        producer_name=model.producer_name,
        producer_version=model.producer_version,
        ir_version=ir,
        doc_string=model.doc_string,
        domain=model.domain,
        model_version=model.model_version,
    )
    if len(model.metadata_props) > 0:
        helper.set_model_props(made, {p.key: p.value for p in model.metadata_props})
    del made.opset_import[:]
    for opset in model.opset_import:
        entry = made.opset_import.add()
        if opset.domain == "" and opset.version < 11 and use_range:
            raise RuntimeError(f"Range was introduced in opset 11 but opset is {opset.version}.")
        if opset.domain == "" and opset.version < 9:
            raise RuntimeError(f"ConstantOfShape was introduced in opset 9 but opset is {opset.version}.")
        entry.domain = opset.domain  # set even when empty, as onnx does
        entry.version = opset.version
    return made


def _finish(body: _Body, rebuilt: bool, use_range: bool, fill: float) -> _Body:
    """The last step of every graph and function: the ConstantOfShape nodes given ``fill``,
    or turned into a Range (a new graph or function either way, as onnx makes one)."""
    if use_range:
        return _with_range(body)
    if fill != 1:
        return _with_fill(body, fill)
    return body


def _function(
    function: FunctionProto, threshold: int, ir_version: int | None, use_range: bool, fill: float
) -> FunctionProto:
    nodes: list[NodeProto] = []
    rebuilt = False
    for node in function.node:
        if node.op_type == "Constant":
            replaced = _constant(node, threshold, fill)
            rebuilt = rebuilt or len(replaced) == 2
            nodes.extend(replaced)
        else:
            nodes.append(node)
    if rebuilt:
        function = _rebuilt(function, nodes)
    return _finish(function, rebuilt, use_range, fill)


def _graph(
    graph: GraphProto, threshold: int, ir_version: int | None, use_range: bool, fill: float
) -> GraphProto:
    changes = 0
    nodes: list[NodeProto] = []
    removed: set[str] = set()
    extra_inputs = []
    initializers: list[TensorProto] = []
    for tensor in graph.initializer:
        dims = list(tensor.dims)
        if math.prod(dims) <= threshold:
            initializers.append(tensor)
            continue
        changes += 1
        shape_name = f"{tensor.name}__SHAPE"
        initializers.append(_int64s(dims, shape_name))
        # (the initializers' fill is 0.5 whatever value_constant_of_shape says: _with_fill
        # sets it afterwards unless it is 1, as in onnx)
        nodes.append(
            helper.make_node(
                "ConstantOfShape", [shape_name], [tensor.name], value=_filled(0.5, tensor.data_type)
            )
        )
        removed.add(tensor.name)
        if ir_version is not None and ir_version <= 3:
            extra_inputs.append(helper.make_tensor_value_info(shape_name, TensorProto.INT64, [len(dims)]))
    sparse: list[SparseTensorProto] = []
    for sparse_tensor in graph.sparse_initializer:
        if math.prod(sparse_tensor.dims) <= threshold:
            sparse.append(sparse_tensor)
            continue
        raise NotImplementedError(
            f"This feature is not yet implemented for a sparse initializer "
            f"(indices.name={sparse_tensor.indices.name!r}, values.name={sparse_tensor.values.name!r})."
        )
    for node in graph.node:
        if node.op_type == "Constant":
            replaced = _constant(node, threshold, fill)
            changes += len(replaced) == 2
            nodes.extend(replaced)
            continue
        body_changed, attributes = _with_bodies(node, threshold, ir_version, use_range, fill)
        if body_changed:
            rebuilt_node = helper.make_node(node.op_type, node.input, node.output)
            rebuilt_node.attribute.extend(attributes)
            nodes.append(rebuilt_node)
            changes += 1
        else:
            nodes.append(node)
    if changes:
        inputs = [i for i in graph.input if i.name not in removed] + extra_inputs
        graph = helper.make_graph(
            nodes, graph.name, inputs, graph.output, initializer=initializers, sparse_initializer=sparse
        )
    return _finish(graph, bool(changes), use_range, fill)


def _with_bodies(
    node: NodeProto, threshold: int, ir_version: int | None, use_range: bool, fill: float
) -> tuple[bool, list[AttributeProto]]:
    """The node's attributes with each body graph done; whether one is a new graph. (Once
    one is, every later graphs attribute is remade too: onnx keeps one flag per node.)"""
    changed = False
    attributes = []
    for attr in node.attribute:
        if attr.type == _GRAPH and attr.HasField("g"):
            body = _graph(attr.g, threshold, ir_version, use_range, fill)
            if body is not attr.g:
                changed = True
                attr = helper.make_attribute(attr.name, body)
        elif attr.type == _GRAPHS:
            bodies = []
            for graph in attr.graphs:
                body = _graph(graph, threshold, ir_version, use_range, fill)
                changed = changed or body is not graph
                bodies.append(body)
            if changed:
                attr = helper.make_attribute(attr.name, bodies)
        attributes.append(attr)
    return changed, attributes


def _constant(node: NodeProto, threshold: int, fill: float) -> list[NodeProto]:
    """A Constant node, or the two nodes that make a tensor of its value's shape."""
    if node.op_type != "Constant":
        raise TypeError(f"Node type must be 'Constant' not {node.op_type!r}.")
    for attr in node.attribute:
        if attr.name == "sparse_value":
            raise NotImplementedError(
                f"This feature is not yet implemented for a sparse constant (node name={node.name!r})."
            )
        if attr.name != "value":
            raise NotImplementedError(f"Replacement of constant with attribute {attr.name!r}")
        value = attr.t
        dims = list(value.dims)
        if math.prod(dims) <= threshold:
            return [node]
        shape_name = f"{value.name}__SHAPE"
        return [
            helper.make_node("Constant", [], [shape_name], value=_int64s(dims, shape_name)),
            helper.make_node(
                "ConstantOfShape", [shape_name], node.output, value=_filled(fill, value.data_type)
            ),
        ]
    return [node]


def _int64s(values: list[int], name: str) -> TensorProto:
    import numpy as np

    return numpy_helper.from_array(np.array(values, dtype=np.int64), name=name)


def _filled(fill: float, data_type: int) -> TensorProto:
    """One value ``fill`` of ``data_type`` (numpy's cast: 0.5 is 0 in an integer type)."""
    import numpy as np

    return numpy_helper.from_array(np.array([fill], dtype=helper.tensor_dtype_to_np_dtype(data_type)))


def _rebuilt(body: _Body, nodes: Iterable[NodeProto]) -> _Body:
    """``body`` made anew around ``nodes``: a graph keeps its name, inputs, outputs and
    initializers; a function its domain, name, inputs, outputs and opset imports."""
    if isinstance(body, GraphProto):
        return helper.make_graph(
            list(nodes),
            body.name,
            body.input,
            body.output,
            initializer=body.initializer,
            sparse_initializer=body.sparse_initializer,
        )
    return helper.make_function(
        body.domain, body.name, body.input, body.output, list(nodes), opset_imports=body.opset_import
    )


def _with_fill(body: _Body, fill: float) -> _Body:
    """Each ConstantOfShape made anew with ``fill`` in its value's type."""
    nodes: list[NodeProto] = list(body.node)
    for i, node in enumerate(nodes):
        if node.op_type != "ConstantOfShape":
            continue
        attr = node.attribute[0]  # (none: an IndexError, as in onnx)
        value = helper.make_tensor(attr.t.name, attr.t.data_type, [1], [fill])
        replaced = helper.make_node("ConstantOfShape", node.input, node.output)
        replaced.attribute.append(helper.make_attribute(attr.name, value=value))
        nodes[i] = replaced
    return _rebuilt(body, nodes)


def _with_range(body: _Body) -> _Body:
    """Each ConstantOfShape replaced by Range(0, n) / n reshaped (n: the element count), in
    the fill value's type (float without one); two Constants 0 and 1 first."""
    nodes: list[NodeProto] = list(body.node)
    taken: set[str] = set()
    for each in nodes:
        taken.update(each.input)
        taken.update(each.output)

    def fresh(prefix: str) -> str:
        name, i = prefix, 2
        while name in taken:
            name, i = f"{prefix}_{i}", i + 1
        taken.add(name)
        return name

    zero = helper.make_node("Constant", [], [fresh("zero")], value_int=0)
    one = helper.make_node("Constant", [], [fresh("one")], value_int=1)
    replaced: dict[int, list[NodeProto]] = {}
    for i, node in enumerate(nodes):
        if node.op_type != "ConstantOfShape":
            continue
        shape = node.input[0]
        to = node.attribute[0].t.data_type if len(node.attribute) == 1 else TensorProto.FLOAT
        count = helper.make_node("ReduceProd", [shape], [fresh(f"{shape}_N")])
        steps = helper.make_node(
            "Range", [zero.output[0], count.output[0], one.output[0]], [fresh(f"{shape}_RANGE")]
        )
        steps_cast = helper.make_node("Cast", [steps.output[0]], [fresh(f"{shape}_RANGEf")], to=to)
        count_cast = helper.make_node("Cast", [count.output[0]], [fresh(f"{shape}_Nf")], to=to)
        flat = helper.make_node("Div", [steps_cast.output[0], count_cast.output[0]], [fresh(f"{shape}_FLAT")])
        reshaped = helper.make_node("Reshape", [flat.output[0], shape], node.output)
        replaced[i] = [count, steps, steps_cast, count_cast, flat, reshaped]
    for i, made in sorted(replaced.items(), reverse=True):
        nodes[i : i + 1] = made
    return _rebuilt(body, [zero, one, *nodes])
