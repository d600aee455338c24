"""The one write-back: how every writer puts a model on disk.

``save``, ``convert``, ``infer_shapes_path``, ``utils`` and the verbs (``edit``,
``infer-shapes``, ``convert``) all call :func:`write_back`, so they agree on one rule,
**keep the layout**:

- a tensor still backed by an external data file — a reference not yet resolved, or the
  view of a data file that :func:`wirecodec.load` left in its ``raw_data`` — stays
  referenced as it was, *without being read*, when the output lands where that file
  still resolves (the same directory, or one above it); written to a ``single`` file, a
  container or safetensors, it is copied in;
- a data file is written only for the tensors that need one: tensors whose file does not
  resolve from the output (another directory), and (``move_inline``) inline tensors of at
  least ``size_threshold`` bytes. Its default name is ``<output>.data``, or a fresh
  ``<output>.N.data`` when that name is taken: an existing file is never written over;
- **nothing is deleted** that this call did not create: an in-place write of a model with
  external data rewrites the ``.onnx`` only, and a data file the new model no longer uses
  stays (another model may use it); a data file in use by the model is never replaced;
- every file is replaced atomically (:class:`~wirecodec.files.base.atomic.AtomicFiles`):
  data files first, the model last.

>>> import pathlib, tempfile
>>> import wirecodec
>>> from wirecodec.examples.build_mlp import build
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> wirecodec.save(build(), folder / "a.onnx", external_data=True, size_threshold=64)
>>> written = write_back(wirecodec.load(folder / "a.onnx"), folder / "a.onnx", "external")
>>> written.data_files, written.kept
((), ('a.onnx.data',))
>>> sorted(p.name for p in folder.iterdir())
['a.onnx', 'a.onnx.data']
"""

from __future__ import annotations

import glob
import os
import pathlib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import IO, Any, Final, Literal, cast

from schema_dsl.message import Message, shallow_copy
from schema_dsl.onnx import ModelProto, StringStringEntryProto, TensorProto
from wirecodec.errors import ExternalDataError, TensorError
from wirecodec.files.base.atomic import AtomicFiles
from wirecodec.files.base.mapping import FileOrigin, file_of
from wirecodec.files.base.options import SaveOptions
from wirecodec.files.base.raw import raw_bytes
from wirecodec.files.base.references import DATA_FIELDS, as_reference, parse_ref, uses_external_data
from wirecodec.files.base.tensor_data import TensorData
from wirecodec.files.base.walk import ByIdentity, iter_tensors, substitute, tensor_sites
from wirecodec.files.external.write import check_location, data_path, held_bytes
from wirecodec.protobuf.fieldpath import Step, parse
from wirecodec.protobuf.lazy import PendingBytes, pending_bytes, waiting_bytes
from wirecodec.protobuf.payloads import advance, stand_in, write_payload
from wirecodec.protobuf.stream_encode import BIG
from wirecodec.protobuf.stream_encode import plan as plan_encoding

__all__ = ["Layout", "Written", "where_data_went", "with_stand_ins", "write_back"]

Layout = Literal["single", "external", "zip", "safetensors"]

_SMALL_ALIGN: Final = 64  # below the page alignment, still aligned for any element type
_REFERENCE_FIELDS: Final = frozenset({*DATA_FIELDS, "external_data", "data_location"})


@dataclass(frozen=True)
class Written:
    """What :func:`write_back` put on disk: the model file, the data files it wrote
    (locations relative to the model), and the data files the model still refers to as
    they were (not read, not written)."""

    path: pathlib.Path
    data_files: tuple[str, ...] = ()
    kept: tuple[str, ...] = ()


def where_data_went(written: Written) -> str:
    """`` (with external data: w.bin kept as it was; m.onnx.data written)``, or ``""``: what
    the verbs print after ``wrote OUT``."""
    said = [f"{name} kept as it was" for name in written.kept]
    said += [f"{name} written" for name in written.data_files]
    return f" (with external data: {'; '.join(said)})" if said else ""


@dataclass
class _DataFile:
    location: str
    parts: list[tuple[int, Any]] = field(default_factory=list)  # (offset, bytes-like)
    size: int = 0


def write_back(
    model: ModelProto,
    target: str | os.PathLike[str],
    layout: Layout,
    options: SaveOptions | None = None,
    *,
    source: TensorData | None = None,
    keep: bool = True,
    move_inline: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Written:
    """Write ``model`` to ``target`` in ``layout`` by the rule of this module.

    ``source`` resolves the references the model still holds (the ``data`` of an
    :class:`~wirecodec.files.opener.Opened`); without it they are written as they are.
    ``keep=False`` copies every external tensor into the new data file even where its
    file resolves (what ``convert`` to another file does: a copy that stands alone).
    ``move_inline=False`` leaves inline tensors inline whatever their size (the verbs
    that keep a model's layout). ``options`` as :func:`wirecodec.save` takes them. The
    caller's model is not modified. ``progress(done, total)``: safetensors' own report
    (the other layouts report through :func:`~wirecodec.protobuf.payloads.report_progress`).
    """
    options = options or SaveOptions()
    path = pathlib.Path(target)
    if layout == "external":
        return _write_external(model, path, options, source, keep=keep, move_inline=move_inline)
    in_use = (
        layout == "safetensors"
        and options.location is not None
        and _reads_from(model, source, path.parent / options.location)
    )
    if in_use:
        if not keep:
            raise ExternalDataError(
                f"refusing to write {options.location!r}: the model's weights are read from it, "
                "and another model may point into it (name another location)"
            )
        # The weights are in that safetensors file already (a model converted in place):
        # it is kept as it is, and only the model is written.
        return _write_external(model, path, options, source, keep=True, move_inline=False)
    if source is not None:
        model = _resolved(model, source)
    if layout == "zip":
        from wirecodec.files.zip.container import save_zip  # only this layout needs it

        save_zip(model, path, align=options.align)
    elif layout == "safetensors":
        from wirecodec.files.safetensors.save import save_safetensors  # only this layout needs it

        save_safetensors(model, path, options, progress=progress)
    elif layout == "single":
        # A weight still to be fetched (a model by URL) is fetched as it is written, not kept.
        _commit(with_stand_ins(model), path, [], options.durable)
    else:
        raise ValueError(f"layout must be 'single', 'external', 'zip' or 'safetensors', got {layout!r}")
    return Written(path)


def with_stand_ins(model: ModelProto) -> ModelProto:
    """``model`` with each tensor whose ``raw_data`` waits to be fetched (a model by URL)
    replaced by a copy holding a stand-in (:func:`~wirecodec.protobuf.payloads.stand_in`):
    written as a single file, each such tensor is fetched as it is written and not kept."""
    replacements: ByIdentity[TensorProto] = ByIdentity()
    for tensor in iter_tensors(model):
        waiting = waiting_bytes(tensor, "raw_data")
        # Smaller payloads are batched with the structure, not written on their own: those are
        # fetched when encoded (and kept, being small).
        if waiting is not None and waiting.nbytes >= BIG:
            copy = shallow_copy(tensor, leave_out=frozenset({"raw_data"}))
            copy.raw_data = stand_in(waiting)
            replacements[tensor] = copy
    if not replacements:
        return model
    changed = substitute(model, replacements)
    assert isinstance(changed, ModelProto)
    return changed


def _resolved(model: ModelProto, source: TensorData) -> ModelProto:
    """``model`` with every reference ``source`` resolves given its bytes (views, unread)."""
    swaps: dict[str, TensorProto] = {}
    for site in tensor_sites(model):
        tensor = site.message
        assert isinstance(tensor, TensorProto)
        if uses_external_data(tensor):
            swaps[site.path] = _inline_from(tensor, source)
    changed: ModelProto = _swapped(model, swaps)
    return changed


def _inline_from(tensor: TensorProto, source: TensorData) -> TensorProto:
    """A copy of ``tensor`` holding the bytes its reference names: a view of a mapped file,
    or, from a source that fetches (a model by URL), bytes still to be fetched, which the
    layout's writer copies a piece at a time (never the whole weight held)."""
    pending = _pending(tensor, source)
    if pending is None:
        return _inline(tensor, source.view(tensor))
    copy = shallow_copy(tensor, leave_out=_REFERENCE_FIELDS)
    copy.data_type = tensor.data_type
    pending_bytes(copy, "raw_data", pending.nbytes, pending.fetch, pending.fetch_range)
    return copy


def _pending(tensor: TensorProto, source: TensorData) -> PendingBytes | None:
    """``tensor``'s referenced bytes as a payload still to be fetched, where ``source``
    fetches them (RemoteData.pending); None where they are mapped."""
    make = getattr(source, "pending", None)
    return None if make is None else cast(PendingBytes, make(tensor))


def _reads_from(model: ModelProto, source: TensorData | None, file: pathlib.Path) -> bool:
    """Whether a tensor of ``model`` refers to ``file``, or holds a view of it. A safetensors
    file is written whole: never over the file the weights come from."""
    destination = os.path.realpath(file)
    unchanged: dict[FileOrigin, bool] = {}
    for site in tensor_sites(model):
        tensor = site.message
        assert isinstance(tensor, TensorProto)
        if uses_external_data(tensor):
            found = source.place(tensor) if source is not None else None
            real = os.path.realpath(found.path) if found is not None and found.path is not None else None
        else:
            view = _file_view(tensor, unchanged)
            real = view[0].path if view is not None else None
        if real == destination:
            return True
    return False


def _inline(tensor: TensorProto, payload: Any) -> TensorProto:
    copy = shallow_copy(tensor, leave_out=_REFERENCE_FIELDS)
    copy.data_type = tensor.data_type
    copy.raw_data = payload
    return copy


def _write_external(
    model: ModelProto,
    target: pathlib.Path,
    options: SaveOptions,
    source: TensorData | None,
    *,
    keep: bool,
    move_inline: bool,
) -> Written:
    folder = target.parent
    # Exactly the inline tensors onnx's own save moves (initializers of every graph; with
    # convert_attribute, attribute tensors and functions too): onnx resolves no others.
    movable = {
        site.path
        for site in tensor_sites(
            model,
            attributes=options.convert_attribute,
            sparse=False,
            functions=options.convert_attribute,
            training=False,
        )
    }
    swaps: dict[str, TensorProto] = {}
    to_move: list[tuple[str, TensorProto, Any]] = []
    kept: set[str] = set()
    in_use: set[str] = set()  # real paths of every data file the model's tensors come from
    unchanged: dict[FileOrigin, bool] = {}
    for site in tensor_sites(model):
        tensor = site.message
        assert isinstance(tensor, TensorProto)
        from_file: pathlib.Path | None = None  # the data file whose bytes it holds
        if uses_external_data(tensor):
            if source is None:
                kept.add(parse_ref(tensor).location)  # nothing to resolve it by: as it is
                continue
            found = source.locate(tensor)  # checked (it exists, the range fits), not read
            start, length = found.start, found.end - found.start
            from_file = found.path
        else:
            view = _file_view(tensor, unchanged)
            if view is not None:
                origin, start = view
                length = len(tensor.raw_data)
                from_file = pathlib.Path(origin.path)
        if from_file is not None:
            in_use.add(os.path.realpath(from_file))
            location = _reachable(from_file, folder) if keep else None
            if location is not None:
                kept.add(location)
                if not uses_external_data(tensor) or location != parse_ref(tensor).location:
                    swaps[site.path] = as_reference(tensor, location, start, length)
                continue
        payload: Any
        if uses_external_data(tensor):
            assert source is not None  # references without one were kept above
            payload = _pending(tensor, source) or source.view(tensor)
        elif from_file is not None or (move_inline and site.path in movable):
            payload = _payload(tensor)
            if payload is None:
                continue
        else:
            continue
        # A tensor from a data file that does not resolve here keeps a data file where the
        # layout is kept (move_inline=False); otherwise the threshold decides, as for any.
        if (from_file is not None and not move_inline) or (
            (from_file is not None or site.path in movable) and len(payload) >= options.size_threshold
        ):
            to_move.append((site.path, tensor, payload))
        elif uses_external_data(tensor):
            # a container's entry (or a small fetched range) that stays inline
            inline = payload.load() if isinstance(payload, PendingBytes) else payload
            swaps[site.path] = _inline(tensor, inline)
    files = _lay_out(to_move, target, options, swaps, in_use)
    _commit(_swapped(model, swaps), target, files, options.durable)
    return Written(target, tuple(f.location for f in files), tuple(sorted(kept)))


def _payload(tensor: TensorProto) -> Any | None:
    """The bytes an inline tensor would move out, or None if it has none we can move."""
    if tensor.data_type == TensorProto.DataType.STRING:
        return None
    try:
        return raw_bytes(tensor)
    except TensorError:
        return None  # a tensor whose typed data is not a valid array stays inline, as it was


def _file_view(tensor: TensorProto, unchanged: dict[FileOrigin, bool]) -> tuple[FileOrigin, int] | None:
    """(the data file, the offset in it) when ``tensor``'s ``raw_data`` is a view of a data
    file's map and that file is still the one mapped (``unchanged`` remembers the answers)."""
    if waiting_bytes(tensor, "raw_data") is not None or not tensor.HasField("raw_data"):
        return None  # a payload still to be fetched is no file's view (and is not fetched here)
    found = file_of(tensor.raw_data)
    if found is None:
        return None
    same = unchanged.get(found[0])
    if same is None:
        same = unchanged[found[0]] = found[0].unchanged()
    return found if same else None


def _reachable(file: pathlib.Path, folder: pathlib.Path) -> str | None:
    """``file``'s location relative to ``folder`` when a model there can refer to it."""
    real, root = os.path.realpath(file), os.path.realpath(folder)
    if os.path.commonpath([real, root]) != root or real == root:
        return None
    location = pathlib.Path(os.path.relpath(real, root)).as_posix()
    try:
        check_location(location)
    except ExternalDataError:
        return None
    return location


def _lay_out(
    to_move: list[tuple[str, TensorProto, Any]],
    target: pathlib.Path,
    options: SaveOptions,
    swaps: dict[str, TensorProto],
    in_use: set[str],
) -> list[_DataFile]:
    """The new data files for the tensors that need one, and the references to them (in ``swaps``)."""
    if not to_move:
        return []
    location = options.location or _fresh_location(target)
    check_location(location)
    files: list[_DataFile] = []
    used_names = {entry.lower() for entry in _names_in(target.parent)} | {target.name.lower()}
    current: _DataFile | None = None
    shard = 0
    for path, tensor, payload in to_move:
        size = len(payload)
        if not options.all_tensors_to_one_file:
            current = _DataFile(_safe_name(tensor.name or "tensor", used_names))
            files.append(current)
        elif current is None or (
            options.max_shard_size is not None
            and current.size
            and current.size + size > options.max_shard_size
        ):
            current = _DataFile(location if options.max_shard_size is None else f"{location}.{shard}")
            if options.location is not None:
                _keep_what_it_holds(current, target.parent)
            shard += 1
            files.append(current)
        step = options.align if size >= options.align else _SMALL_ALIGN
        offset = -(-current.size // step) * step
        current.parts.append((offset, payload))
        current.size = offset + size
        swaps[path] = _reference(tensor, current.location, offset, size)
    for data_file in files:
        destination = data_path(target.parent, data_file.location)
        if os.path.normpath(destination) == os.path.normpath(target):
            raise ExternalDataError(
                f"refusing external data location {data_file.location!r}: it is the model file itself"
            )
        if os.path.realpath(destination) in in_use:
            raise ExternalDataError(
                f"refusing to write external data to {data_file.location!r}: the model's tensors "
                "are read from that file (name another location)"
            )
    return files


def _keep_what_it_holds(data_file: _DataFile, folder: pathlib.Path) -> None:
    """Start ``data_file`` with the bytes a file of its name holds already (held_bytes)."""
    held = held_bytes(data_path(folder, data_file.location), data_file.location)
    if held is not None:
        data_file.parts.append((0, held))
        data_file.size = held.nbytes


def _reference(tensor: TensorProto, location: str, offset: int, size: int) -> TensorProto:
    moved = shallow_copy(tensor, leave_out=_REFERENCE_FIELDS)
    moved.data_type = tensor.data_type
    moved.data_location = int(TensorProto.DataLocation.EXTERNAL)
    moved.external_data = [
        StringStringEntryProto(key="location", value=location),
        StringStringEntryProto(key="offset", value=str(offset)),
        StringStringEntryProto(key="length", value=str(size)),
    ]
    return moved


def _names_in(folder: pathlib.Path) -> Iterable[str]:
    try:
        return [entry.name for entry in folder.iterdir()]
    except OSError:
        return []


def _safe_name(name: str, used: set[str]) -> str:
    """A file name for a tensor's own data file, taken by no file in the directory."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", name).lstrip(".") or "tensor"
    base = base[:120]
    candidate, n = base, 1
    while candidate.lower() in used:
        n += 1
        candidate = f"{base}.{n}"
    used.add(candidate.lower())
    return candidate


def _fresh_location(target: pathlib.Path) -> str:
    """``<model>.data``, or ``<model>.N.data`` when that name (or its shards) is taken."""
    n = 0
    while True:
        name = f"{target.name}.data" if n == 0 else f"{target.name}.{n}.data"
        if not any(target.parent.glob(glob.escape(name) + "*")):
            return name
        n += 1


def _commit(model: ModelProto, target: pathlib.Path, files: list[_DataFile], durable: bool) -> None:
    """Write the data files, then the model, each to a temporary renamed into place."""
    destinations = [target.parent / f.location for f in files]
    encoding = plan_encoding(model)  # measured before any file is opened: bad values fail here
    with AtomicFiles(durable=durable) as group:
        for data_file, destination in zip(files, destinations, strict=True):
            with group.open(destination) as out:
                _write_parts(out, data_file.parts)
            # Its views go before the renames (a kept file's map among them): a file that
            # is mapped cannot be replaced on every system.
            data_file.parts.clear()
        with group.open(target) as out:
            encoding.write(out)
        group.commit()  # data files first, the model last: a model never names missing data


def _write_parts(out: IO[bytes], parts: list[tuple[int, Any]]) -> None:
    position = 0
    for offset, payload in parts:
        if offset > position:
            out.write(bytes(offset - position))
            advance(offset - position)
        write_payload(out, payload)  # file to file, or page by page: never all resident
        position = offset + len(payload)


def _swapped(root: Message, swaps: dict[str, TensorProto]) -> Any:
    """``root`` with the message at each field path of ``swaps`` replaced; only the messages
    on the way are copied (shallowly), so the caller's model is never changed."""
    if not swaps:
        return root
    return _swap(root, [(parse(path), new) for path, new in swaps.items()])


def _swap(message: Message, swaps: list[tuple[list[Step], Message]]) -> Message:
    for steps, new in swaps:
        if not steps:
            return new
    by_field: dict[str, list[tuple[list[Step], Message]]] = {}
    for steps, new in swaps:
        by_field.setdefault(steps[0].name, []).append((steps, new))
    clone = shallow_copy(message)
    for name, items in by_field.items():
        if items[0][0][0].at is None:
            setattr(clone, name, _swap(getattr(message, name), [(s[1:], n) for s, n in items]))
            continue
        elements = list(getattr(message, name))
        by_index: dict[int, list[tuple[list[Step], Message]]] = {}
        for steps, new in items:
            at = steps[0].at
            assert at is not None
            by_index.setdefault(at, []).append((steps[1:], new))
        for at, inner in by_index.items():
            elements[at] = _swap(elements[at], inner)
        setattr(clone, name, elements)
    return clone
