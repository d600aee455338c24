"""Build the seed corpus for the harnesses from valid models: the onnx backend corpus.

    python fuzz/make_seeds.py [fuzz/seeds] [--sample N]

Each seed is one byte naming the message type (see _common.TOP_LEVEL) followed by a
file of that type, as fuzz_decode.py reads it; fuzz_to_array and fuzz_load take the
same files (their first byte is just part of the input). ``--sample N`` keeps N seeds
spread evenly over the corpus (every message type still present), for short runs such
as the CI smoke (``.ci/fuzz_smoke.sh``).
"""

from __future__ import annotations

import argparse
import hashlib
import pathlib

from _common import ROOT, TOP_LEVEL

from tests.support.reference import backend_corpus


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("out", nargs="?", type=pathlib.Path, default=ROOT / "fuzz" / "seeds")
    parser.add_argument("--sample", type=int, default=0, help="keep only this many seeds (0: all)")
    args = parser.parse_args()
    names = [cls.__qualname__ for cls in TOP_LEVEL]
    seeds = {}
    for item in backend_corpus(ROOT / ".pytest_cache" / "d" / "onnx-corpus"):
        if item.message not in names or len(item.data) > 16_384:
            continue
        seed = bytes([names.index(item.message)]) + item.data
        seeds[hashlib.sha1(seed).hexdigest()[:16]] = seed
    chosen = sorted(seeds)
    if args.sample:
        chosen = _spread(chosen, seeds, args.sample)
    args.out.mkdir(parents=True, exist_ok=True)
    for key in chosen:
        (args.out / key).write_bytes(seeds[key])
    print(f"{len(chosen)} seeds in {args.out}")


def _spread(keys: list[str], seeds: dict[str, bytes], count: int) -> list[str]:
    """``count`` keys: the first seed of every message type, then evenly spaced others."""
    first: dict[int, str] = {}
    for key in keys:
        first.setdefault(seeds[key][0], key)
    rest = [key for key in keys if key not in first.values()]
    step = max(1, len(rest) // max(1, count - len(first)))
    return sorted([*first.values(), *rest[::step]][:count])


if __name__ == "__main__":
    main()
