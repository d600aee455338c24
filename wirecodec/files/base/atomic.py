"""Writes that never leave a half-written file under the target name.

Every file is written to a temporary sibling (same directory, so the rename cannot
cross file systems), flushed and (unless ``durable=False``) fsync'd, then renamed over
the target. On any error the temporaries are removed and the targets are untouched.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat
import tempfile
import threading
from collections.abc import Iterator
from typing import BinaryIO

__all__ = ["AtomicFiles"]


class AtomicFiles:
    """A group of files written together and put in place together by :meth:`commit`.

    >>> import tempfile, pathlib
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.bin"
    >>> with AtomicFiles() as files:
    ...     with files.open(target) as f:
    ...         _ = f.write(b"data")
    ...     files.commit()
    >>> target.read_bytes()
    b'data'

    ``durable=True`` (the default) ``fsync``s every file before the renames and the
    directories after them, so once :meth:`commit` returns the new files survive a
    power cut or an operating-system crash. ``durable=False`` skips every ``fsync``:
    the files are still written to temporaries and renamed into place, so a crash or
    kill of *this process* never leaves a half-written target and an error removes the
    temporaries, but after a power cut or an operating-system crash a target may hold
    its previous version, or be empty or incomplete (the rename can reach the disk
    before the data does), and a group's files may not all be of the same version.
    """

    def __init__(self, *, durable: bool = True) -> None:
        self._pending: list[tuple[pathlib.Path, pathlib.Path]] = []
        self._committed = False
        self._durable = durable

    @contextlib.contextmanager
    def open(self, target: os.PathLike[str] | str) -> Iterator[BinaryIO]:
        """A binary file that will become ``target`` when the group commits."""
        final = pathlib.Path(target)
        fd, temp_name = tempfile.mkstemp(prefix=f".{final.name}.", suffix=".tmp", dir=final.parent)
        temp = pathlib.Path(temp_name)
        self._pending.append((temp, final))
        # mkstemp makes the file private (0600); the result should have the mode a plain
        # open() would give it, or keep the mode of the file it replaces.
        with contextlib.suppress(OSError):
            os.chmod(fd, _mode_for(final))
        with os.fdopen(fd, "wb") as file:
            yield file
            file.flush()
            if self._durable:
                os.fsync(file.fileno())

    def commit(self) -> None:
        """Rename every temporary over its target (the last one named goes last)."""
        for temp, final in self._pending:
            os.replace(temp, final)
        directories = {final.parent for _, final in self._pending}
        self._pending = []
        self._committed = True
        if self._durable:
            for directory in directories:
                _fsync_directory(directory)

    def discard(self) -> None:
        for temp, _ in self._pending:
            with contextlib.suppress(FileNotFoundError):
                temp.unlink()
        self._pending = []

    def __enter__(self) -> AtomicFiles:
        return self

    def __exit__(self, *exc_info: object) -> None:
        # Anything not committed (an error, or commit never reached) is thrown away.
        self.discard()


def _mode_for(final: pathlib.Path) -> int:
    try:
        info = os.stat(final, follow_symlinks=False)
    except OSError:
        info = None
    if info is not None and stat.S_ISREG(info.st_mode):
        return stat.S_IMODE(info.st_mode)
    return 0o666 & ~_umask(final.parent)


def _umask(directory: pathlib.Path) -> int:
    """The process's umask, read without setting it (os.umask would, for every thread)."""
    try:
        for line in pathlib.Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    # No /proc: a file created asking for 0666 gets 0666 minus the umask. It is made in the
    # directory we were asked to write to, and removed at once.
    probe = directory / f".wirecodec-umask-{os.getpid()}-{threading.get_ident()}.tmp"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError:
        return 0o022  # the usual default; the mode of a new file is all it affects
    try:
        return 0o666 & ~stat.S_IMODE(os.fstat(fd).st_mode)
    finally:
        os.close(fd)
        with contextlib.suppress(OSError):
            os.unlink(probe)


def _fsync_directory(directory: pathlib.Path) -> None:
    # Makes the renames themselves durable; not every platform or file system allows it.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
