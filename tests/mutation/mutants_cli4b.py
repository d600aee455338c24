"""Issues 43 and 45 (branch cli4b): bugs planted in run --engine, edit --fold-constants,
the writing verbs' --json and their progress, each with the tests that must notice it."""

from __future__ import annotations

from tests.mutation.mutant import Mutant

_ENGINES = "tests/cli/test_run_engines.py"
_FOLD = "tests/cli/test_fold_constants.py"
_JSON = "tests/cli/test_write_verbs_json.py"
_PROGRESS = "tests/cli/test_progress_writers.py"

MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "cli4b-no-notice",
        "wirecodec/cli/run.py",
        "    print(NOTICE, file=sys.stderr)\n",
        "",
        (_ENGINES,),
        "without onnxruntime the reference evaluator runs silently, no notice",
    ),
    Mutant(
        "cli4b-compare-engine-same-engine",
        "wirecodec/cli/run.py",
        "        second = _make_session(opened, args.compare_engine, args.ort_log_level)",
        "        second = _make_session(opened, engine, args.ort_log_level)",
        (_ENGINES,),
        "--compare-engine runs the first engine twice, so the engines always agree",
    ),
    Mutant(
        "cli4b-fold-input-initializer",
        "wirecodec/reference/fold.py",
        "        if tensor.name not in inputs:\n            values[tensor.name] = tensor",
        "        values[tensor.name] = tensor",
        (_FOLD,),
        "an initializer that is also a graph input (which a feed overrides) is taken as constant",
    ),
    Mutant(
        "cli4b-fold-limit-ignored",
        "wirecodec/reference/fold.py",
        "            elif size > limit:",
        "            elif size > limit * 1024:",
        (_FOLD,),
        "the fold limit is read as KiB: a node far over it is folded",
    ),
    Mutant(
        "cli4b-fold-keeps-dead",
        "wirecodec/reference/fold.py",
        "    live = [t for t in graph.initializer if t.name in wanted or t.name in inputs]",
        "    live = list(graph.initializer)",
        (_FOLD,),
        "initializers nothing reads any more are kept",
    ),
    Mutant(
        "cli4b-fold-into-bodies",
        "wirecodec/reference/fold.py",
        '    if any(True for _ in bodies(node)):\n        return "it holds a subgraph (left alone)"\n',
        "",
        (_FOLD,),
        "If/Loop/Scan nodes with constant inputs are folded too",
    ),
    Mutant(
        "cli4b-convert-json-bytes",
        "wirecodec/cli/convert.py",
        '        "bytes": written.size,',
        '        "bytes": written.size + len(str(args.dst)),',
        (_JSON,),
        "convert --json's bytes is not the size of the file written",
    ),
    Mutant(
        "cli4b-convert-quiet-ignored",
        "wirecodec/cli/convert.py",
        "    shown = not args.quiet and not args.json and sys.stderr.isatty()",
        "    shown = not args.json and sys.stderr.isatty()",
        (_PROGRESS,),
        "convert --quiet still draws its progress line",
    ),
)
