"""String operators: StringSplit, StringNormalizer, StringConcat, RegexFullMatch, TfIdfVectorizer."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from wirecodec.reference._registry import op

Ctx = Any


def _str(v: Any) -> str:
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


@op("StringConcat", 20)
def _concat(ctx: Ctx, a: Any, b: Any) -> Any:
    join = np.frompyfunc(lambda u, v: _str(u) + _str(v), 2, 1)
    return np.asarray(join(a, b), dtype=object)


@op("RegexFullMatch", 20)
def _regex(ctx: Ctx, x: Any) -> Any:
    pattern = re.compile(ctx.attrs["pattern"])
    match = np.frompyfunc(lambda u: pattern.fullmatch(_str(u)) is not None, 1, 1)
    return np.asarray(match(x), dtype=bool).reshape(x.shape)


@op("StringSplit", 20)
def _split(ctx: Ctx, x: Any) -> Any:
    delimiter = ctx.attrs.get("delimiter") or None
    maxsplit = ctx.attrs.get("maxsplit")
    limit = -1 if maxsplit is None else maxsplit
    parts = [_str(v).split(delimiter, limit) for v in x.reshape(-1)]
    if delimiter is None:
        parts = [p if p != [""] else [] for p in parts]
    width = max((len(p) for p in parts), default=0)
    y = np.full((len(parts), width), "", dtype=object)
    for i, p in enumerate(parts):
        y[i, : len(p)] = p
    counts = np.array([len(p) for p in parts], dtype=np.int64).reshape(x.shape)
    return y.reshape((*x.shape, width)), counts


@op("StringNormalizer", 10)
def _normalize(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    stop = a.get("stopwords") or []
    sensitive = a.get("is_case_sensitive", 0)
    action = a.get("case_change_action", "NONE")
    flat = [_str(v) for v in x.reshape(-1)]
    if stop:
        if sensitive:
            words = set(stop)
            flat = [w for w in flat if w not in words]
        else:
            words = {w.lower() for w in stop}
            flat = [w for w in flat if w.lower() not in words]
    if action == "LOWER":
        flat = [w.lower() for w in flat]
    elif action == "UPPER":
        flat = [w.upper() for w in flat]
    if not flat:
        flat = [""]
    y = np.array(flat, dtype=object)
    return y.reshape(1, -1) if x.ndim == 2 else y


@op("TfIdfVectorizer", 9)
def _tfidf(ctx: Ctx, x: Any) -> Any:
    a = ctx.attrs
    lo, hi, skip = a["min_gram_length"], a["max_gram_length"], a["max_skip_count"]
    pool: list[Any] = list(a.get("pool_int64s") or a.get("pool_strings") or [])
    counts = [*list(a["ngram_counts"]), len(pool)]
    indexes = list(a["ngram_indexes"])
    table: dict[tuple[Any, ...], int] = {}
    for n in range(1, len(counts)):
        start, stop = counts[n - 1], counts[n]
        for k, at in enumerate(range(start, stop, n)):
            gram = tuple(pool[at : at + n])
            table[gram] = indexes[_ordinal(counts, n, k)]
    width = max(indexes) + 1 if indexes else 0
    rows = x.reshape(1, -1) if x.ndim == 1 else x.reshape(x.shape[0], -1)
    out = np.zeros((rows.shape[0], width), dtype=np.float32)
    for r, row in enumerate(rows):
        items = [_str(v) if x.dtype.kind in "OUS" else int(v) for v in row]
        for n in range(lo, hi + 1):
            skips = range(skip + 1) if n > 1 else range(1)
            for s in skips:
                step = s + 1
                for start in range(len(items) - (n - 1) * step):
                    gram = tuple(items[start + j * step] for j in range(n))
                    if gram in table:
                        out[r, table[gram]] += 1
    mode = a.get("mode", "TF")
    weights = a.get("weights")
    w = np.ones(width, dtype=np.float32) if not weights else np.zeros(width, dtype=np.float32)
    if weights:
        for idx, value in zip(indexes, weights, strict=False):
            w[idx] = value
    if mode == "IDF":
        out = (out > 0).astype(np.float32) * w
    elif mode == "TFIDF":
        out = out * w
    return out.reshape(width) if x.ndim == 1 else out


def _ordinal(counts: list[int], n: int, k: int) -> int:
    """Position in ngram_indexes of the k-th n-gram of the pool."""
    before = 0
    for m in range(1, n):
        before += (counts[m] - counts[m - 1]) // m
    return before + k
