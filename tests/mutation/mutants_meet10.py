"""Where two features meet (the meetings matrix): two models sharing one data file, and a
save whose explicit external-data location names that file. Each mutant undoes part of
the fix in the write-back; the shared-data-file matrix kills it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_SHARED = (
    "tests/unit/files/test_writers_x_shared_data_file.py::"
    "test_a_writer_beside_two_models_sharing_a_data_file_loses_nothing"
)

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "explicit-location-replaces-a-shared-data-file",
        "wirecodec/files/writeback.py",
        "            if options.location is not None:\n"
        "                _keep_what_it_holds(current, target.parent)\n",
        "            if options.location is None:\n"
        "                _keep_what_it_holds(current, target.parent)\n",
        (_SHARED,),
        "save(..., external_data=True, location=<a file another model reads>) replaces that file: "
        "the other model silently reads the new model's weights",
    ),
    Mutant(
        "appended-tensors-written-over-the-kept-bytes",
        "wirecodec/files/writeback.py",
        "        data_file.size = held.nbytes\n",
        "        pass\n",
        (_SHARED,),
        "the kept bytes of an existing data file are written first, but the new tensors' offsets "
        "start at 0: their references point at the old bytes",
    ),
    Mutant(
        "raw-data-appended-to-a-safetensors-file",
        "wirecodec/files/external/write.py",
        '            if location.endswith(".safetensors"):\n',
        '            if location.endswith(".safetensors.0"):\n',
        (_SHARED,),
        "raw external data appended after a safetensors file's tensors: the safetensors package "
        "no longer reads the file other models share",
    ),
)
