"""Control flow: If, Loop, Scan (subgraphs see the enclosing scope's names)."""

from __future__ import annotations

from typing import Any

import numpy as np

from wirecodec.reference._errors import UndefinedOutputError
from wirecodec.reference._registry import op

Ctx = Any


@op("If")
def _if(ctx: Ctx, cond: Any) -> Any:
    branch = "then_branch" if bool(np.asarray(cond).reshape(-1)[0]) else "else_branch"
    return tuple(ctx.run_graph(branch))


@op("Loop")
def _loop(ctx: Ctx, trip: Any = None, cond: Any = None, *state: Any) -> Any:
    body = ctx.graph("body")
    n_state = len(state)
    n_scan = len(body.outputs) - 1 - n_state
    limit = None if trip is None else int(np.asarray(trip).reshape(-1)[0])
    keep = True if cond is None else bool(np.asarray(cond).reshape(-1)[0])
    values = list(state)
    scans: list[list[Any]] = [[] for _ in range(n_scan)]
    i = 0
    while keep and (limit is None or i < limit):
        out = ctx.run_graph("body", np.array(i, dtype=np.int64), np.array(keep, dtype=bool), *values)
        keep = bool(np.asarray(out[0]).reshape(-1)[0])
        values = list(out[1 : 1 + n_state])
        for j, v in enumerate(out[1 + n_state :]):
            scans[j].append(v)
        i += 1
    results: list[Any] = list(values)
    for j, items in enumerate(scans):
        if items and isinstance(items[0], list):
            results.append([x for seq in items for x in seq])
        elif items:
            results.append(np.stack(items))
        else:
            results.append(_empty_scan(body, 1 + n_state + j))
    return tuple(results)


def _empty_scan(body: Any, index: int) -> Any:
    return np.zeros((0,), dtype=np.float32)


@op("Scan", 9)
def _scan(ctx: Ctx, *inputs: Any) -> Any:
    a = ctx.attrs
    n_scan = a["num_scan_inputs"]
    n_state = len(inputs) - n_scan
    state = list(inputs[:n_state])
    scans = list(inputs[n_state:])
    in_axes = a.get("scan_input_axes") or [0] * n_scan
    in_dirs = a.get("scan_input_directions") or [0] * n_scan
    scans = [np.moveaxis(s, ax, 0) for s, ax in zip(scans, in_axes, strict=True)]
    scans = [s[::-1] if d else s for s, d in zip(scans, in_dirs, strict=True)]
    steps = scans[0].shape[0] if scans else 0
    body = ctx.graph("body")
    n_out = len(body.outputs) - n_state
    if steps == 0 and n_out:
        # no iteration gives a scan output its element's shape and type; onnx's evaluator and
        # onnxruntime refuse rather than guess, and so does this one
        raise UndefinedOutputError("Scan: zero scan-input length, its scan outputs are undefined", ctx.path)
    collected: list[list[Any]] = [[] for _ in range(n_out)]
    for t in range(steps):
        out = ctx.run_graph("body", *state, *[s[t] for s in scans])
        state = list(out[:n_state])
        for j, v in enumerate(out[n_state:]):
            collected[j].append(v)
    out_axes = a.get("scan_output_axes") or [0] * n_out
    out_dirs = a.get("scan_output_directions") or [0] * n_out
    results: list[Any] = list(state)
    for j in range(n_out):
        items = collected[j][::-1] if out_dirs[j] else collected[j]
        stacked = np.stack(items)
        axis = out_axes[j]
        if axis < 0:
            axis += stacked.ndim
        results.append(np.moveaxis(stacked, 0, axis))
    return tuple(results)


@op("Scan", 8)
def _scan8(ctx: Ctx, lengths: Any, *inputs: Any) -> Any:
    a = ctx.attrs
    n_scan = a["num_scan_inputs"]
    n_state = len(inputs) - n_scan
    batch = inputs[0].shape[0] if inputs else 0
    dirs = a.get("directions") or [0] * n_scan
    outs: list[list[Any]] = []
    for b in range(batch):
        state = [x[b] for x in inputs[:n_state]]
        scans = [x[b] for x in inputs[n_state:]]
        steps = scans[0].shape[0] if lengths is None else int(lengths[b])
        scans = [s[:steps][::-1] if d else s[:steps] for s, d in zip(scans, dirs, strict=True)]
        collected: list[list[Any]] = []
        for t in range(steps):
            out = ctx.run_graph("body", *state, *[s[t] for s in scans])
            state = list(out[:n_state])
            if not collected:
                collected = [[] for _ in out[n_state:]]
            for j, v in enumerate(out[n_state:]):
                collected[j].append(v)
        outs.append(state + [np.stack(c) for c in collected])
    return tuple(np.stack([o[j] for o in outs]) for j in range(len(outs[0])))
