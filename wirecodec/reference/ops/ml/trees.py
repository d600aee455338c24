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
    # PROBIT in float64: onnx's tree classifier applies it one Python float at a time (its
    # linear and SVM classifiers on float32 scalars); in float32 v * v - log / 0.147
    # cancels, up to 5e-4 away
    wide = scores.astype(np.float64) if transform == "PROBIT" else scores
    scores = apply_post_transform(transform, wide).astype(np.float32)
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


def _members(ctx: Ctx, modes: Any) -> dict[int, Any]:
    """The set of each BRANCH_MEMBER node: ``membership_values`` in node order, one set
    after another, each ended by a NaN."""
    members: dict[int, Any] = {}
    values = ctx.attrs.get("membership_values")
    groups = iter([] if values is None else np.asarray(values).reshape(-1).tolist())
    for node in np.flatnonzero(modes == 6).tolist():
        found = []
        for v in groups:
            if np.isnan(v):
                break
            found.append(v)
        members[node] = np.array(found, dtype=np.float64)
    return members


@op("TreeEnsemble", 5, _ML)
def _tree_ensemble(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    features = np.asarray(a["nodes_featureids"], dtype=np.int64)
    n = features.size
    splits = np.asarray(a["nodes_splits"], dtype=np.float64).reshape(-1)
    modes = np.asarray(a["nodes_modes"]).reshape(-1).astype(np.int64)
    leaf_targets = np.asarray(a["leaf_targetids"], dtype=np.int64)
    leaf_weights = np.asarray(a["leaf_weights"], dtype=np.float64).reshape(-1)
    n_targets = int(a["n_targets"])
    roots = [int(r) for r in a["tree_roots"]]
    aggregate = a.get("aggregate_function", 1)
    if splits.size != n or modes.size != n:
        raise bad(ctx, f"nodes_splits has {splits.size} values and nodes_modes {modes.size} for {n} nodes")
    if leaf_targets.size != leaf_weights.size:
        raise bad(ctx, f"leaf_targetids has {leaf_targets.size} values and leaf_weights {leaf_weights.size}")
    if modes.size and (modes.min() < 0 or modes.max() > 6):
        raise bad(ctx, f"nodes_modes holds {int(modes.max())}; the rules are 0 (LEQ) to 6 (MEMBER)")
    if aggregate not in (0, 1, 2, 3):
        raise bad(ctx, f"aggregate_function {aggregate!r} is not 0 (AVERAGE), 1 (SUM), 2 (MIN) or 3 (MAX)")
    if leaf_targets.size and (leaf_targets.min() < 0 or leaf_targets.max() >= n_targets):
        raise bad(ctx, f"leaf_targetids holds {int(leaf_targets.max())}, outside 0..{n_targets - 1}")
    # one id space: node i is i, leaf j is n + j, and a leaf is its own child
    size = n + leaf_weights.size
    child = []
    for side in ("true", "false"):
        ids = np.asarray(a[f"nodes_{side}nodeids"], dtype=np.int64)
        leafs = np.asarray(a.get(f"nodes_{side}leafs") or [0] * n, dtype=bool)
        if ids.size != n or leafs.size != n:
            raise bad(ctx, f"nodes_{side}nodeids and nodes_{side}leafs need {n} values each")
        target = np.where(leafs, ids + n, ids)
        if target.size and (target.min() < 0 or target.max() >= size):
            raise bad(ctx, f"nodes_{side}nodeids names a node or leaf that does not exist")
        child.append(np.concatenate([target, np.arange(n, size)]))
    child_true, child_false = child
    tracks = np.asarray(a.get("nodes_missing_value_tracks_true") or [0] * n, dtype=bool)
    missing = np.concatenate([tracks[:n], np.zeros(size - min(n, tracks.size), dtype=bool)])[:size]
    feature_of = np.concatenate([features, np.zeros(size - n, dtype=np.int64)])
    split_of = np.concatenate([splits, np.zeros(size - n)])
    mode_of = np.concatenate([modes, np.zeros(size - n, dtype=np.int64)])
    members = _members(ctx, modes)
    rows = x.reshape(x.shape[0], -1).astype(np.float64)
    if n and rows.shape[1] <= int(features.max()):
        raise bad(ctx, f"a node reads feature {int(features.max())}; the input has {rows.shape[1]}")
    # a tree of one leaf is a root whose two children are that leaf: one step reaches it
    if roots and (min(roots) < 0 or max(roots) >= n):
        raise bad(ctx, f"tree_roots names node {max(roots)}; there are {n}")
    current = np.tile(np.array(roots, dtype=np.int64), (rows.shape[0], 1))
    row_index = np.arange(rows.shape[0])[:, None]
    rules = sorted(set(modes.tolist()))
    for _ in range(size + 1):
        if (current >= n).all():
            break
        value = rows[row_index, feature_of[current]]
        split = split_of[current]
        mode = mode_of[current]
        go = np.zeros(current.shape, dtype=bool)
        for rule in rules:
            if rule < 6:
                go |= (mode == rule) & _RULES[rule](value, split)
        for node, found in members.items():
            here = current == node
            if here.any():  # a comparison with each member (np.isin sorts: slower on small sets)
                go[here] = (value[here][:, None] == found[None, :]).any(axis=1)
        go |= missing[current] & np.isnan(value)
        current = np.where(go, child_true[current], child_false[current])
    else:
        raise bad(ctx, "a tree has a cycle (a walk did not reach a leaf)")
    leaves = current - n
    targets, weights = leaf_targets[leaves], leaf_weights[leaves]
    row_of = np.broadcast_to(np.arange(rows.shape[0])[:, None], leaves.shape)
    if aggregate in (0, 1):
        out = np.zeros((rows.shape[0], n_targets))
        np.add.at(out, (row_of, targets), weights)
        if aggregate == 0:
            out /= len(roots)
    else:
        pick = np.minimum if aggregate == 2 else np.maximum
        out = np.full((rows.shape[0], n_targets), np.inf if aggregate == 2 else -np.inf)
        pick.at(out, (row_of, targets), weights)
        out[np.isinf(out)] = 0.0  # a target no tree reaches (onnxruntime's answer)
    out = apply_post_transform(post_transform_name(ctx), out)
    return out.astype(x.dtype if x.dtype.kind == "f" else np.float32)
