"""CI smoke run of the benchmark: ``bench/run.py --smoke`` end to end, at tiny sizes.

Asserts the shape of what the run writes (every row, every reference column, a number in
every cell, the prose around the markers kept), never a speed: timings on a shared CI
machine mean nothing, and the smoke inputs are too small to mean anything anyway.
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

pytest.importorskip("onnx", reason="the benchmark's references need the onnx package")
pytest.importorskip("onnx_ir", reason="the benchmark's references need onnx-ir")

ROOT = pathlib.Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))
import models_people_have  # noqa: E402
import numpy  # noqa: E402
import run  # noqa: E402  (bench/ is a folder of scripts, not a package)

REFERENCE_LABELS = [run.LABELS[library] for library in run.REFERENCES]
ALL_LABELS = [run.LABELS[library] for library in run.LIBRARIES]
RATIO_CELL = re.compile(r"^\d[\d,.]*× · \d[\d,.]*×$")
OWN_CELL = re.compile(r"^\d[\d,.]* s( \(\d[\d,.]* s–\d[\d,.]* s\))? · \d[\d,.]* [kM]B$")


def sections(markdown: str) -> dict[str, list[list[list[str]]]]:
    """The tables under each ``###`` heading, each a list of rows, each row a list of cells."""
    found: dict[str, list[list[list[str]]]] = {}
    heading = ""
    in_table = False
    for line in markdown.splitlines():
        if line.startswith("### "):
            heading = line.removeprefix("### ")
            found[heading] = []
        is_row = line.startswith("|")
        if is_row and not line.startswith("|---"):
            if not in_table:
                found[heading].append([])
            found[heading][-1].append([cell.strip() for cell in line.strip("|").split("|")])
        in_table = is_row
    return found


@pytest.fixture(scope="module")
def smoke(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The file a smoke run wrote into, which had prose around the markers before."""
    folder = tmp_path_factory.mktemp("bench")
    output = folder / "benchmarks.md"
    output.write_text(f"# Prose before\n\n{run.BEGIN}\nstale table\n{run.END}\n\nProse after.\n")
    command = [sys.executable, str(BENCH / "run.py"), "--smoke", "--cache", str(folder / "cache")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [*command, "--output", str(output)], capture_output=True, text=True, env=env, timeout=900, cwd=folder
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return output.read_text()


def test_the_prose_around_the_markers_survives(smoke: str) -> None:
    assert smoke.startswith("# Prose before\n\n" + run.BEGIN)
    # The file had no markers for the issue-23 block: it follows the main block.
    assert run.END + "\n\n" + run.BEGIN_23 + "\n" in smoke
    assert smoke.endswith(run.END_23 + "\n\nProse after.\n")
    assert "stale table" not in smoke


def test_each_block_goes_between_its_own_markers(tmp_path: pathlib.Path) -> None:
    target = tmp_path / "benchmarks.md"
    main, issue_23 = (run.BEGIN, run.END), (run.BEGIN_23, run.END_23)

    def page(first: str, second: str) -> str:
        return f"a\n{run.BEGIN}\n{first}\n{run.END}\nb\n{run.BEGIN_23}\n{second}\n{run.END_23}\nc\n"

    target.write_text(page("old", "old 23"))
    run.write([(issue_23, f"{run.BEGIN_23}\nnew 23\n{run.END_23}\n")], target)
    assert target.read_text() == page("old", "new 23")
    run.write([(main, f"{run.BEGIN}\nnew\n{run.END}\n")], target)
    assert target.read_text() == page("new", "new 23")


def test_machine_details_are_reported(smoke: str) -> None:
    for package in ("numpy", "onnx", "protobuf", "onnx-ir", "torch"):
        assert re.search(rf"\b{package} ", smoke), package
    assert "CPU: " in smoke and "Python 3." in smoke


def test_the_ratio_table_has_every_row_and_reference_with_numbers(smoke: str) -> None:
    [[header, *rows]] = sections(smoke)["wirecodec ÷ each reference"]
    assert header == ["step", "input", "runs", "wirecodec", *[f"÷ {label}" for label in REFERENCE_LABELS]]
    steps = {(row[0], row[1]) for row in rows}
    expected = {
        ("load + `to_array` of every initializer", "`gpt`"),
        ("open + every initializer as an array", "`gpt-external`"),
        ("load + `to_array` of every initializer", "`gpt-small`"),
        ("open + every initializer as an array", "`gpt-huge`"),
        ("save as one file", "`gpt`"),
        ("save as one file, `durable=False`", "`gpt`"),
    }
    for nodes in (100, 1000):
        expected |= {
            ("decode + full walk", f"`meta-{nodes}`"),
            ("encode the decoded model", f"`meta-{nodes}`"),
            ("encode after renaming one node", f"`meta-{nodes}`"),
        }
    assert steps == expected
    for row in rows:
        assert row[2] == "1", row
        assert OWN_CELL.match(row[3]), row
        for cell in row[4:]:
            assert RATIO_CELL.match(cell), row


def test_every_library_has_its_own_figures(smoke: str) -> None:
    [[header, *rows], [import_header, imports]] = sections(smoke)["Every library's own figures"]
    assert header == ["step", "input", *ALL_LABELS]
    assert len(rows) == 12
    for row in rows:
        if row[0] == "save as one file, `durable=False`":
            # The variant's own figures; the references ran once, in the row above.
            assert OWN_CELL.match(row[2]), row
            assert row[3:] == [run.SAME_RUNS] * len(run.REFERENCES), row
            continue
        for cell in row[2:]:
            assert OWN_CELL.match(cell), row
    assert import_header == ["", *ALL_LABELS]
    assert imports[0] == "import"
    for cell in imports[1:]:
        assert OWN_CELL.match(cell), imports


def test_cost_per_node_is_reported_for_every_graph_size(smoke: str) -> None:
    found = sections(smoke)
    for title in ("How the cost grows with the graph: decode + full walk, per node", "Encode, per node"):
        [[header, *rows]] = found[title]
        assert header == ["nodes", *ALL_LABELS]
        assert [row[0] for row in rows] == ["100", "1,000"]
        for row in rows:
            for cell in row[1:]:
                assert re.match(r"^\d[\d,.]* µs · \d[\d,]* B$", cell), row


def test_opening_is_reported_for_every_size_of_weights_smallest_first(smoke: str) -> None:
    [[header, *rows]] = sections(smoke)["How opening grows with the weights: every initializer as an array"]
    assert header == ["weights", "input", *ALL_LABELS]
    assert [row[1] for row in rows] == ["`gpt-small`", "`gpt`", "`gpt-external`", "`gpt-huge`"]
    scale = {"kB": 1e3, "MB": 1e6}
    sizes = [float(row[0].split()[0].replace(",", "")) * scale[row[0].split()[1]] for row in rows]
    assert sizes == sorted(sizes), sizes
    for row in rows:
        assert re.match(r"^\d[\d,.]* [kM]B$", row[0]), row
        for cell in row[2:]:
            assert OWN_CELL.match(cell), row


def test_hostile_inputs_have_an_amplification_for_every_library(smoke: str) -> None:
    [[header, *rows]] = sections(smoke)["Memory amplification on hostile input"]
    assert header == ["input", *ALL_LABELS]
    assert [row[0].split()[0] for row in rows] == ["`empty`", "`4attr+name`", "`16attr`", "`names`"]
    for row in rows:
        for cell in row[1:]:
            assert re.match(r"^\d[\d,.]*× \(\d[\d,.]* s\)$", cell), row


def test_the_libraries_read_the_same_data_and_encode_the_same_bytes(smoke: str) -> None:
    checks = smoke.split("### Checks", 1)[1]
    assert "disagree" not in checks, checks
    identical = ", ".join(ALL_LABELS[:3])
    for nodes in ("100", "1k"):
        assert f"`graph-{nodes}` encode: byte-identical output from {identical}" in checks, checks


def test_a_run_stopped_at_its_memory_limit_says_so_in_its_cells(tmp_path: pathlib.Path) -> None:
    command = [sys.executable, str(BENCH / "run.py"), "--smoke", "--only", "load", "--cache", str(tmp_path)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # 1 MiB: every child is stopped while its interpreter starts.
    done = subprocess.run(
        [*command, "--max-rss-gib", str(1 / 1024)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [[_, *rows]] = sections(done.stdout)["wirecodec ÷ each reference"]
    assert [row[1] for row in rows] == ["`gpt`", "`gpt-external`", "`gpt-small`", "`gpt-huge`"]
    stopped = "— (stopped at 1.0 MB RSS)"
    for row in rows:
        assert row[3:] == [stopped] * (1 + len(REFERENCE_LABELS)), row


def test_the_models_people_have_have_a_row_each_and_totals(smoke: str) -> None:
    [[header, *rows]] = sections(smoke)["Models people have: decode + graph-tool walk"]
    assert header == [
        "model",
        "producer_name",
        "on disk",
        "nodes",
        "wirecodec",
        "onnx (upb)",
        "wirecodec ÷ upb",
    ]
    shipped = [f"`pypi-{model.key}`" for model in models_people_have.catalogue(fetch=False)]
    assert [row[0] for row in rows] == [
        *shipped,
        "`gpt-graph`",
        "`meta-100`",
        "**total, the models from PyPI**",
        "**total, every row**",
    ]
    for row in rows[:-2]:
        assert row[1] != "``" and re.match(r"^\d[\d,]*$", row[3]), row
        assert OWN_CELL.match(row[4]) and OWN_CELL.match(row[5]), row
        assert re.match(r"^\d[\d,.]*×$", row[6]), row
    for row in rows[-2:]:
        assert re.match(r"^\d[\d,.]* s$", row[4]) and re.match(r"^\d[\d,.]*×$", row[6]), row


def test_edit_build_and_start_rows_are_measured_against_upb(smoke: str) -> None:
    [[header, *rows]] = sections(smoke)["Editing, building, starting"]
    assert header == ["step", "input", "runs", "wirecodec", "onnx (upb)", "wirecodec ÷ upb"]
    assert [(row[0], row[1]) for row in rows] == [
        ("encode after renaming every node", "`meta-1000`"),
        ("build from scratch with the library's `helper`", "`meta-100`"),
        ("encode the model built from scratch", "`meta-100`"),
        ("encode after changing every initializer's `data_type`", "`gpt`"),
        ("import the library in a fresh interpreter", "`mlp`"),
        ("import the library in a fresh interpreter: `from wirecodec import load`", "`mlp`"),
        ("import the library in a fresh interpreter: `import numpy` alone", "`mlp`"),
        ("a fresh process prints a summary (wall time)", "`mlp`"),
    ]
    for row in rows:
        assert row[2] == "1" and OWN_CELL.match(row[3]) and OWN_CELL.match(row[4]), row
        assert re.match(r"^\d[\d,.]*×$", row[5]), row
    checks = smoke.split("### Checks", 1)[1]
    for job in ("edit-rename-all", "edit-build", "edit-retype"):
        assert f"`{job}`: byte-identical output from wirecodec, onnx (upb)\n" in checks, checks


def test_the_graph_tool_walk_reads_subgraphs_functions_and_attributes_alike() -> None:
    onnx = pytest.importorskip("onnx")
    import child
    from onnx import TensorProto, helper, numpy_helper

    import wirecodec
    from schema_dsl.onnx import ModelProto

    branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["y"], name="inner")],
        "branch",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 3])],
    )
    nodes = [
        helper.make_node("If", ["c"], ["y"], name="if", then_branch=branch, else_branch=branch),
        helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(numpy.ones((2, 2), "float32"))),
        helper.make_node("LeakyRelu", ["y"], ["z"], alpha=0.25),
        helper.make_node("Pad", ["z"], ["p"], mode="reflect", pads=[1, 2], value_floats=[0.5, 1.5]),
        helper.make_node("Twice", ["p"], ["q"], domain="local"),
    ]
    twice = helper.make_function(
        "local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])], []
    )
    graph = helper.make_graph(
        nodes,
        "main",
        [helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("q", TensorProto.FLOAT, ["n", 3])],
        initializer=[numpy_helper.from_array(numpy.zeros((4, 5), "float32"), "w")],
    )
    opsets = [helper.make_opsetid("", 21), helper.make_opsetid("local", 1)]
    data = helper.make_model(graph, functions=[twice], opset_imports=opsets).SerializeToString()
    theirs = child.walk_tool(onnx.load_model_from_string(data))
    ours = child.walk_tool(wirecodec.decode(ModelProto, data))
    assert ours == theirs
    # Main graph, both branches; the function's node; every attribute, the graphs' included.
    assert (theirs["graphs"], theirs["nodes"], theirs["attributes"]) == (3, 8, 7)
    assert (theirs["floats"], theirs["float_sum"], theirs["initializers"]) == (3, 2.25, 1)


def test_the_installed_models_are_fetched_without_the_network(tmp_path: pathlib.Path) -> None:
    import wirecodec

    for model in models_people_have.catalogue(fetch=False):
        path = models_people_have.ensure(tmp_path, model.key)
        assert path == models_people_have.path_of(tmp_path, model.key)
        assert wirecodec.load(path).graph.node, model.key
    keys = [model.key for model in models_people_have.CATALOGUE]
    assert len(set(keys)) == len(keys) and len(keys) - len(models_people_have.catalogue(fetch=False)) >= 8
