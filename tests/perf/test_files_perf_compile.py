"""Codec generation on demand: a process generates the codecs of the types it meets, no more.

A fresh process pays for every codec it generates (docs/performance.md), so decoding a
message must not generate the codecs of types its bytes never contain; and generating
them later, mid-decode, must give the same results as generating them all up front.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

from schema_dsl import INT64, MESSAGE, STRING, Message, optional, repeated
from wirecodec import decode, encode
from wirecodec.protobuf import code_cache as compile_module  # where the codecs are compiled
from wirecodec.protobuf.compile import CACHE_ENV, cache_folder, decoder, encoder
from wirecodec.protobuf.representation import Representation


class Unused(Message):
    text: str = optional(1, STRING)


class Leaf(Message):
    value: int = optional(1, INT64)


class Branch(Message):
    name: str = optional(1, STRING)
    leaves: list[Leaf] = repeated(2, MESSAGE)
    rare: Unused = optional(3, MESSAGE)
    child: Branch = optional(4, MESSAGE)


def _fresh_kinds(*classes: type[Message]) -> None:
    for cls in classes:
        cls.__schema__.codecs.clear()


def test_decoding_generates_only_the_types_met() -> None:
    _fresh_kinds(Unused, Leaf, Branch)
    data = encode(Branch(name="b", leaves=[Leaf(value=i) for i in range(10)]))
    branch = decode(Branch, data)
    assert "decode+lazy" in Branch.__schema__.codecs
    assert "decode+lazy" not in Unused.__schema__.codecs  # no field 3 in the bytes
    assert [leaf.value for leaf in branch.leaves] == list(range(10))
    assert "decode+lazy" in Leaf.__schema__.codecs


def test_a_type_met_later_is_generated_then_and_decodes_the_same() -> None:
    _fresh_kinds(Unused, Leaf, Branch)
    decode(Branch, encode(Branch(name="first")))
    assert "decode+lazy" not in Unused.__schema__.codecs
    nested = Branch(child=Branch(rare=Unused(text="late"), leaves=[Leaf(value=-1)]))
    again = decode(Branch, encode(nested))
    assert again.child.rare.text == "late"
    assert again.child.leaves[0].value == -1
    assert again == nested


def test_a_recursive_type_calls_itself_directly() -> None:
    _fresh_kinds(Unused, Leaf, Branch)
    deep = Branch(name="0")
    for i in range(1, 20):
        deep = Branch(name=str(i), child=deep)
    assert decode(Branch, encode(deep)) == deep
    namespace = Branch.__schema__.codecs["decode+lazy"].namespace
    assert namespace["_d_child"] is decoder(Branch, lazy=True)


def test_the_stub_steps_aside_once_the_codec_exists() -> None:
    _fresh_kinds(Unused, Leaf, Branch)
    decode(Branch, encode(Branch(leaves=[Leaf(value=1)])))
    namespace = Branch.__schema__.codecs["decode+lazy"].namespace
    assert namespace["_d_leaves"] is decoder(Leaf, lazy=True)
    stand_in = namespace["_d_rare"]
    assert stand_in is not decoder(Unused, lazy=True)  # generated now, but not yet called from here
    assert decode(Branch, encode(Branch(rare=Unused(text="t")))).rare.text == "t"
    assert namespace["_d_rare"] is decoder(Unused, lazy=True)


def test_encoding_generates_only_the_types_present() -> None:
    _fresh_kinds(Unused, Leaf, Branch)
    assert encode(Branch(name="x", leaves=[Leaf(value=300)])) == b"\n\x01x\x12\x03\x08\xac\x02"
    assert "encode" in Leaf.__schema__.codecs
    assert "encode" not in Unused.__schema__.codecs
    encoder(Branch)  # asking again reuses what exists
    assert "encode" not in Unused.__schema__.codecs


@pytest.mark.parametrize("every_element", [False, True], ids=["lazy", "every-element-waits"])
def test_waiting_elements_decode_through_a_codec_generated_after_them(every_element: bool) -> None:
    # Every element waiting (the fuzzing mode) means the field's decoder is taken before
    # any element of it has been decoded: the stand-in is what the waiting records keep.
    _fresh_kinds(Unused, Leaf, Branch)
    original = Branch(leaves=[Leaf(value=i) for i in range(12)])
    data = encode(original)
    branch = decode(Branch, data, representation=Representation(every_element_waits=every_element))
    assert [leaf.value for leaf in branch.leaves] == list(range(12))
    assert branch == original


def test_a_fresh_process_generates_only_what_a_model_uses() -> None:
    # Other tests have generated codecs in this process: ask a fresh one.
    script = """
import sys
from schema_dsl.onnx import GraphProto, ModelProto, NodeProto, SparseTensorProto, TensorProto
from wirecodec import decode, encode
model = ModelProto(ir_version=10, graph=GraphProto(
    node=[NodeProto(op_type="Relu", input=["x"], output=["y"])],
    initializer=[TensorProto(name="w", dims=[2], data_type=TensorProto.FLOAT, float_data=[1, 2])]))
back = decode(ModelProto, encode(model))
assert back == model and back.graph.initializer[0].float_data == [1.0, 2.0]
made = [c.__qualname__ for c in (ModelProto, GraphProto, NodeProto, TensorProto, SparseTensorProto)
        if any(kind.startswith("decode+lazy") for kind in c.__schema__.codecs)]  # records or not
print(" ".join(made))
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, env=_env(), timeout=120
    )
    assert done.stdout.split() == ["ModelProto", "GraphProto", "NodeProto", "TensorProto"]


def _env() -> dict[str, str]:
    root = str(pathlib.Path(__file__).resolve().parents[2])
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([root, *filter(None, [env.get("PYTHONPATH")])])
    return env


# -- the cache of compiled codecs on disk ----------------------------------------------------


def _cached_files(folder: pathlib.Path) -> list[pathlib.Path]:
    return sorted(folder.glob("*.code"))


def _forbid_compiling(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("compiled although the cache holds the code")

    # The module finds the builtin through its globals: a global of that name comes first.
    monkeypatch.setattr(compile_module, "compile", refuse, raising=False)


def test_a_second_process_takes_the_codec_from_the_cache(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "codecs"))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # the cache writes nothing under -B
    _fresh_kinds(Unused, Leaf, Branch)
    data = encode(Branch(name="cached", leaves=[Leaf(value=7)]))
    first = decode(Branch, data)
    stored = _cached_files(tmp_path / "codecs")
    assert len(stored) >= 3  # Branch's encoder and decoder, Leaf's encoder and decoder
    assert (tmp_path / "codecs").stat().st_mode & 0o777 == 0o700
    _fresh_kinds(Unused, Leaf, Branch)  # as a new process would start
    _forbid_compiling(monkeypatch)
    again = decode(Branch, data)
    assert again == first and again.leaves[0].value == 7
    assert _cached_files(tmp_path / "codecs") == stored


def test_a_damaged_entry_is_compiled_again_and_replaced(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "codecs"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # the cache writes nothing under -B
    _fresh_kinds(Unused, Leaf, Branch)
    data = encode(Branch(name="x", leaves=[Leaf(value=1)]))
    decode(Branch, data)
    entries = _cached_files(folder)
    originals = {path: path.read_bytes() for path in entries}
    for path, content in originals.items():
        damaged = bytearray(content)
        damaged[-3] ^= 0xFF  # inside the marshalled code: it may still load, as wrong code
        path.write_bytes(bytes(damaged))
    _fresh_kinds(Unused, Leaf, Branch)
    assert encode(Branch(name="x", leaves=[Leaf(value=1)])) == data
    assert decode(Branch, data).leaves[0].value == 1
    assert {path: path.read_bytes() for path in _cached_files(folder)} == originals


def test_a_folder_others_can_write_to_is_not_trusted(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "codecs"
    monkeypatch.setenv(CACHE_ENV, str(folder))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # the cache writes nothing under -B
    _fresh_kinds(Unused, Leaf, Branch)
    data = encode(Branch(leaves=[Leaf(value=2)]))
    decode(Branch, data)
    folder.chmod(0o777)
    _fresh_kinds(Unused, Leaf, Branch)
    _forbid_compiling(monkeypatch)
    with pytest.raises(AssertionError, match="compiled although"):
        decode(Branch, data)  # it compiles rather than run what someone else may have put there


def test_an_empty_setting_turns_the_cache_off(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, "")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache_folder() is None
    _fresh_kinds(Unused, Leaf, Branch)
    assert decode(Branch, encode(Branch(name="off"))).name == "off"
    assert not any(tmp_path.rglob("*"))


def test_the_default_folder_follows_xdg(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_folder() == tmp_path / "wirecodec" / "codecs"


def test_a_cache_that_cannot_be_written_only_costs_time(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_bytes(b"not a folder")
    monkeypatch.setenv(CACHE_ENV, str(blocker / "codecs"))
    _fresh_kinds(Unused, Leaf, Branch)
    assert decode(Branch, encode(Branch(name="still works"))).name == "still works"
    assert blocker.read_bytes() == b"not a folder"
