"""Where the code cache lives and when its entries are trusted (wirecodec.protobuf.code_cache):
a relative ``$XDG_CACHE_HOME`` is ignored, as the XDG Base Directory specification says
("If an implementation encounters a relative path in any of these variables it should
consider the path invalid and ignore it"), and code is never run from a folder another
user could write to (group- or world-writable): an entry planted there is not read."""

from __future__ import annotations

import hashlib
import marshal
import os
import pathlib
import sys
import types

import pytest

from wirecodec.protobuf import code_cache

TEXT = "VALUE = 'compiled from the text'\n"
FILENAME = "<code cache test>"


def _value(code: types.CodeType) -> str:
    namespace: dict[str, object] = {}
    exec(code, namespace)
    return str(namespace["VALUE"])


@pytest.fixture
def home(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv(code_cache.CACHE_ENV, raising=False)
    return folder


def test_a_relative_xdg_cache_home_is_ignored(
    home: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    assert code_cache.cache_folder() == home / ".cache" / "wirecodec" / "codecs"


def test_an_absolute_xdg_cache_home_is_used(
    home: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert code_cache.cache_folder() == tmp_path / "xdg" / "wirecodec" / "codecs"


def _plant(folder: pathlib.Path) -> None:
    """Replace the folder's one entry with other code (a valid entry: digest, marshalled code)."""
    (entry,) = folder.glob("*.code")
    payload = marshal.dumps(compile("VALUE = 'planted'\n", FILENAME, "exec", dont_inherit=True))
    entry.write_bytes(hashlib.sha256(payload).digest() + payload)


@pytest.mark.skipif(not hasattr(os, "getuid"), reason="POSIX permissions")
@pytest.mark.parametrize("mode", [0o770, 0o707, 0o720])
def test_code_is_not_read_from_a_folder_others_can_write(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    folder = tmp_path / "cache"
    monkeypatch.setenv(code_cache.CACHE_ENV, str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # (the suite may run with -B)
    assert _value(code_cache.code(TEXT, FILENAME)) == "compiled from the text"
    _plant(folder)
    # (the plant is read from a folder only its owner can write: the entry is what runs)
    assert _value(code_cache.code(TEXT, FILENAME)) == "planted"
    folder.chmod(mode)
    assert _value(code_cache.code(TEXT, FILENAME)) == "compiled from the text"
