"""Make corpora for fuzzing ONNX parsers, and run them through several parsers.

  wirecodec fuzz rewrite MODEL... -n N -o DIR [--seed S] [--kinds K ...]
  wirecodec fuzz invalid MODEL... -n N -o DIR [--seed S] [--kinds K ...]
  wirecodec fuzz mutate  MODEL... -n N -o DIR [--seed S] [--moves M ...]
  wirecodec fuzz compare DIR --parser onnx --parser 'CMD {}' [--json]

ACTION is rewrite when not given. rewrite writes N re-encodings of each model that
every correct parser must read as the same model (fields reordered, packed runs
unpacked or split, earlier values of a singular field, sub-messages in pieces,
overlong varints, padded lengths, unknown fields); invalid writes N encodings every
parser must refuse; mutate writes N structure-aware mutations (ONNX-aware moves
included). Each MODEL may be any layout wirecodec opens (one file, external data, an
.onnxz container, -): its tensors are read in, and every output is one
self-contained file. DIR also gets each model as it was (MODEL.orig.onnx) and
fuzz-manifest.json naming where each file came from.

compare runs every file of DIR through every parser, each in its own process with a
timeout, and classifies accept / reject / crash / timeout. It reports crashes,
timeouts, parsers disagreeing on a file (parsed or not, or the model they read), and,
from the manifest, any rewrite whose result under a parser differs from that
parser's result on the original. Exit code 1 when there is any, naming the files.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from typing import Any

from wirecodec.cli.common import MODEL_HELP, UsageError, open_model, print_json
from wirecodec.cli.progress import Status, status

HELP = "write fuzzing corpora (rewrite, invalid, mutate) and compare parsers on them"

_MAKERS = ("rewrite", "invalid", "mutate")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        nargs="+",
        metavar="[ACTION] MODEL",
        help=f"rewrite (default), invalid, mutate or compare; then {MODEL_HELP} (several allowed), "
        "or for compare the directory",
    )
    made = parser.add_argument_group("rewrite, invalid, mutate")
    made.add_argument("-n", type=int, default=10, metavar="N", help="files per model (default 10)")
    made.add_argument("-o", "--output", metavar="DIR", help="directory to write (created)")
    made.add_argument("--seed", type=int, default=0, help="first seed (default 0); file i uses seed+i")
    made.add_argument(
        "--kinds", nargs="+", metavar="KIND", help="rewrite/invalid: only these kinds (default: a mix)"
    )
    made.add_argument("--moves", nargs="+", metavar="MOVE", help="mutate: only these moves (default: all)")
    made.add_argument(
        "--invalid-enums", action="store_true", help="mutate: enum fields may take undeclared values"
    )
    compared = parser.add_argument_group("compare")
    compared.add_argument(
        "--parser",
        action="append",
        metavar="PARSER",
        help="onnx, onnxruntime, wirecodec, or a command with {} for the file (exit 0 = accept)",
    )
    compared.add_argument(
        "--time-limit", type=float, default=30.0, metavar="SECONDS", help="per file and parser (default 30)"
    )
    compared.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="parser processes at once (default 1)"
    )
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def run(args: argparse.Namespace) -> int:
    words = list(args.model)
    args.action = words.pop(0) if words[0] in (*_MAKERS, "compare") else "rewrite"
    args.model = words
    if not words:
        raise UsageError(f"{args.action} needs {'a directory' if args.action == 'compare' else 'a model'}")
    if args.action == "compare":
        if len(words) != 1 or not args.parser:
            raise UsageError("compare takes one directory and at least one --parser")
        return _compare(args)
    if args.output is None:
        raise UsageError(f"{args.action} needs -o DIR")
    return _make(args)


def _stem(label: str, index: int, seen: set[str]) -> str:
    name = pathlib.Path(label).name if label != "-" else "stdin"
    for suffix in (".onnxz", ".onnx"):
        name = name.removesuffix(suffix)
    stem = name or "model"
    if stem in seen:
        stem = f"{stem}-{index}"
    seen.add(stem)
    return stem


def _model_bytes(source: str, options: argparse.Namespace) -> bytes:
    """The model as one self-contained encoding: its own bytes for a single file, else
    re-encoded with every tensor's data read in."""
    from wirecodec.protobuf.codec import encode

    opened = open_model(source, options=options)
    if opened.layout == "single" and opened.original is not None:
        return bytes(opened.original)
    return encode(opened.model)


def _make(args: argparse.Namespace) -> int:
    from wirecodec.fuzz.compare import MANIFEST

    if args.n < 1:
        raise UsageError("-n must be at least 1")
    out = pathlib.Path(args.output)
    manifest_path = out / MANIFEST
    manifest: dict[str, Any] = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    seen: set[str] = set()
    written = 0
    with status(args) as shown:
        for index, source in enumerate(args.model):
            written += _make_from(args, index, source, out, manifest, seen, shown)
    manifest_path.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    if args.json:
        print_json({"directory": str(out), "written": written, "models": len(args.model)})
    else:
        print(f"{out}: {written} files from {len(args.model)} model(s) ({args.action}), manifest {MANIFEST}")
    return 0


def _make_from(
    args: argparse.Namespace,
    index: int,
    source: str,
    out: pathlib.Path,
    manifest: dict[str, Any],
    seen: set[str],
    shown: Status,
) -> int:
    """Write ``args.n`` files made from the model ``source``; returns how many."""
    from wirecodec.errors import WireCodecError
    from wirecodec.fuzz import invalid, mutate, rewrite

    written = 0
    data = _model_bytes(source, args)
    out.mkdir(parents=True, exist_ok=True)  # only once a model could be read
    stem = _stem(source, index, seen)
    origin = f"{stem}.orig.onnx"
    (out / origin).write_bytes(data)
    manifest[origin] = {"from": origin, "source": source}
    for i in range(args.n):
        seed = args.seed + i
        try:
            if args.action == "rewrite":
                result = rewrite(data, seed=seed, kinds=args.kinds)
            elif args.action == "invalid":
                result = invalid(data, seed=seed, kinds=args.kinds)
            else:
                result = mutate(data, seed=seed, moves=args.moves, valid_enums=not args.invalid_enums)
        except WireCodecError as exc:
            raise UsageError(f"{source}: {exc}") from None
        name = f"{stem}.{args.action}-{seed}.onnx"
        shown.count(i + 1, args.n, name)
        (out / name).write_bytes(result)
        entry: dict[str, Any] = {"from": origin, "action": args.action, "seed": seed, "source": source}
        if args.action != "rewrite":
            entry["from"] = None  # not the same model: no metamorphic comparison
            entry["origin"] = origin
        manifest[name] = entry
        written += 1
    return written


def _compare(args: argparse.Namespace) -> int:
    from wirecodec.fuzz.compare import compare, counts

    directory = pathlib.Path(args.model[0])
    if not directory.is_dir():
        raise UsageError(f"{directory}: not a directory")
    with status(args) as shown:
        shown(f"running {args.parser[0]} on {directory}")
        outcomes, findings = compare(
            directory, args.parser, timeout=args.time_limit, jobs=args.jobs, progress=shown
        )
    table = counts(outcomes)
    if args.json:
        print_json(
            {
                "directory": str(directory),
                "files": len({o.file for o in outcomes}),
                "counts": table,
                "findings": [f.to_dict() for f in findings],
                "outcomes": [o.to_dict() for o in outcomes],
            }
        )
    else:
        files = len({o.file for o in outcomes})
        print(f"{directory}: {files} files x {len(args.parser)} parsers")
        for parser, row in table.items():
            print(f"  {parser}: " + ", ".join(f"{status} {n}" for status, n in row.items()))
        for finding in findings:
            print(finding)
        print(f"{len(findings)} finding{'s' if len(findings) != 1 else ''}")
    if findings:
        names = sorted({f.file for f in findings})
        print(
            f"wirecodec fuzz: findings in {', '.join(names[:10])}{' ...' if len(names) > 10 else ''}",
            file=sys.stderr,
        )
    return 1 if findings else 0
