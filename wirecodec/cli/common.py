"""What several verbs share: the bundled example, opening a model, JSON output, errors.

Exit codes for every verb: 0 ok, 1 a problem was found (a bad model, a missing file,
models that differ), 2 a usage error (arguments that do not make sense, or that ask
for something the model does not have). Verbs raise :class:`CliError` (or
:class:`UsageError`) and :func:`wirecodec.cli.main` prints it on standard error.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import re
import sys
from typing import IO, TYPE_CHECKING, Any, Final, cast

from wirecodec.cli.integrity import refuse_bad_crc, refuse_lying_safetensors
from wirecodec.cli.sniff import HEAD, looks_like
from wirecodec.errors import ContainerError, DecodeError, RemoteError, WireCodecError
from wirecodec.files.base.source import STDIN, classify
from wirecodec.files.opener import Opened
from wirecodec.files.opener import open_model as _open

if TYPE_CHECKING:
    from wirecodec.files.remote.source import RemoteOptions

__all__ = [
    "EXAMPLE",
    "JSON_VERSION",
    "STDIN",
    "CliError",
    "Opened",
    "UsageError",
    "add_model_argument",
    "add_output_layout_arguments",
    "add_remote_arguments",
    "describe_error",
    "open_model",
    "print_json",
    "read_stdin",
]

EXAMPLE: Final = pathlib.Path(__file__).parent.parent / "examples" / "mlp.onnx"
JSON_VERSION: Final = 1
"""The ``version`` of every verb's ``--json`` output; raised when a key changes meaning or goes."""

SMALL_MODEL: Final = 8 << 20
"""A model file by URL of at most this many bytes is fetched whole by the verbs (two
requests: the first learns its size), rather than its headers walked by ranges (tens of
requests, each a round trip). A larger one has its structure fetched by ranges and
its tensors when read."""

CACHE_BLOCKS: Final = 1024
"""Blocks of a larger model by URL the verbs keep (32 MiB at most, of what was read): the
walk of a model with hundreds of tensors reads a block per header, and the structure
between payloads is then filled from those blocks, not fetched again (RemoteOptions
keeps 64 by default)."""

MODEL_HELP: Final = "an .onnx file, an .onnxz container, an https:// URL, or - for standard input"

class CliError(Exception):
    """A failure to report on standard error (no traceback); ``code`` is the exit code."""

    code = 1

    def __init__(self, message: str) -> None:
        self.message = message
        super().__init__(message)


class UsageError(CliError):
    """The command line asks for something that cannot be done (exit code 2)."""

    code = 2


def add_model_argument(
    parser: argparse.ArgumentParser, *, name: str = "model", default: str | None = None
) -> None:
    """The MODEL argument, declared alike by every verb (``default``: optional, with that value)."""
    if default is None:
        parser.add_argument(name, metavar=name.upper(), help=MODEL_HELP)
    else:
        parser.add_argument(
            name,
            metavar=name.upper(),
            nargs="?",
            default=default,
            help=MODEL_HELP + " (default: the example)",
        )


def add_output_layout_arguments(parser: argparse.ArgumentParser) -> None:
    """``--external-data`` / ``--single-file`` for verbs that write a new model as onnx writes
    it (``args.external_data``: True, False, or None for onnx's rule, external only past 2 GiB)."""
    layout = parser.add_mutually_exclusive_group()
    layout.add_argument(
        "--external-data",
        dest="external_data",
        action="store_const",
        const=True,
        help="tensors of 1 KiB or more to OUT.data (default: only past 2 GiB, as onnx)",
    )
    layout.add_argument(
        "--single-file", dest="external_data", action="store_const", const=False, help="one file of any size"
    )


def add_remote_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of every verb for models by URL (docs/remote.md)."""
    group = parser.add_argument_group("models by URL (https://, or s3:// and the like with fsspec)")
    group.add_argument(
        "--allow-full-download",
        action="store_true",
        help="read a model even from a server that ignores Range requests (downloads all of it)",
    )
    group.add_argument(
        "--timeout", type=float, default=30.0, metavar="SECONDS", help="per connection and read (default 30)"
    )
    group.add_argument(
        "--retries", type=int, default=3, metavar="N", help="tries again after transient failures (default 3)"
    )


# The verb's options that say how a model is read by URL (add_remote_arguments).
_REMOTE_OPTIONS: Final = ("timeout", "retries", "allow_full_download")


def _remote(options: argparse.Namespace | None) -> RemoteOptions:
    """How a URL is read for a verb: its parsed options, checked (and the remote modules
    imported) only when a URL is opened."""
    from wirecodec.files.remote.source import RemoteOptions  # only when a URL is opened

    given = {key: getattr(options, key) for key in _REMOTE_OPTIONS if hasattr(options, key)}
    try:
        return RemoteOptions(whole_below=SMALL_MODEL, cache_blocks=CACHE_BLOCKS, **given)
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def describe_error(label: str, exc: BaseException) -> str:
    """One line naming what failed and why: ``model.onnx: DecodeError: ...``.

    An ``OSError`` names the file it is about (``filename``) when it knows it: a verb
    writing ``out.onnx`` must not blame the model it read.
    """
    if isinstance(exc, WireCodecError):
        return f"{label}: {type(exc).__name__}: {exc}"
    if isinstance(exc, OSError):
        name = exc.filename if exc.filename is not None else label
        target = _written_as(name)
        if target is not None:  # the temporary file a write goes through: name what was asked for
            if isinstance(exc, FileNotFoundError) and not target.parent.is_dir():
                return f"{target}: cannot write it: the folder {target.parent} does not exist"
            return f"{target}: {exc.strerror or exc}"
        if isinstance(exc, IsADirectoryError):
            return f"{name}: is a directory, not a model file"
        return f"{name}: {exc.strerror or exc}"
    return f"{label}: {exc}"


_TEMPORARY: Final = re.compile(r"\.(?P<name>.+)\.[A-Za-z0-9_]{6,}\.tmp")
"""How the files layer names the temporary file a write goes through (``.NAME.XXXXXXXX.tmp``
beside NAME, renamed into place when complete)."""


def _written_as(name: object) -> pathlib.Path | None:
    """The file a temporary file named ``name`` was to become, or None if it is no such file."""
    if not isinstance(name, (str, pathlib.PurePath)):
        return None
    path = pathlib.Path(name)
    found = _TEMPORARY.fullmatch(path.name)
    return path.with_name(found["name"]) if found else None


def read_stdin(stream: IO[bytes] | None = None) -> bytes:
    """Every byte of standard input (binary)."""
    return (stream or sys.stdin.buffer).read()


def open_model(
    source: str | pathlib.Path,
    *,
    options: argparse.Namespace | None = None,
    load_external_data: bool = True,
    streamed: bool = False,
    spool_dir: str | pathlib.Path | None = None,
    check_safetensors: bool = True,
    payloads: bool = True,
) -> Opened:
    """Open the model at ``source`` (a path, a container, a URL, or ``-``) through the one opener.

    With ``load_external_data`` every reference (data files, container entries) is
    resolved into ``raw_data`` views; without, the references stay and ``Opened.data``
    answers for them. ``streamed`` and ``spool_dir`` (where a pipe's payloads may be spooled,
    for a verb that writes there) as for :func:`wirecodec.files.opener.open_model`. A verb
    that reads ``payloads`` gets a long pipe's spooled (to the system's temporary folder
    unless ``spool_dir`` says where: a file deleted as soon as it is closed, so nothing is
    left behind whatever happens); a verb that reads only the structure passes them by.
    A safetensors data file whose header lies is refused (``check_safetensors``; reads
    only headers), and loading a container's data refuses an entry whose bytes do not
    match their CRC-32 (every entry is read then anyway).
    ``options`` are the verb's parsed arguments: a URL is read with their URL options
    (``--timeout``, ``--retries``, ``--allow-full-download``), else with the defaults.
    Any failure is a :class:`CliError` naming the right file, never a traceback.
    """

    label = "<stdin>" if str(source) == STDIN else str(source)
    # "-" and URLs stay strings; anything else is a path (even one named like an option).
    kind = classify(str(source))
    url = kind == "url"
    given = str(source) if kind in ("stdin", "url") else pathlib.Path(source)
    remote = _remote(options) if url else None
    # A pipe is read once: its first bytes are kept as they pass, for the same diagnosis
    # (HTML, .npy, gzip...) as a path gets by reading its head again.
    pipe = _HeadKeeper(sys.stdin.buffer) if given == STDIN else None
    if spool_dir is None and payloads:
        import tempfile  # only here: it imports shutil and random

        spool_dir = tempfile.gettempdir()
    try:
        stdin = cast("IO[bytes] | None", pipe)
        opened = _open(given, streamed=streamed, remote=remote, spool_dir=spool_dir, stdin=stdin)
        if check_safetensors:
            refuse_lying_safetensors(opened)
        if load_external_data:
            refuse_bad_crc(opened)
            opened.resolve_external()
    except (WireCodecError, OSError) as exc:
        what = _looks_like(given, exc, pipe.head if pipe is not None else None, remote)
        if what is not None:
            raise CliError(f"{label}: not an ONNX model: this looks like {what}") from None
        raise CliError(describe_error(label, exc)) from None
    return opened


class _HeadKeeper:
    """A pipe that keeps the first :data:`HEAD` bytes read from it (``head``)."""

    def __init__(self, pipe: IO[bytes]) -> None:
        self._pipe = pipe
        self.head = b""

    def read(self, size: int = -1) -> bytes:
        data = self._pipe.read(size)
        if len(self.head) < HEAD:
            self.head += data[: HEAD - len(self.head)]
        return data


def _looks_like(
    given: str | pathlib.Path,
    exc: BaseException,
    piped: bytes | None = None,
    remote: RemoteOptions | None = None,
) -> str | None:
    """What the input that failed to open as a model looks like (a text file, HTML, a
    safetensors file...), when that says more than the decoder's error; else None.
    ``piped``: the first bytes of a pipe that was read (it cannot be read again)."""
    try:
        if isinstance(exc, RemoteError) and isinstance(given, str) and "ignores Range" in str(exc):
            return _url_looks_like(given, remote or _remote(None))
        if not isinstance(exc, (DecodeError, ContainerError)):
            return None
        if piped is not None:
            head = piped
        elif not isinstance(given, pathlib.Path) or not given.is_file():
            return None  # a URL, or a pipe given by name: its bytes are gone
        else:
            with given.open("rb") as file:
                head = file.read(HEAD)
        if head.startswith(b"PK") and _ours(head, piped is not None, given):
            return None  # our container, damaged: its own error says how
        return looks_like(head)
    except (OSError, ValueError):
        return None


def _ours(head: bytes, piped: bool, given: str | pathlib.Path) -> bool:
    """Whether a zip archive is an .onnxz container (a pipe: its head names the entry)."""
    return b"__MODEL_PROTO" in head if piped else _holds_model_entry(pathlib.Path(given))


def _holds_model_entry(path: pathlib.Path) -> bool:
    import zipfile

    try:
        with zipfile.ZipFile(path) as archive:
            return "__MODEL_PROTO" in archive.namelist()
    except (zipfile.BadZipFile, OSError):
        return True  # a damaged archive: say nothing beyond the container's own error


def _url_looks_like(url: str, remote: RemoteOptions) -> str | None:
    """A server that ignores Range answers with the whole body: read only its start."""
    from wirecodec.files.remote.http_client import first_bytes  # the one HTTP client

    kind, head = first_bytes(url, remote, HEAD)
    if kind == "text/html":
        return "an HTML page (a directory listing? give the URL of the .onnx file)"
    return looks_like(head)


def print_json(value: dict[str, Any], stream: IO[str] | None = None) -> None:
    """``value`` with the output ``version`` first, as indented JSON on standard output."""
    out = stream or sys.stdout
    json.dump({"version": JSON_VERSION, **value}, out, indent=2, ensure_ascii=False)
    out.write("\n")
