"""Issue 45 (the command line, round 4): bugs planted in what it added, each with the
tests that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_PIPES = "tests/cli/test_piped_input_and_interrupts.py"
_MERGE = "tests/cli/test_merge_prefix_scopes.py"
_REPORTS = "tests/cli/test_inspect_toposort_diff_reports.py"
_RUN = "tests/cli/test_run_unknown_dims_errors.py"
_SCRIPTING = "tests/cli/test_check_many_and_json.py"
_PROGRESS = "tests/cli/test_progress_on_terminals.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "cli4-pipe-head-not-kept",
        "wirecodec/cli/common.py",
        "        if len(self.head) < HEAD:\n",
        "        if False:\n",
        (f"{_PIPES}::test_a_piped_non_model_is_named_as_from_a_path",),
        "a pipe's first bytes are not kept, so a piped HTML page gets the decoder's error",
    ),
    Mutant(
        "cli4-interrupt-exits-1",
        "wirecodec/cli/__init__.py",
        "INTERRUPTED: Final = 130",
        "INTERRUPTED: Final = 1",
        (f"{_PIPES}::test_ctrl_c_while_writing_leaves_no_temporary_file",),
        "Ctrl-C exits 1, as a failure, not 130",
    ),
    Mutant(
        "cli4-every-scope-forgets-outer-names",
        "wirecodec/compose.py",
        '        name_map = {**maps.pop(scope.path if scope.depth else "", given)}\n',
        "        name_map = dict(given)\n",
        (_MERGE,),
        "a body's map starts empty of its enclosing graph's names: a branch keeps reading 'w'",
    ),
    Mutant(
        "cli4-toposort-counts-shifted-nodes",
        "wirecodec/cli/graph_order.py",
        "    return len(order) - len(tails)\n",
        "    return sum(1 for place, index in enumerate(order) if place != index)\n",
        (f"{_REPORTS}::test_toposort_of_one_late_producer_moves_one_node",),
        "every node that now sits elsewhere counts as moved (issue 45's '356 nodes moved')",
    ),
    Mutant(
        "cli4-percent-rounds-to-100",
        "wirecodec/cli/make_up.py",
        "        if float(text) not in (0.0, 100.0) or share in (0.0, 1.0):\n",
        "        if True:\n",
        (f"{_REPORTS}::test_inspect_does_not_round_99_98_to_100",),
        "99.98% printed as 100%",
    ),
    Mutant(
        "cli4-nbits-zero-points-as-bytes",
        "wirecodec/cli/make_up.py",
        "            packed[node.input[3]] = (kind, n * -(-k // block))",
        "            pass",
        (f"{_REPORTS}::test_matmulnbits_weights_count_as_4_bit_parameters",),
        "MatMulNBits' packed zero points counted as UINT8 bytes",
    ),
    Mutant(
        "cli4-diff-type-numbers",
        "wirecodec/cli/diff.py",
        '        if self.path.rpartition(".")[2] in _DATA_TYPES:\n',
        "        if False:\n",
        (f"{_REPORTS}::test_diff_names_data_types",),
        "diff prints data types as numbers (1 != 7)",
    ),
    Mutant(
        "cli4-temporary-file-blamed",
        "wirecodec/cli/common.py",
        '    return path.with_name(found["name"]) if found else None\n',
        "    return None\n",
        (f"{_REPORTS}::test_a_missing_output_folder_is_named_by_the_users_path",),
        "a missing output folder reported by the temporary file's name",
    ),
    Mutant(
        "cli4-guessed-dims-unsaid",
        "wirecodec/cli/run.py",
        "        if spec.name in given or spec.dims is None or spec.name not in values:\n",
        "        if True:\n",
        (f"{_RUN}::test_a_failure_after_guessed_dims_names_them_once",),
        "a failed run does not say which input's unknown dims were set to 1",
    ),
    Mutant(
        "cli4-progress-off-a-terminal",
        "wirecodec/cli/progress.py",
        "    shown = asked and _is_terminal(sys.stderr)\n",
        "    shown = asked\n",
        (_PROGRESS,),
        "progress drawn on a standard error that is a pipe or a file",
    ),
    Mutant(
        "cli4-check-several-always-0",
        "wirecodec/cli/check.py",
        "    return 1 if failed else 0\n",
        "    return 0\n",
        (f"{_SCRIPTING}::test_check_of_several_models_ends_with_one_summary",),
        "check of several models exits 0 when one is invalid",
    ),
)
