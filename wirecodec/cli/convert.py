"""Convert a model between layouts: one file, external data files, a zip container, or
weights in a safetensors file.

Says what it wrote: the output, how many tensors moved out to data files and where,
and what stayed in the model (tensors under --size-threshold, and Constant nodes' values
unless --convert-attribute). SRC may be a URL.

Where data goes: to another file, convert writes a copy that stands alone, with new
data files beside DST (DST.data, or a fresh DST.N.data when that name is taken: no
existing file is written over). In place (DST is SRC), tensors already in a data file
stay there, unread, and only the model is rewritten. No file is deleted: a data file
the new model no longer uses stays (another model may point into it).

Memory stays small whatever the size of the weights: the source is streamed and its
tensor bytes are copied file to file. Progress (bytes, rate, time left) is shown on
standard error when it is a terminal (``--quiet``: never). ``--json`` prints what was
written (docs/cli.md has the keys) instead of the lines.

    wirecodec convert big.onnx split.onnx --to external --max-shard-size 2G
    wirecodec convert split.onnx big.onnx --to single
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
import time
from typing import IO, Any

from wirecodec.cli.common import CliError, UsageError, describe_error, open_model, print_json
from wirecodec.cli.facts import is_external, tensor_facts
from wirecodec.cli.inspect import model_tensors
from wirecodec.errors import WireCodecError
from wirecodec.files.convert import convert
from wirecodec.files.integrity import refuse_bad_crc

HELP = "convert a model between single-file, external-data and zip layouts"

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def byte_count(text: str) -> int:
    """``4096``, ``64K``, ``512M``, ``2G`` (powers of 1024; an optional ``B``/``iB``)."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)(?:I?B)?\s*", text.upper())
    if match is None:
        raise argparse.ArgumentTypeError(f"not a byte count: {text!r} (e.g. 4096, 64K, 512M, 2G)")
    return int(match.group(1)) * _UNITS[match.group(2)]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="SRC",
        help="the model to read: .onnx, .onnxz, an https:// URL, or - for standard input",
    )
    parser.add_argument("dst", metavar="DST", help="where to write the converted model")
    parser.add_argument(
        "--to",
        required=True,
        choices=("single", "external", "zip", "safetensors"),
        help="the layout to write: single (one .onnx), external (weights in DST.data), zip (an "
        ".onnxz container), safetensors (weights in DST's .safetensors, which PyTorch reads too)",
    )
    parser.add_argument(
        "--location",
        help="external data file name, relative to DST (default: DST.data, or DST.N.data when taken)",
    )
    parser.add_argument(
        "--size-threshold",
        type=byte_count,
        default=1024,
        metavar="N",
        help="tensors smaller than N bytes stay inline (default 1024, as onnx: shapes, axes and "
        "scalars stay readable in the model, and a data file is not read for a few bytes)",
    )
    parser.add_argument(
        "--all-tensors",
        dest="size_threshold",
        action="store_const",
        const=0,
        help="move every tensor, however small (--size-threshold 0): with --to safetensors the "
        "file is then the complete state dict",
    )
    files = parser.add_mutually_exclusive_group()
    files.add_argument(
        "--one-file",
        dest="one_file",
        action="store_true",
        default=True,
        help="all external tensors in one file (default)",
    )
    files.add_argument("--file-per-tensor", dest="one_file", action="store_false", help="one file per tensor")
    parser.add_argument(
        "--max-shard-size",
        type=byte_count,
        metavar="N",
        help="split external data into files of at most N bytes",
    )
    parser.add_argument(
        "--convert-attribute",
        action="store_true",
        help="--to external: move attribute tensors too (Constant values), as onnx's option",
    )
    parser.add_argument(
        "--align",
        type=byte_count,
        metavar="N",
        help="align payloads to N bytes (default 4096 external, 64 zip)",
    )
    parser.add_argument("--json", action="store_true", help="print what was written as JSON (docs/cli.md)")


class Progress:
    """``1.2 GiB / 2.4 GiB  50%  310 MiB/s  ETA 4s`` on one line of a terminal, redrawn
    at most every ``interval`` seconds."""

    def __init__(self, out: IO[str], interval: float = 0.2) -> None:
        self.out = out
        self.interval = interval
        self.started = time.monotonic()
        self.shown = 0.0
        self.drawn = False
        self.complete = False  # the 100% line is drawn as soon as it is reached

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        complete = done >= total
        if now - self.shown < self.interval and not (complete and not self.complete):
            return
        self.complete = complete
        self.shown = now
        elapsed = max(now - self.started, 1e-6)
        rate = done / elapsed
        left = (total - done) / rate if rate > 0 else 0.0
        percent = 100 * done / total if total else 100.0
        line = f"{_size(done)} / {_size(total)}  {percent:3.0f}%  {_size(int(rate))}/s  ETA {left:.0f}s"
        self.out.write("\r" + line.ljust(60))
        self.out.flush()
        self.drawn = True

    def finish(self) -> None:
        if self.drawn:
            self.out.write("\n")
            self.out.flush()


def _size(n: int) -> str:
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def run(args: argparse.Namespace) -> int:
    if args.convert_attribute and args.to not in ("external", "safetensors"):
        raise UsageError("--convert-attribute goes with --to external or --to safetensors")
    # read errors name SRC; a pipe is spooled beside OUT, the one place this verb writes
    spool = pathlib.Path(args.dst).resolve().parent
    opened = open_model(args.model, options=args, load_external_data=False, streamed=True, spool_dir=spool)
    try:
        refuse_bad_crc(opened)  # every entry is copied whole: a corrupt one must not pass on
    except WireCodecError as exc:
        raise CliError(describe_error(opened.label, exc)) from None
    shown = not args.quiet and not args.json and sys.stderr.isatty()  # never in a script's output
    progress = Progress(sys.stderr) if shown else None
    try:
        convert(
            opened,
            args.dst,
            to=args.to,
            location=args.location,
            size_threshold=args.size_threshold,
            all_tensors_to_one_file=args.one_file,
            max_shard_size=args.max_shard_size,
            align=args.align,
            progress=progress,
            convert_attribute=args.convert_attribute,
        )
    except OSError as exc:
        if isinstance(exc, WireCodecError):
            raise
        raise CliError(describe_error(args.dst, exc)) from None
    except NotImplementedError as exc:
        print(f"wirecodec convert: {exc}", file=sys.stderr)
        return 1
    except ValueError as exc:
        if isinstance(exc, WireCodecError):
            raise  # a bad model: reported (exit code 1) by the command line's main
        print(f"wirecodec convert: {exc}", file=sys.stderr)  # options that do not go together
        return 2
    finally:
        if progress is not None:
            progress.finish()
    lines, facts = _report(args)
    if args.json:
        print_json({"model": opened.label, **facts})
    else:
        for line in lines:
            print(line)
    return 0


def _report(args: argparse.Namespace) -> tuple[list[str], dict[str, Any]]:
    """What was written: the output's size and layout, the tensors moved out (and where),
    and what stayed in the model and why (small tensors; Constant values, moved only when
    asked). Read back from DST's structure: it says what is there, not what was meant.
    The lines printed, and the same as the ``--json`` keys."""
    written = open_model(args.dst, options=args, load_external_data=False, check_safetensors=False)
    lines = [f"wrote {args.dst} ({written.size:,} bytes, {written.layout})"]
    facts: dict[str, Any] = {
        "out": str(args.dst),
        "bytes": written.size,
        "layout": written.layout,
        "tensors_moved": 0,
        "bytes_moved": 0,
        "data_files": [],
        "weights_inline": 0,
    }
    if args.to not in ("external", "safetensors"):
        return lines, facts
    moved = [tensor_facts(tensor) for tensor in written.external_tensors()]
    inline = [
        (path, tensor_facts(tensor))
        for path, tensor, weight in model_tensors(written.model)
        if weight and not is_external(tensor)
    ]
    files = sorted({facts.location for facts in moved if facts.location})
    stored = sum(facts.nbytes for facts in moved)
    where = f" to {', '.join(files)}" if files else ""
    lines.append(f"{len(moved)} tensors moved ({stored:,} bytes){where}; {len(inline)} weights left inline")
    facts.update(tensors_moved=len(moved), bytes_moved=stored, data_files=files, weights_inline=len(inline))
    threshold = args.size_threshold
    constants = [path for path, facts in inline if ".attribute[" in path and facts.nbytes >= threshold]
    if constants and not args.convert_attribute:
        lines.append(
            f"{len(constants)} weights of {threshold:,} bytes or more are Constant nodes' values "
            "and stayed in the model; add --convert-attribute to move them"
        )
    small = [path for path, facts in inline if facts.nbytes < threshold]
    if small and args.to == "safetensors":
        lines.append(
            f"{len(small)} tensors under {threshold:,} bytes stayed inline; "
            "--all-tensors (or --size-threshold 0) puts every one in the safetensors file"
        )
    return lines, facts
