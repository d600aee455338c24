"""Issue 35, items 1-2: corrupt .onnxz entries and lying safetensors headers are refused.

Models come from tests/support/odd_models.py; Python's zipfile and the safetensors
package are the judges that the files really are corrupt.
"""

from __future__ import annotations

import pathlib
import zipfile

import pytest

from tests.support import odd_models
from wirecodec.cli import main


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_the_flipped_entry_is_corrupt_for_zipfile(tmp_path: pathlib.Path) -> None:
    path = odd_models.flipped_onnxz(tmp_path)
    with zipfile.ZipFile(path) as archive:
        assert archive.testzip() == "w1"  # the first entry whose CRC-32 is wrong


def test_check_reads_entries_only_with_full(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(odd_models.flipped_onnxz(tmp_path))
    code, out, _ = _run(capsys, "check", path)
    assert code == 0, out  # without --full no weight byte is read: nothing to see
    code, out, _ = _run(capsys, "check", "--full", path)
    assert code == 1
    assert "entry 'w1'" in out and "CRC-32" in out and "[container-crc]" in out


def test_check_full_passes_a_sound_container(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from wirecodec.files.zip.container import save_zip

    save_zip(odd_models.weights_model(), tmp_path / "ok.onnxz")
    code, out, _ = _run(capsys, "check", "--full", str(tmp_path / "ok.onnxz"))
    assert code == 0, out


@pytest.mark.parametrize(
    "argv",
    [
        ["tensors", "{m}", "w1", "-o", "{d}/w1.npy"],
        ["convert", "{m}", "{d}/out.onnx", "--to", "single"],
        ["convert", "{m}", "{d}/out.onnxz", "--to", "zip"],
        ["run", "{m}"],
    ],
)
def test_verbs_reading_the_entry_whole_refuse_it(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    pytest.importorskip("onnxruntime")
    model = odd_models.flipped_onnxz(tmp_path)
    args = [a.format(m=model, d=tmp_path) for a in argv]
    code, _, err = _run(capsys, *args)
    assert code == 1
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "entry 'w1'" in lines[0] and "CRC-32" in lines[0], err
    assert not (tmp_path / "w1.npy").exists() and not (tmp_path / "out.onnx").exists()
    assert not (tmp_path / "out.onnxz").exists()


def test_an_entry_not_read_is_not_refused(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = odd_models.flipped_onnxz(tmp_path)
    code, _, err = _run(capsys, "tensors", str(model), "w0", "-o", str(tmp_path / "w0.npy"))
    assert code == 0, err


@pytest.mark.parametrize("variant", odd_models.LYING_HEADERS)
@pytest.mark.parametrize("verb", ["inspect", "check", "run", "convert"])
def test_every_lying_header_is_refused_in_one_line(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], variant: str, verb: str
) -> None:
    if verb == "run":
        pytest.importorskip("onnxruntime")
    model = str(odd_models.lying_safetensors(tmp_path, variant))
    argv = {
        "inspect": ["inspect", model],
        "check": ["check", model],
        "run": ["run", model],
        "convert": ["convert", model, str(tmp_path / "out.onnx"), "--to", "single"],
    }[verb]
    code, out, err = _run(capsys, *argv)
    assert code == 1
    if verb == "check":
        lines = [line for line in out.splitlines() if "st.safetensors" in line]
        assert len(lines) >= 1 and ("[safetensors-header]" in out or "[safetensors-reference]" in out), out
    else:
        assert len(err.strip().splitlines()) == 1 and "st.safetensors" in err, err
        assert "ExternalDataError" in err


@pytest.mark.parametrize("variant", odd_models.LYING_HEADERS)
def test_the_safetensors_package_or_the_model_disagree_with_each_lying_file(
    tmp_path: pathlib.Path, variant: str
) -> None:
    """The lies are real: safetensors refuses the file, or reads a tensor other than the model's."""
    safetensors = pytest.importorskip("safetensors.numpy")
    import numpy as np

    from wirecodec.tensors import to_array

    odd_models.lying_safetensors(tmp_path, variant)
    try:
        loaded = safetensors.load_file(str(tmp_path / "st.safetensors"))
    except Exception:
        return
    expected = to_array(odd_models.weights_model().graph.initializer[0])
    got = loaded["w0"]
    assert got.dtype != expected.dtype or got.shape != expected.shape or not np.array_equal(got, expected)


def test_a_sound_safetensors_model_still_opens(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = str(odd_models.safetensors_model(tmp_path))
    for argv in (
        ["inspect", model],
        ["check", model],
        ["convert", model, str(tmp_path / "o.onnx"), "--to", "single"],
    ):
        code, out, err = _run(capsys, *argv)
        assert code == 0, (argv, out, err)


def _without_length(model_path: pathlib.Path, name: str) -> None:
    """Drop the ``length`` of tensor ``name``'s reference (onnx then reads to the end of the file)."""
    from schema_dsl.onnx import ModelProto
    from wirecodec import decode, encode

    model = decode(ModelProto, model_path.read_bytes())
    tensor = next(t for t in model.graph.initializer if t.name == name)
    kept = [(e.key, e.value) for e in tensor.external_data if e.key != "length"]
    assert len(kept) < len(tensor.external_data)
    del tensor.external_data[:]
    for key, value in kept:
        entry = tensor.external_data.add()
        entry.key, entry.value = key, value
    model_path.write_bytes(encode(model))


@pytest.mark.parametrize("lie", ["none", "dtype", "shape"])
def test_a_reference_without_length_is_checked_against_the_header(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], lie: str
) -> None:
    # The last tensor of the file, referred to without a length: it reads to the end of the
    # file, which is its entry exactly; its header entry must still agree with the model.
    import json
    import struct

    model = odd_models.safetensors_model(tmp_path)
    file = tmp_path / "st.safetensors"
    data = file.read_bytes()
    (length,) = struct.unpack_from("<Q", data)
    header = json.loads(data[8 : 8 + length])
    last = max((k for k in header if k != "__metadata__"), key=lambda k: header[k]["data_offsets"][0])
    if lie == "dtype":
        header[last]["dtype"] = "I32"  # the same size: only the header tells
    elif lie == "shape":
        header[last]["shape"] = [2, header[last]["shape"][0] // 2]
    text = json.dumps(header, separators=(",", ":")).encode()
    file.write_bytes(data[:8] + text.ljust(length, b" ") + data[8 + length :])
    _without_length(model, last)
    code, out, err = _run(capsys, "check", str(model))
    if lie == "none":
        assert code == 0, out + err
        return
    assert code == 1
    assert "[safetensors-reference]" in out and repr(last) in out, out
    code, out, err = _run(capsys, "inspect", str(model))
    assert code == 1 and "ExternalDataError" in err and "st.safetensors" in err, err
