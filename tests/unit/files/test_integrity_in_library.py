"""The library checks what the command line checks (issue 47, item 4): container CRCs and
safetensors headers belong to wirecodec.files.integrity, and wirecodec.check(path, full=True)
gives the verdict ``wirecodec check --full`` gives."""

from __future__ import annotations

import pathlib

import pytest

import wirecodec
from tests.support import odd_models
from wirecodec.cli import main
from wirecodec.errors import CheckError


def _cli_refuses(path: pathlib.Path, capsys: pytest.CaptureFixture[str], *flags: str) -> bool:
    code = main(["check", *flags, str(path)])
    capsys.readouterr()
    return code != 0


@pytest.mark.quick
def test_check_full_refuses_a_flipped_weight_byte_as_the_cli_does(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = odd_models.flipped_onnxz(tmp_path)
    assert _cli_refuses(path, capsys, "--full")
    with pytest.raises(CheckError, match="container-crc"):
        wirecodec.check(path, full=True)
    # Without full, neither reads the entries: both accept it.
    assert not _cli_refuses(path, capsys)
    wirecodec.check(path)


@pytest.mark.parametrize("variant", odd_models.LYING_HEADERS)
def test_a_lying_safetensors_header_is_refused_by_both(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], variant: str
) -> None:
    path = odd_models.lying_safetensors(tmp_path, variant)
    assert _cli_refuses(path, capsys)
    with pytest.raises(CheckError, match="safetensors-"):
        wirecodec.check(path)


def test_a_sound_container_and_safetensors_file_pass_both(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wirecodec.examples.build_mlp import build

    zipped = tmp_path / "m.onnxz"
    wirecodec.save_zip(build(), zipped)
    st = tmp_path / "s.onnx"
    wirecodec.save(build(), st, external_data="s.safetensors", size_threshold=0)
    for path in (zipped, st):
        assert not _cli_refuses(path, capsys, "--full")
        wirecodec.check(path, full=True)
