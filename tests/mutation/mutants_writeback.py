"""Mutants of the one write-back (issue 47): wirecodec/files/writeback.py, the map origins
it asks (files/base/mapping.py, files/external/read.py) and the safetensors reference
check that zero-size entries tripped (files/integrity.py). Written from the code, each a
plausible slip, each with the tests that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_WRITEBACK = "wirecodec/files/writeback.py"
_UNIT = "tests/unit/files/test_writeback_in_place.py"
_MATRIX = "tests/cli/test_in_place_matrix.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "writeback-keeps-for-convert-elsewhere",
        _WRITEBACK,
        "            location = _reachable(from_file, folder) if keep else None\n",
        "            location = _reachable(from_file, folder)\n",
        (f"{_UNIT}::test_convert_to_another_file_writes_a_copy_that_stands_alone",),
        "convert to another file points into the source's data instead of writing a copy",
    ),
    Mutant(
        "writeback-trusts-a-replaced-data-file",
        _WRITEBACK,
        "    return found if same else None\n",
        "    return found\n",
        (f"{_UNIT}::test_a_data_file_replaced_since_it_was_loaded_is_not_referred_to",),
        "a view of a data file replaced since it was loaded is written as a reference to the new file",
    ),
    Mutant(
        "writeback-default-name-written-over",
        _WRITEBACK,
        '        if not any(target.parent.glob(glob.escape(name) + "*")):\n',
        "        if True:\n",
        (
            "tests/unit/files/test_save_safety.py::test_saving_again_writes_over_no_data_file_and_deletes_none",
        ),
        "a save writes its data over an existing <model>.data (another model's data)",
    ),
    Mutant(
        "writeback-in-use-file-written-over",
        _WRITEBACK,
        "        if os.path.realpath(destination) in in_use:\n",
        "        if False:\n",
        (f"{_UNIT}::test_a_data_file_the_model_reads_is_never_written_over",),
        "an explicit location naming the file the weights come from is written over",
    ),
    Mutant(
        "writeback-swap-changes-the-callers-model",
        _WRITEBACK,
        "    clone = shallow_copy(message)\n    for name, items in by_field.items():",
        "    clone = message\n    for name, items in by_field.items():",
        (f"{_UNIT}::test_the_callers_model_is_not_changed",),
        "pointing tensors at their new homes rewrites the caller's model",
    ),
    Mutant(
        "writeback-verbs-inline-small-external",
        _WRITEBACK,
        "        if (from_file is not None and not move_inline) or (",
        "        if (from_file is not None and move_inline) or (",
        (f"{_UNIT}::test_a_reference_that_does_not_resolve_from_the_output_is_copied_beside_it",),
        "a verb writing elsewhere puts small tensors that were external inline (layout not kept)",
    ),
    Mutant(
        "data-file-maps-not-remembered",
        "wirecodec/files/external/read.py",
        "            remember_file(mapped, path, info)\n",
        "            pass\n",
        (f"{_MATRIX}::test_saving_a_loaded_model_in_place_rewrites_the_model_only",),
        "a loaded model's weights no longer know their data file: saving in place copies them anew",
    ),
    Mutant(
        "safetensors-first-entry-at-offset",
        "wirecodec/files/integrity.py",
        "    here.sort(key=lambda entry: entry.name != tensor.name)\n"
        "    fitting = [entry for entry in here if length is None or length == entry.nbytes]\n",
        "    fitting = [entry for entry in here[:1] if length is None or length == entry.nbytes]\n",
        (f"{_MATRIX}::test_an_empty_tensor_goes_through_every_layout_and_back",),
        "a reference is checked against the first entry at its offset: an empty tensor's hides the next",
    ),
    Mutant(
        "check-full-skips-container-crcs",
        "wirecodec/checker/__init__.py",
        "for p in problems(opened, full=full)]",
        "for p in problems(opened, full=False)]",
        (
            "tests/unit/files/test_integrity_in_library.py::"
            "test_check_full_refuses_a_flipped_weight_byte_as_the_cli_does",
        ),
        "wirecodec.check(path, full=True) accepts an .onnxz whose weight entry has a flipped byte",
    ),
)
