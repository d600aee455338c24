"""SaveOptions (wirecodec/files/base/options.py) refuses a bad option before anything is
written, whichever front door built it: save and convert alike."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

import wirecodec
from wirecodec.examples.build_mlp import build
from wirecodec.files.base.options import SaveOptions

BAD: list[tuple[dict[str, Any], str]] = [
    ({"align": 0}, "align must be a power of two, got 0"),
    ({"align": -4096}, "align must be a power of two, got -4096"),
    ({"align": 96}, "align must be a power of two, got 96"),
    ({"size_threshold": -1}, "size_threshold must not be negative"),
    ({"max_shard_size": 0}, "max_shard_size must be positive"),
    ({"location": ""}, r"location must not be empty \(None picks the default name\)"),
]


@pytest.mark.parametrize(("options", "said"), BAD)
def test_save_options_refuse(options: dict[str, Any], said: str) -> None:
    with pytest.raises(ValueError, match=said):
        SaveOptions(**options)


@pytest.mark.parametrize(
    "options",
    [{"align": 1}, {"align": 1 << 20}, {"size_threshold": 0}, {"max_shard_size": 1}, {"location": "w"}],
)
def test_save_options_take_the_edges(options: dict[str, Any]) -> None:
    made = SaveOptions(**options)
    assert all(getattr(made, key) == value for key, value in options.items())


@pytest.mark.parametrize(("options", "said"), BAD)
def test_convert_refuses_before_writing(options: dict[str, Any], said: str, tmp_path: pathlib.Path) -> None:
    source = tmp_path / "in" / "m.onnx"
    source.parent.mkdir()
    wirecodec.save(build(), source)
    out = tmp_path / "out"
    out.mkdir()
    with pytest.raises(ValueError, match=said):
        wirecodec.convert(source, out / "m.onnx", to="external", **options)
    assert list(out.iterdir()) == []


@pytest.mark.parametrize(("options", "said"), [case for case in BAD if "location" not in case[0]])
def test_save_refuses_before_writing(options: dict[str, Any], said: str, tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match=said):
        wirecodec.save(build(), tmp_path / "m.onnx", external_data=True, **options)
    assert list(tmp_path.iterdir()) == []
