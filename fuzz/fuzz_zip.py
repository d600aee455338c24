"""atheris harness: open zip model containers with ``load_zip``, structure-aware.

    python fuzz/fuzz_zip.py -atheris_runs=100000                       # structure-aware
    python fuzz/fuzz_zip.py --make-seeds fuzz/zip_seeds
    python fuzz/fuzz_zip.py --bytes -atheris_runs=100000 fuzz/zip_seeds/  # the input is the archive

By default the input is a recipe for ``tests/support/zip_mutator.py``: its first bytes choose a
valid base archive and one to three record-level mutations (fields set to their edges,
local and central records that disagree, lookalike signatures, reordered or repeated
records, lying ZIP64 extras, references to ``__MODEL_PROTO``), the rest overwrite bytes
on top. Each archive is held to ``zip_mutator.judge``: only ``WireCodecError`` may
escape, and whatever loads, zipfile reads alike (same entries; each tensor exactly the
bytes of its entry's range). With ``--bytes`` (or WIRECODEC_FUZZ_ZIP_BYTES=1) the input is
the archive itself, checked as before: only our errors, and each tensor exactly the
bytes its reference names.
Without atheris installed the module still imports (the tests run
:func:`test_one_input` on a few inputs) and runs under the plain mutation loop of
``_common.fuzz``.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import sys

from _common import fuzz, instrumented

with instrumented():
    from _common import EXPECTED

    from tests.support import zip_mutator
    from wirecodec.files.base.walk import iter_tensors
    from wirecodec.files.zip.container import load_zip
    from wirecodec.tensors import to_array


def test_one_input(data: bytes) -> None:
    """The structure-aware harness: ``data`` chooses the archive (see the module docstring)."""
    archive = zip_mutator.from_bytes(data)
    with contextlib.suppress(EXPECTED):
        zip_mutator.judge(archive)


def test_one_archive(data: bytes) -> None:
    """The byte-level harness: ``data`` is the archive."""
    try:
        model = load_zip(data)
        tensors = list(iter_tensors(model))
        references = list(iter_tensors(load_zip(data, load_external_data=False)))
    except EXPECTED:
        return
    assert len(tensors) == len(references)
    for tensor, reference in zip(tensors, references, strict=True):
        lengths = [int(e.value) for e in reference.external_data if e.key == "length"]
        if lengths:
            # Slicing clamps silently: a view shorter than its reference would mean an
            # unchecked range.
            assert len(tensor.raw_data) == lengths[0], "a tensor got fewer bytes than its reference"
        with contextlib.suppress(EXPECTED):
            to_array(tensor)


def make_seeds(out: pathlib.Path) -> None:
    """A few valid containers: the bundled example at several alignments, and many entries."""
    import numpy as np

    from schema_dsl.onnx import GraphProto, ModelProto
    from wirecodec.examples.build_mlp import build
    from wirecodec.files.zip.container import save_zip
    from wirecodec.tensors import from_array

    out.mkdir(parents=True, exist_ok=True)
    for align in (1, 64, 4096):
        save_zip(build(), out / f"mlp-{align}.onnxz", align=align)
    graph = GraphProto(
        name="g", initializer=[from_array(np.arange(i + 1, dtype=np.int16), f"t{i}") for i in range(40)]
    )
    save_zip(ModelProto(ir_version=10, graph=graph), out / "many.onnxz")
    print(f"seeds in {out}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--make-seeds"]:
        make_seeds(
            pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else pathlib.Path(__file__).parent / "zip_seeds"
        )
    elif "--bytes" in sys.argv or os.environ.get("WIRECODEC_FUZZ_ZIP_BYTES") == "1":
        if "--bytes" in sys.argv:
            sys.argv.remove("--bytes")
        fuzz(test_one_archive)
    else:
        fuzz(test_one_input)
