"""ai.onnx.ml tree ensembles: TreeEnsembleClassifier and TreeEnsembleRegressor (opsets 1 and 3),
TreeEnsemble (opset 5).

Every row walks every tree at once: one array holds each (row, tree)'s current node and
one step moves all of them, so a forest costs ``depth`` numpy passes, not a Python loop per
row and node. Nodes are named by (tree id, node id) as the attributes give them; a leaf's
weights (``class_*`` / ``target_*``) are summed into a [nodes, classes] table once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._registry import op
from wirecodec.reference.ops.ml.common import (
    apply_post_transform,
    as_rows,
    bad,
    class_labels,
    floats,
    label_of,
    post_transform_name,
)

Ctx = Any
_ML = "ai.onnx.ml"
_MODES = ("BRANCH_LEQ", "BRANCH_LT", "BRANCH_GTE", "BRANCH_GT", "BRANCH_EQ", "BRANCH_NEQ", "LEAF")
_LEAF = 6
_RULES = (np.less_equal, np.less, np.greater_equal, np.greater, np.equal, np.not_equal)


class _Forest:
    """The nodes of a TreeEnsembleClassifier/Regressor as arrays indexed by position."""

    def __init__(self, ctx: Ctx) -> None:
        a = ctx.attrs
        self.ctx = ctx
        tree_ids = list(a.get("nodes_treeids") or [])
        node_ids = list(a.get("nodes_nodeids") or [])
        n = len(tree_ids)
        if n == 0:
            raise bad(ctx, "the ensemble has no nodes (nodes_treeids is empty)")
        names = ("nodes_featureids", "nodes_modes", "nodes_truenodeids", "nodes_falsenodeids")
        for name in ("nodes_nodeids", *names):
            if len(a.get(name) or []) != n:
                raise bad(ctx, f"{name} has {len(a.get(name) or [])} values for {n} nodes")
        self.values = floats(ctx, "nodes_values")
        if self.values.size != n:
            raise bad(ctx, f"nodes_values has {self.values.size} values for {n} nodes")
        self.position = {(t, i): p for p, (t, i) in enumerate(zip(tree_ids, node_ids, strict=True))}
        modes = []
        for p, mode in enumerate(a["nodes_modes"]):
            if mode not in _MODES:
                raise bad(ctx, f"nodes_modes[{p}] is {mode!r}, not one of {', '.join(_MODES)}")
            modes.append(_MODES.index(mode))
        self.modes = np.array(modes, dtype=np.int64)
        self.features = np.array(a["nodes_featureids"], dtype=np.int64)
        leaf = self.modes == _LEAF
        self.true = np.arange(n)
        self.false = np.arange(n)
        for p in np.flatnonzero(~leaf).tolist():
            tree = tree_ids[p]
            for side, table in (("nodes_truenodeids", self.true), ("nodes_falsenodeids", self.false)):
                child = (tree, a[side][p])
                if child not in self.position:
                    raise bad(ctx, f"{side}[{p}] names node {child[1]} of tree {tree}, which does not exist")
                table[p] = self.position[child]
        missing = list(a.get("nodes_missing_value_tracks_true") or [])
        self.missing_true = np.zeros(n, dtype=bool)
        self.missing_true[: len(missing)] = np.array(missing[:n], dtype=np.int64) != 0
        self.roots: dict[int, int] = {}
        for p, tree in enumerate(tree_ids):  # a tree's root is its first node
            self.roots.setdefault(tree, int(p))
        self.tree_order = sorted(self.roots)
        self.n_nodes = n

    def entry_positions(self, prefix: str) -> Any:
        """The node position of each ``{prefix}_treeids``/``{prefix}_nodeids`` entry."""
        a = self.ctx.attrs
        trees = list(a.get(f"{prefix}_treeids") or [])
        nodes = list(a.get(f"{prefix}_nodeids") or [])
        if len(trees) != len(nodes):
            raise bad(self.ctx, f"{prefix}_treeids and {prefix}_nodeids differ in length")
        out = []
        for k, key in enumerate(zip(trees, nodes, strict=True)):
            if key not in self.position:
                raise bad(
                    self.ctx,
                    f"{prefix}_nodeids[{k}] names node {key[1]} of tree {key[0]}, which does not exist",
                )
            out.append(self.position[key])
        return np.array(out, dtype=np.int64)

    def leaves(self, rows: Any) -> Any:
        """The leaf each row reaches in each tree: [N, trees] node positions.

        A leaf is its own true and false child, so a walk that reached one stays there
        while the others go on; only the rules the forest uses are evaluated."""
        leaf = self.modes == _LEAF
        used = self.features[~leaf]
        if used.size and rows.shape[1] <= int(used.max()):
            raise bad(self.ctx, f"a node reads feature {int(used.max())}; the input has {rows.shape[1]}")
        features = np.where(leaf, 0, self.features)
        rules = sorted(set(self.modes[~leaf].tolist()))
        data = rows.astype(np.float64)
        holes = bool(np.isnan(data).any())
        current = np.tile(np.array([self.roots[t] for t in self.tree_order]), (rows.shape[0], 1))
        row_index = np.arange(rows.shape[0])[:, None]
        for _ in range(self.n_nodes + 1):
            if leaf[current].all():
                return current
            value = data[row_index, features[current]]
            split = self.values[current]
            if len(rules) == 1:
                go = _RULES[rules[0]](value, split)
            else:
                modes = self.modes[current]
                go = np.zeros(current.shape, dtype=bool)
                for rule in rules:
                    go |= (modes == rule) & _RULES[rule](value, split)
            if holes:
                go = np.where(np.isnan(value), self.missing_true[current], go)
            current = np.where(go, self.true[current], self.false[current])
        raise bad(self.ctx, "a tree has a cycle (a walk did not reach a leaf)")


def _table(forest: _Forest, prefix: str, weights: Any, ids: Any, width: int) -> Any:
    """[nodes, width]: the summed weights of each leaf for each target or class."""
    table = np.zeros((forest.n_nodes, width))
    np.add.at(table, (forest.entry_positions(prefix), ids), weights)
    return table


def _ids(ctx: Ctx, name: str, count: int, width: int, weights: Any) -> Any:
    ids = np.array(ctx.attrs.get(name) or [], dtype=np.int64)
    if ids.size != count or weights.size != count:
        raise bad(ctx, f"{name} has {ids.size} values and the weights {weights.size} for {count} entries")
    if ids.size and (ids.min() < 0 or ids.max() >= width):
        raise bad(ctx, f"{name} holds {int(ids.max())}, outside 0..{width - 1}")
    return ids


@op("TreeEnsembleClassifier", 1, _ML)
def _tree_ensemble_classifier(ctx: Ctx, x: Any) -> Any:
    transform = post_transform_name(ctx)
    labels = class_labels(ctx, "classlabels_int64s", "classlabels_strings")
    if labels is None:
        raise bad(ctx, "there are no class labels (classlabels_int64s or classlabels_strings)")
    if len(labels) == 1 and (labels.dtype == object or labels[0] != 1):
        raise bad(ctx, f"a single class label must be the integer 1, not {labels[0]!r}")
    forest = _Forest(ctx)
    rows = as_rows(ctx, x)
    n_classes = len(labels)
    weights = floats(ctx, "class_weights")
    count = len(ctx.attrs.get("class_nodeids") or [])
    ids = _ids(ctx, "class_ids", count, n_classes, weights)
    table = _table(forest, "class", weights, ids, n_classes)
    scores = np.zeros((rows.shape[0], n_classes), dtype=np.float32)
    base = floats(ctx, "base_values", required=False)
    if base is not None and base.size:
        if base.size not in (1, n_classes):
            raise bad(ctx, f"base_values has {base.size} values for {n_classes} classes")
        scores += base.astype(np.float32)
    scores = (scores + table[forest.leaves(rows)].sum(axis=1)).astype(np.float32)
    if len(set(ids.tolist())) == 1:  # one score for two classes
        if n_classes == 1:
            scores = np.concatenate([np.zeros_like(scores), scores], axis=1)
        else:
            scores[:, 1] = scores[:, 0]
        scores[:, 0] = 1 - scores[:, 1] if transform in ("NONE", "PROBIT") else -scores[:, 1]
    scores = apply_post_transform(transform, scores).astype(np.float32)
    picked = np.argmax(scores, axis=1)
    if n_classes == 1:
        return np.where(picked == 1, 1, 0).astype(np.int64), scores
    return label_of(labels, picked), scores


@op("TreeEnsembleRegressor", 1, _ML)
def _tree_ensemble_regressor(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    transform = post_transform_name(ctx)
    aggregate = a.get("aggregate_function", "SUM")
    if aggregate not in ("SUM", "AVERAGE", "MIN", "MAX"):
        raise bad(ctx, f"aggregate_function {aggregate!r} is not one of SUM, AVERAGE, MIN, MAX")
    n_targets = a.get("n_targets")
    if not isinstance(n_targets, int) or n_targets < 1:
        raise bad(ctx, f"n_targets is {n_targets!r}; it must be a positive integer")
    forest = _Forest(ctx)
    rows = as_rows(ctx, x)
    weights = floats(ctx, "target_weights")
    count = len(a.get("target_nodeids") or [])
    ids = _ids(ctx, "target_ids", count, n_targets, weights)
    reached = forest.leaves(rows)
    if aggregate in ("SUM", "AVERAGE"):
        out = _table(forest, "target", weights, ids, n_targets)[reached].sum(axis=1)
        if aggregate == "AVERAGE":
            out /= len(forest.tree_order)
    else:
        pick = np.minimum if aggregate == "MIN" else np.maximum
        empty = np.inf if aggregate == "MIN" else -np.inf
        table = np.full((forest.n_nodes, n_targets), empty)
        pick.at(table, (forest.entry_positions("target"), ids), weights)
        out = pick.reduce(table[reached], axis=1)
        limit = np.finfo(np.float32 if rows.dtype != np.float64 else np.float64).max
        out = np.where(np.isinf(out), np.copysign(limit, out), out)
    base = floats(ctx, "base_values", required=False)
    if base is not None and base.size:
        if base.size != n_targets:
            raise bad(ctx, f"base_values has {base.size} values for {n_targets} targets")
        out = out + base
    return apply_post_transform(transform, out).astype(np.float32)


# -- TreeEnsemble (opset 5): nodes by index, leaves apart, set membership --------------


def _branch(mode: int, value: float, split: float, members: set[float]) -> bool:
    if mode == 0:
        return value <= split
    if mode == 1:
        return value < split
    if mode == 2:
        return value >= split
    if mode == 3:
        return value > split
    if mode == 4:
        return value == split
    if mode == 5:
        return value != split
    return value in members


@op("TreeEnsemble", 5, _ML)
def _tree_ensemble(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    features = a["nodes_featureids"]
    splits = a["nodes_splits"].reshape(-1).astype(np.float64)
    modes = a["nodes_modes"].reshape(-1).astype(np.int64)
    true_ids, true_leaf = a["nodes_truenodeids"], a.get("nodes_trueleafs") or [0] * len(features)
    false_ids, false_leaf = a["nodes_falsenodeids"], a.get("nodes_falseleafs") or [0] * len(features)
    missing_true = a.get("nodes_missing_value_tracks_true") or [0] * len(features)
    members: dict[int, set[float]] = {}
    if a.get("membership_values") is not None:
        groups = iter(a["membership_values"].reshape(-1).tolist())
        for node, mode in enumerate(modes):
            if mode == 6:
                found: set[float] = set()
                for v in groups:
                    if np.isnan(v):
                        break
                    found.add(v)
                members[node] = found
    leaf_targets = a["leaf_targetids"]
    leaf_weights = a["leaf_weights"].reshape(-1).astype(np.float64)
    n_targets = a["n_targets"]
    roots = a["tree_roots"]
    agg = a.get("aggregate_function", 1)
    rows = x.reshape(x.shape[0], -1).astype(np.float64)
    out = np.zeros((rows.shape[0], n_targets))
    for r, row in enumerate(rows):
        per_tree = []
        for root in roots:
            node, is_leaf = root, False
            while not is_leaf:
                value = row[features[node]]
                if np.isnan(value):
                    go_true = bool(missing_true[node])
                else:
                    go_true = _branch(int(modes[node]), value, splits[node], members.get(node, set()))
                node, is_leaf = (
                    (true_ids[node], bool(true_leaf[node]))
                    if go_true
                    else (
                        false_ids[node],
                        bool(false_leaf[node]),
                    )
                )
            per_tree.append(node)
        scores = [[] for _ in range(n_targets)]  # type: list[list[float]]
        for leaf in per_tree:
            scores[leaf_targets[leaf]].append(leaf_weights[leaf])
        for t in range(n_targets):
            values = scores[t]
            if not values:
                continue
            if agg == 0:
                out[r, t] = sum(values) / len(roots)
            elif agg == 2:
                out[r, t] = min(values)
            elif agg == 3:
                out[r, t] = max(values)
            else:
                out[r, t] = sum(values)
    out = apply_post_transform(post_transform_name(ctx), out)
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float32)
