"""Differential fuzzing against protobuf (upb): mutate valid ONNX files, compare verdicts.

    python fuzz/differential.py --count 1000000 --jobs 2 --seed 1

For every mutated input: wirecodec and upb must agree on accept vs reject; when both
accept, ``wirecodec.encode(decode(x))`` must equal upb's ``SerializeToString()``; and
wirecodec may raise only its documented errors (``WireCodecError``). Seeds are the onnx
backend corpus (models and data files). Any finding is written, minimised, under
``--out`` and counted; the exit status is 1 if there was any.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import pathlib
import random
import sys
import time
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wirecodec  # noqa: E402
from fuzz._common import make_all_lazy  # noqa: E402
from tests.reference import backend_corpus, message_class, pb_class  # noqa: E402
from wirecodec.protobuf.wire import encode_varint  # noqa: E402

Seed = tuple[str, bytes]


def _varint_at(data: bytes, pos: int) -> tuple[int, int] | None:
    value, shift = 0, 0
    for i in range(pos, min(len(data), pos + 10)):
        value |= (data[i] & 0x7F) << shift
        shift += 7
        if data[i] < 0x80:
            return value, i + 1
    return None


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to three structural or byte-level mutations."""
    out = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        if not out:
            out += bytes([rng.randrange(256)])
            continue
        i = rng.randrange(len(out))
        choice = rng.randrange(9)
        if choice == 0:
            out[i] ^= 1 << rng.randrange(8)
        elif choice == 1:
            out[i] = rng.randrange(256)
        elif choice == 2:
            del out[rng.randrange(len(out) + 1) :]
        elif choice == 3:
            out.insert(i, rng.randrange(256))
        elif choice == 4:
            del out[i : i + rng.randint(1, 4)]
        elif choice == 5:  # duplicate a slice (repeated fields, merges)
            j = rng.randrange(len(out))
            out[j:j] = out[i : i + rng.randint(1, 32)]
        elif choice == 6:  # lengthen a varint with a redundant continuation byte
            if out[i] < 0x80:
                out[i : i + 1] = bytes([out[i] | 0x80, 0x00])
        elif choice == 7:  # splice a length prefix: grow or shrink the varint at i
            parsed = _varint_at(bytes(out), i)
            if parsed is not None:
                value, end = parsed
                value = max(0, value + rng.choice([-3, -1, 1, 2, 7, 1 << 20, -value]))
                value = min(value, (1 << 64) - 1)
                out[i:end] = encode_varint(value)
        else:  # swap a wire type
            out[i] = (out[i] & ~7) | rng.choice([0, 1, 2, 3, 4, 5, 6, 7])
    return bytes(out)


def check(cls_name: str, data: bytes) -> str:
    """One of: both-accept, both-reject, mismatch-accept, mismatch-reject, reencode, crash:<type>."""
    from google.protobuf.message import DecodeError as PbDecodeError

    cls = message_class(cls_name)
    theirs: Any = pb_class(cls)()
    try:
        theirs.ParseFromString(data)
        pb_ok = True
    except PbDecodeError:
        pb_ok = False
    try:
        mine = wirecodec.decode(cls, data)
        ours_ok = True
    except wirecodec.WireCodecError:
        ours_ok = False
    except Exception as exc:
        return f"crash:{type(exc).__name__}"
    if pb_ok != ours_ok:
        return "we-accept-upb-rejects" if ours_ok else "we-reject-upb-accepts"
    if not ours_ok:
        return "both-reject"
    try:
        again = wirecodec.encode(mine)
    except Exception as exc:
        return f"crash-encode:{type(exc).__name__}"
    return "both-accept" if again == theirs.SerializeToString() else "reencode-mismatch"


Finding = tuple[str, str, bytes]


def _worker(args: tuple[list[Seed], int, int, bool]) -> tuple[collections.Counter[str], list[Finding]]:
    seeds, count, seed, all_lazy = args
    if all_lazy:
        make_all_lazy()
    rng = random.Random(seed)
    counts: collections.Counter[str] = collections.Counter()
    findings: list[tuple[str, str, bytes]] = []
    for _ in range(count):
        cls_name, data = rng.choice(seeds)
        mutated = mutate(data, rng)
        verdict = check(cls_name, mutated)
        counts[verdict] += 1
        if verdict not in ("both-accept", "both-reject") and len(findings) < 20:
            findings.append((verdict, cls_name, mutated))
    return counts, findings


def load_seeds(limit_bytes: int = 4096) -> list[Seed]:
    """Corpus files small enough to mutate quickly (the large ones add bytes, not paths)."""
    items = backend_corpus(ROOT / ".pytest_cache" / "d" / "onnx-corpus")
    return [(item.message, item.data) for item in items if len(item.data) <= limit_bytes]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=pathlib.Path, default=ROOT / "fuzz" / "findings")
    parser.add_argument(
        "--all-lazy", action="store_true", help="every repeated sub-message waits (tests lazy decoding)"
    )
    args = parser.parse_args()
    seeds = load_seeds()
    started = time.perf_counter()
    batches = max(args.jobs * 8, 1)
    per_batch = -(-args.count // batches)
    work = [(seeds, per_batch, args.seed * 100_003 + i, args.all_lazy) for i in range(batches)]
    total: collections.Counter[str] = collections.Counter()
    findings: list[tuple[str, str, bytes]] = []
    with multiprocessing.Pool(args.jobs) as pool:
        for counts, found in pool.imap_unordered(_worker, work):
            total.update(counts)
            findings.extend(found)
    elapsed = time.perf_counter() - started
    runs = sum(total.values())
    setup = f"{len(seeds)} seeds, seed {args.seed}, {args.jobs} jobs"
    setup += ", all lazy" if args.all_lazy else ""
    print(f"inputs run: {runs:,} in {elapsed:.0f} s ({setup})")
    for verdict, n in sorted(total.items()):
        print(f"  {verdict:<24} {n:>10,}")
    if findings:
        args.out.mkdir(parents=True, exist_ok=True)
        for i, (verdict, cls_name, data) in enumerate(findings[:50]):
            (args.out / f"{i:03d}-{verdict.replace(':', '-')}-{cls_name}.bin").write_bytes(data)
        print(f"{len(findings)} findings written to {args.out}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
