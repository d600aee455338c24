"""Differential fuzzing against protobuf (upb): mutate valid ONNX files, compare verdicts.

    python fuzz/differential.py --count 1000000 --jobs 2 --seed 1

For every mutated input: wirecodec and upb must agree on accept vs reject; when both
accept, ``wirecodec.encode(decode(x))`` must equal upb's ``SerializeToString()`` (both as
re-emitted source bytes, wirecodec.protobuf.origin, and encoded field by field); and
wirecodec may raise only its documented errors (``WireCodecError``). Seeds are the onnx
backend corpus (models and data files). Any finding is written, minimised, under
``--out`` and counted; the exit status is 1 if there was any.

Deferred elements (small elements of repeated message fields, which lazy decoding only
validates) are rare in the corpus and tiny, so uniform mutations seldom touch them. Half
the inputs therefore come from seeds that have some, with the first mutation placed in
the payload of one, or cutting one short with its lengths kept right (``--untargeted``
turns this off); the run reports how many inputs had their first mutation land inside a
deferred element.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import pathlib
import random
import sys
import time
from collections.abc import Sequence
from typing import Any, NamedTuple

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import wirecodec  # noqa: E402
from fuzz._common import make_all_lazy  # noqa: E402
from schema_dsl import Kind, Message, WireType  # noqa: E402
from tests.support.reference import backend_corpus, message_class, pb_class  # noqa: E402
from wirecodec.protobuf.lazy import DEFAULT, EVERY_ELEMENT, Thresholds  # noqa: E402
from wirecodec.protobuf.wire import encode_varint, read_varint, skip_field  # noqa: E402

Seed = tuple[str, bytes]

# Of the inputs whose seed has deferred elements, the share drawn to mutate inside one.
TARGET_SHARE = 0.5


def _varint_at(data: bytes, pos: int) -> tuple[int, int] | None:
    value, shift = 0, 0
    for i in range(pos, min(len(data), pos + 10)):
        value |= (data[i] & 0x7F) << shift
        shift += 7
        if data[i] < 0x80:
            return value, i + 1
    return None


class Deferred(NamedTuple):
    """An element lazy decoding would defer: its payload ``[start, stop)`` and the positions of
    the length prefixes around it, outermost first, its own last."""

    start: int
    stop: int
    lengths: tuple[int, ...]


def deferred_elements(cls: type[Message], data: bytes, thresholds: Thresholds) -> list[Deferred]:
    """Where the elements lazy decoding with ``thresholds`` would defer lie in a valid ``data``.

    Worked out from the schema and the rule of wirecodec.protobuf.lazy: an element of a
    repeated message field waits if its payload is under ``small`` bytes and it is not
    among the first ``eager_first`` of its field (nor the first: gen_decode always decodes
    a field's first element at once, see tests/unit/protobuf/test_lazy_agreement.py). Every sub-message
    inside a waiting element is listed too (after it), since its validator checks them.
    """
    found: list[Deferred] = []
    _walk(cls, data, 0, len(data), thresholds, (), found, False)
    return found


def _walk(
    cls: type[Message],
    data: bytes,
    pos: int,
    end: int,
    thresholds: Thresholds,
    lengths: tuple[int, ...],
    found: list[Deferred],
    inside: bool,
) -> None:
    by_number = cls.__schema__.by_number
    seen: dict[int, int] = {}
    while pos < end:
        tag, pos = read_varint(data, pos, end)
        spec = by_number.get(tag >> 3)
        if spec is None or spec.kind is not Kind.MESSAGE or tag & 7 != WireType.LEN:
            pos = skip_field(data, tag, pos, end, 100)
            continue
        length_at = pos
        length, pos = read_varint(data, pos, end)
        stop = pos + length
        index = seen.get(spec.number, 0)
        seen[spec.number] = index + 1
        waits = inside or (
            spec.repeated and length < thresholds.small and index >= max(thresholds.eager_first, 1)
        )
        if waits:
            found.append(Deferred(pos, stop, (*lengths, length_at)))
        _walk(spec.message_type, data, pos, stop, thresholds, (*lengths, length_at), found, waits)
        pos = stop


def cut_short(data: bytearray, element: Deferred, count: int) -> None:
    """Drop the last ``count`` bytes of ``element``'s payload and shrink every length around it,
    so the input stays well framed and only the element itself is truncated."""
    del data[element.stop - count : element.stop]
    shrink = count
    for at in reversed(element.lengths):  # innermost first: outer prefixes lie before, unmoved
        value, end = read_varint(data, at, len(data))
        new = encode_varint(value - shrink)
        data[at:end] = new
        shrink += (end - at) - len(new)


def mutate(data: bytes, rng: random.Random, targets: Sequence[Deferred] = ()) -> bytes:
    """One to three structural or byte-level mutations (see :func:`mutate_tracked`)."""
    return mutate_tracked(data, rng, targets)[0]


def mutate_tracked(data: bytes, rng: random.Random, targets: Sequence[Deferred] = ()) -> tuple[bytes, int]:
    """One to three mutations, and the position of the first.

    With ``targets`` (elements with a payload), the first mutation falls inside one of
    them: a quarter of the time it cuts the element short by one to eight bytes, keeping
    every length right (what a validator checking fewer bytes than the decoder would let
    through), otherwise it is one of the byte-level mutations below. Without ``targets``,
    the random draws are the same as they always were (fixed-seed runs repeat).
    """
    out = bytearray(data)
    first = -1
    for step in range(rng.randint(1, 3)):
        if not out:
            out += bytes([rng.randrange(256)])
            continue
        if step == 0 and targets:
            element = rng.choice(targets)
            if rng.random() < 0.25:
                first = element.stop - 1
                cut_short(out, element, rng.randint(1, min(8, element.stop - element.start)))
                continue
            i = rng.randrange(element.start, element.stop)
        else:
            i = rng.randrange(len(out))
        if step == 0:
            first = i
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
    return bytes(out), first


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
        again = wirecodec.encode(mine)  # the source bytes where they are canonical
        walked = wirecodec.encode(mine, reuse_source=False)  # every field, whatever the source
    except Exception as exc:
        return f"crash-encode:{type(exc).__name__}"
    expected = theirs.SerializeToString()
    return "both-accept" if again == expected == walked else "reencode-mismatch"


Finding = tuple[str, str, bytes]
WorkerArgs = tuple[list[Seed], int, int, bool, bool]


def _inside(position: int, elements: Sequence[Deferred]) -> bool:
    return any(e.start <= position < e.stop for e in elements)


def _worker(args: WorkerArgs) -> tuple[collections.Counter[str], list[Finding], int]:
    seeds, count, seed, all_lazy, targeted = args
    if all_lazy:
        make_all_lazy()
    thresholds = EVERY_ELEMENT if all_lazy else DEFAULT
    deferred = [deferred_elements(message_class(name), data, thresholds) for name, data in seeds]
    # Empty elements have no byte to mutate; their records are their parents' bytes.
    targets = [[e for e in found if e.stop > e.start] for found in deferred]
    with_targets = [i for i, found in enumerate(targets) if found]
    rng = random.Random(seed)
    counts: collections.Counter[str] = collections.Counter()
    findings: list[tuple[str, str, bytes]] = []
    landed = 0
    for _ in range(count):
        if targeted and with_targets and rng.random() < TARGET_SHARE:
            at = rng.choice(with_targets)
            mutated, first = mutate_tracked(seeds[at][1], rng, targets[at])
        else:
            at = rng.randrange(len(seeds))
            mutated, first = mutate_tracked(seeds[at][1], rng)
        cls_name = seeds[at][0]
        landed += _inside(first, deferred[at])
        verdict = check(cls_name, mutated)
        counts[verdict] += 1
        if verdict not in ("both-accept", "both-reject") and len(findings) < 20:
            findings.append((verdict, cls_name, mutated))
    return counts, findings, landed


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
    parser.add_argument(
        "--untargeted", action="store_true", help="mutate anywhere (not half the time in deferred elements)"
    )
    args = parser.parse_args()
    seeds = load_seeds()
    started = time.perf_counter()
    batches = max(args.jobs * 8, 1)
    per_batch = -(-args.count // batches)
    targeted = not args.untargeted
    work = [(seeds, per_batch, args.seed * 100_003 + i, args.all_lazy, targeted) for i in range(batches)]
    total: collections.Counter[str] = collections.Counter()
    findings: list[tuple[str, str, bytes]] = []
    landed = 0
    with multiprocessing.Pool(args.jobs) as pool:
        for counts, found, inside in pool.imap_unordered(_worker, work):
            total.update(counts)
            findings.extend(found)
            landed += inside
    elapsed = time.perf_counter() - started
    runs = sum(total.values())
    setup = f"{len(seeds)} seeds, seed {args.seed}, {args.jobs} jobs"
    setup += ", all lazy" if args.all_lazy else ""
    setup += ", untargeted" if args.untargeted else ""
    print(f"inputs run: {runs:,} in {elapsed:.0f} s ({setup})")
    share = 100 * landed / runs if runs else 0.0
    print(f"  first mutation inside a deferred element: {landed:,} ({share:.1f}%)")
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
