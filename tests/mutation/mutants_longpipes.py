"""Mutants of long pipes (issue 47, item 3): a verb that reads weights spools a pipe past
32 MiB; one that reads only the structure passes them by."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "long-pipe-never-spooled",
        "wirecodec/cli/common.py",
        "    if spool_dir is None and payloads:\n",
        "    if False:\n",
        ("tests/cli/test_long_pipes.py",),
        "infer-shapes, edit, tensors, diff... of a pipe past 32 MiB fail with PayloadPassedError",
    ),
    Mutant(
        "url-write-back-holds-every-weight",
        "wirecodec/files/writeback.py",
        "        _commit(with_stand_ins(model), path, [], options.durable)",
        "        _commit(model, path, [], options.durable)",
        ("tests/perf/test_memory_matrix.py::test_every_cell_peaks_under_256_mb[infer-shapes-url]",),
        "infer-shapes/edit of a model by URL fetch every weight and hold them all while writing",
    ),
    Mutant(
        "url-payload-fetched-whole",
        "wirecodec/protobuf/payloads.py",
        "        if chunk.fetch_range is None:\n            chunk = chunk.load()",
        "        if True:\n            chunk = chunk.load()",
        ("tests/perf/test_memory_matrix.py::test_a_weight_bigger_than_the_limit_is_copied_from_a_url_in_pieces",),
        "a weight by URL is fetched whole before it is written: a 300 MB tensor is held whole",
    ),
)
