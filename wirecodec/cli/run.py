"""Run a model with onnxruntime or wirecodec's numpy evaluator; with --compare, run a second
model on the same inputs and compare; with --compare-engine, run the same model on the other
engine and compare.

Inputs come from ``.npy`` files (``--input NAME=FILE.npy``) or are made up from the
declared types: normal floats, integers 0..9, booleans, letters, seeded by ``--seed``
(default 0, so two runs agree). A symbolic dimension takes its value from ``--dim
NAME=N`` (a name no input declares is an error); ``--shape INPUT=1,3,48,320`` gives an
input's whole shape, unnamed ``?`` axes included (it must agree with the declared rank
and fixed sizes); any other unknown axis is 1. Any layout runs (a single file past 2 GiB,
external data, ``.onnxz``, a URL), through ``wirecodec.onnxruntime_session`` on the CPU;
a model on standard input (``-``) is handed to onnxruntime as bytes.

onnxruntime's own log lines (warnings about the graph, and its error, which wirecodec
reports once, in its own line) are turned down to fatal ones; ``--ort-log-level`` shows
them (0 verbose ... 4 fatal). When the run fails and an input had unknown dimensions, the
error says which, the sizes chosen, and the ``--shape`` that sets them. ``--repeat N`` runs the model N
more times on the same inputs and reports the latency (min and median), after the first
run, which warms up.

``--engine onnxruntime`` or ``--engine reference`` (wirecodec's own numpy evaluator,
:class:`wirecodec.reference.ReferenceEvaluator`) says what runs the model; without it,
onnxruntime when it can be imported, else the reference evaluator, with a one-line notice
on standard error. ``--compare-engine ENGINE`` runs the same model on the same inputs with
ENGINE too, and compares as ``--compare`` does (same table, same exit code); the two options
do not go together.

With ``--compare OTHER``, outputs are matched by name (by position when the two models
share none) and compared as ``numpy.allclose(a, b, rtol, atol, equal_nan=True)``; the
exit code is 1 when any output differs. onnxruntime is optional:
``pip install wirecodec[ort]``.

  wirecodec run model.onnx --dim batch=4
  wirecodec run model.onnx --input x=x.npy --compare fp16.onnx --atol 1e-2
  wirecodec run model.onnxz --compare model.onnx --json
  wirecodec run model.onnx --engine reference
  wirecodec run model.onnx --compare-engine reference --atol 1e-4
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import TYPE_CHECKING, Any

from wirecodec.cli.common import CliError, Opened, UsageError, open_model, print_json
from wirecodec.errors import TensorError, WireCodecError
from wirecodec.protobuf.codec import encode

if TYPE_CHECKING:
    from wirecodec.cli.runner import Declared, Difference

# numpy, and the modules that import it (the input maker and comparison in cli.runner, the
# onnxruntime bridge), are imported when the verb runs: without numpy, ``run`` says so in
# one line (exit code 2) instead of a traceback, and the other verbs never load them.

__all__ = ["HELP", "add_arguments", "run"]

HELP = (
    "run a model with onnxruntime or the reference evaluator on given or random inputs "
    "(--compare: against another model, --compare-engine: against the other engine)"
)

NO_ONNXRUNTIME = "onnxruntime is not installed: pip install wirecodec[ort]"

NO_NUMPY = "running a model needs numpy, which is not installed: pip install numpy"

ENGINES = ("onnxruntime", "reference")

NOTICE = (
    "wirecodec run: onnxruntime is not installed, running with the reference evaluator (--engine reference)"
)


def _pairs(values: list[str] | None, what: str) -> dict[str, str]:
    pairs: dict[str, str] = {}
    for value in values or ():
        name, sep, rest = value.rpartition("=")
        if not sep or not name or not rest:
            raise UsageError(f"{what}: expected NAME=VALUE, got {value!r}")
        pairs[name] = rest
    return pairs


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "model",
        metavar="MODEL",
        help="an .onnx file, an .onnxz container, an https:// URL, or - for standard input",
    )
    parser.add_argument("--input", action="append", metavar="NAME=FILE.npy", help="an input's value")
    parser.add_argument("--dim", action="append", metavar="NAME=N", help="the value of a symbolic dimension")
    parser.add_argument(
        "--shape",
        action="append",
        metavar="INPUT=D0,D1,...",
        help="an input's whole shape (sets unnamed ? axes too)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=0,
        metavar="N",
        help="run N more times and report the latency (min, median)",
    )
    parser.add_argument(
        "--ort-log-level",
        type=int,
        choices=range(5),
        default=4,
        metavar="L",
        help="onnxruntime's log severity: 0 verbose, 1 info, 2 warning, 3 error, 4 fatal (default: "
        "its errors come once, as wirecodec's own line)",
    )
    parser.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="what runs the model: onnxruntime, or reference (wirecodec's numpy evaluator); "
        "default onnxruntime when it is installed, else reference",
    )
    parser.add_argument("--compare", metavar="OTHER", help="run OTHER on the same inputs and compare outputs")
    parser.add_argument(
        "--compare-engine",
        choices=ENGINES,
        default=None,
        metavar="ENGINE",
        help="run the same model with ENGINE (onnxruntime or reference) too and compare outputs",
    )
    parser.add_argument("--atol", type=float, default=1e-6, help="absolute tolerance (default 1e-6)")
    parser.add_argument("--rtol", type=float, default=1e-5, help="relative tolerance (default 1e-5)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")


def _options(level: int) -> Any:
    """Session options that keep onnxruntime's log at ``level`` and above (its default
    logger too: some warnings come before any session exists)."""
    import onnxruntime

    onnxruntime.set_default_logger_severity(level)
    options = onnxruntime.SessionOptions()
    options.log_severity_level = level
    return options


def _from_bytes(opened: Opened, level: int) -> Any:
    """A session for a model read from standard input: no file to map, so its encoding
    (which holds every tensor: nothing can refer to files beside a pipe)."""
    import onnxruntime

    return onnxruntime.InferenceSession(
        encode(opened.model), _options(level), providers=["CPUExecutionProvider"]
    )


def _session(opened: Opened, level: int = 4) -> Any:
    try:
        if opened.path is None:
            return _from_bytes(opened, level)
        from wirecodec.runtime_bridge import onnxruntime_session

        return onnxruntime_session(opened.path, _options(level), providers=["CPUExecutionProvider"])
    except ImportError:
        raise CliError(NO_ONNXRUNTIME) from None
    except (WireCodecError, OSError) as exc:
        raise CliError(f"{opened.label}: {exc}") from None
    except Exception as exc:  # onnxruntime's own errors derive from Exception only
        raise CliError(f"{opened.label}: onnxruntime: {_first_line(exc)}") from None


def _has_onnxruntime() -> bool:
    """Whether onnxruntime can be imported (imported here: the default engine depends on it)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


def _engine(args: argparse.Namespace) -> str:
    """The engine that runs the model: ``--engine``, else onnxruntime when importable, else
    the reference evaluator with a notice on standard error."""
    if args.engine is not None:
        return str(args.engine)
    if _has_onnxruntime():
        return "onnxruntime"
    print(NOTICE, file=sys.stderr)
    return "reference"


class _ReferenceSession:
    """The reference evaluator behind the few session methods :func:`_execute` uses."""

    def __init__(self, opened: Opened) -> None:
        from wirecodec.reference import ReferenceEvaluator

        try:
            self.evaluator = ReferenceEvaluator(opened.model)
        except WireCodecError as exc:
            raise CliError(f"{opened.label}: reference evaluator: {exc}") from None
        self.label = opened.label

    def get_outputs(self) -> list[Any]:
        return [argparse.Namespace(name=name) for name in self.evaluator.output_names]

    def get_inputs(self) -> list[Any]:
        return [argparse.Namespace(name=name) for name in self.evaluator.input_names]

    def run(self, names: Any, values: dict[str, Any]) -> list[Any]:
        try:
            return list(self.evaluator.run(names, values))
        except WireCodecError as exc:
            raise _EngineError(f"reference evaluator: {exc}") from None


class _EngineError(Exception):
    """A reference evaluator's failure during a run, already worded."""


def _make_session(opened: Opened, engine: str, level: int) -> Any:
    if engine == "reference":
        return _ReferenceSession(opened)
    return _session(opened, level)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _execute(
    opened: Opened, session: Any, values: dict[str, Any], guessed: str = ""
) -> tuple[list[str], list[Any]]:
    """Run ``session``; a failure is one line, with ``guessed`` (what :func:`_guessed` says
    about sizes chosen for unknown dimensions) after it."""
    names = [output.name for output in session.get_outputs()]
    wanted = {i.name for i in session.get_inputs()}
    try:
        return names, list(session.run(None, {k: v for k, v in values.items() if k in wanted}))
    except _EngineError as exc:
        raise CliError(f"{opened.label}: {_first_line(exc)}{guessed}") from None
    except Exception as exc:  # onnxruntime's own errors derive from Exception only
        raise CliError(f"{opened.label}: onnxruntime: {_first_line(exc)}{guessed}") from None


def shape_text(shape: list[int]) -> str:
    """``[1,3,48,320]``."""
    return "[" + ",".join(map(str, shape)) + "]"


def _guessed(args: argparse.Namespace, specs: list[Declared], values: dict[str, Any]) -> str:
    """For a failed run: the inputs whose unknown dimensions (symbolic, or ``?``) were given
    no size and got 1, what shape they ran with, and the options that set them."""
    given = set(_pairs(args.input, "--input")) | set(_pairs(args.shape, "--shape"))
    sized = set(_pairs(args.dim, "--dim"))
    parts, hints = [], []
    for spec in specs:
        if spec.name in given or spec.dims is None or spec.name not in values:
            continue
        unknown = [d for d in spec.dims if not isinstance(d, int) and d not in sized]
        if not unknown:
            continue
        shape = list(getattr(values[spec.name], "shape", ()))
        named = ", ".join("?" if d is None else str(d) for d in unknown)
        ran = shape_text(shape)
        parts.append(f"input {spec.name!r} {spec.describe()} has unknown dims ({named}): ran as {ran}")
        sizes = ",".join(str(d) if isinstance(d, int) else "N" for d in spec.dims)
        hints.append(f"--shape {spec.name}={sizes}")
    if not parts:
        return ""
    shown = "; ".join(parts)
    return f"\n  {shown} (1 for each unknown)\n  hint: {' '.join(hints)} sets them (or --dim NAME=N)"


def _inputs(args: argparse.Namespace, specs: list[Declared]) -> dict[str, Any]:
    import numpy as np

    from wirecodec.cli.runner import feeds

    given = {}
    for name, path in _pairs(args.input, "--input").items():
        try:
            given[name] = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise CliError(f"--input {name}={path}: {exc}") from None
    dims = {}
    symbolic = sorted({d for spec in specs for d in spec.dims or () if isinstance(d, str)})
    for name, text in _pairs(args.dim, "--dim").items():
        if not text.isdigit():
            raise UsageError(f"--dim {name}: expected a non-negative integer, got {text!r}")
        if name not in symbolic:
            known = ", ".join(symbolic) or "none"
            raise UsageError(
                f"--dim {name}: no input has a dimension named {name!r} (named ones: {known}; "
                "--shape INPUT=... sets any axis)"
            )
        dims[name] = int(text)
    shaped = _shapes(args, specs, given)
    try:
        return {**feeds(specs, given, dims, args.seed), **shaped}
    except TensorError as exc:
        raise UsageError(f"{args.model}: {exc}") from None


def _shapes(args: argparse.Namespace, specs: list[Declared], given: dict[str, Any]) -> dict[str, Any]:
    """Random values for the inputs ``--shape`` gives a whole shape (checked against the declared one)."""
    import numpy as np

    from wirecodec.cli.runner import Declared, feeds

    by_name = {spec.name: spec for spec in specs}
    made: dict[str, Any] = {}
    rng = np.random.default_rng(args.seed + 1)  # its own stream: the other inputs stay as without --shape
    for name, text in _pairs(args.shape, "--shape").items():
        spec = by_name.get(name)
        if spec is None:
            raise UsageError(
                f"--shape {name}: the model has no input {name!r} ({', '.join(by_name) or 'none'})"
            )
        if name in given:
            raise UsageError(f"--shape {name}: the input is given by --input already")
        parts = text.split(",")
        if not all(part.strip().isdigit() for part in parts):
            raise UsageError(f"--shape {name}: expected sizes like 1,3,48,320, got {text!r}")
        shape = tuple(int(part) for part in parts)
        if spec.dims is not None:
            if len(shape) != len(spec.dims):
                raise UsageError(
                    f"--shape {name}: {len(shape)} axes, but {spec.describe()} has {len(spec.dims)}"
                )
            for axis, (want, got) in enumerate(zip(spec.dims, shape, strict=True)):
                if isinstance(want, int) and want != got:
                    raise UsageError(
                        f"--shape {name}: axis {axis} is fixed at {want} ({spec.describe()}), not {got}"
                    )
        fixed = Declared(spec.name, spec.elem_type, shape, spec.kind)
        try:
            made[name] = feeds([fixed], {}, {}, int(rng.integers(1 << 31)))[name]
        except TensorError as exc:
            raise UsageError(f"{args.model}: {exc}") from None
    return made


def _describe(value: Any) -> dict[str, Any]:
    import numpy as np

    if not isinstance(value, np.ndarray):
        return {"type": type(value).__name__}
    facts: dict[str, Any] = {"dtype": str(value.dtype), "shape": list(value.shape)}
    if value.size and value.dtype.kind in "biuf":
        numbers = value.astype(np.float64)
        facts.update(
            min=float(np.nanmin(numbers)), max=float(np.nanmax(numbers)), mean=float(np.nanmean(numbers))
        )
    return facts


def _print_outputs(names: list[str], outputs: list[Any]) -> None:
    width = max((len(name) for name in names), default=0)
    for name, value in zip(names, outputs, strict=True):
        facts = _describe(value)
        if "dtype" not in facts:
            print(f"{name:<{width}}  {facts['type']}")
            continue
        line = f"{name:<{width}}  {facts['dtype']}[{','.join(map(str, facts['shape']))}]"
        if "mean" in facts:
            line += f"  min {facts['min']:.6g}  max {facts['max']:.6g}  mean {facts['mean']:.6g}"
        print(line)


def _print_table(rows: list[Difference], atol: float, rtol: float) -> None:
    width = max([len("output"), *(len(row.name) for row in rows)])
    print(f"{'output':<{width}}  {'max abs':>10}  {'max rel':>10}  result")
    for row in rows:
        number = [f"{v:10.3g}" if v is not None else f"{'-':>10}" for v in (row.max_abs, row.max_rel)]
        verdict = "same" if row.same else "DIFFERENT"
        note = f"  ({row.note})" if row.note else ""
        print(f"{row.name:<{width}}  {number[0]}  {number[1]}  {verdict}{note}")
    differ = sum(not row.same for row in rows)
    print(f"{differ} of {len(rows)} outputs differ (atol {atol:g}, rtol {rtol:g})")


def _same_inputs(
    other: list[Declared], specs: list[Declared], values: dict[str, Any], label: str, first: str
) -> dict[str, Any]:
    """The first model's inputs for the second: by name, or by position when no name is shared."""
    missing = [spec.name for spec in other if spec.name not in values]
    if not missing:
        return values
    if len(other) == len(specs) and not {s.name for s in other} & {s.name for s in specs}:
        return {mine.name: values[theirs.name] for mine, theirs in zip(other, specs, strict=True)}
    raise UsageError(f"{label} needs inputs {', '.join(map(repr, missing))} that {first} lacks")


def _latency(opened: Opened, session: Any, values: dict[str, Any], repeat: int) -> dict[str, Any]:
    """Wall time of ``repeat`` more runs on the same inputs, in milliseconds."""
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        _execute(opened, session, values)
        times.append((time.perf_counter() - started) * 1000)
    return {"runs": repeat, "min_ms": min(times), "median_ms": statistics.median(times), "max_ms": max(times)}


def _need_numpy() -> None:
    """Refuse, in one line (exit code 2), when numpy cannot be imported."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        raise UsageError(NO_NUMPY) from None


def run(args: argparse.Namespace) -> int:
    _need_numpy()
    from wirecodec.cli.runner import compare, declared_inputs

    if args.repeat < 0:
        raise UsageError(f"--repeat: expected 0 or more, got {args.repeat}")
    if args.compare is not None and args.compare_engine is not None:
        raise UsageError("--compare and --compare-engine do not go together: choose one")
    engine = _engine(args)
    opened = open_model(args.model, options=args)
    specs = declared_inputs(opened.model)
    values = _inputs(args, specs)
    session = _make_session(opened, engine, args.ort_log_level)
    names, outputs = _execute(opened, session, values, _guessed(args, specs, values))
    report: dict[str, Any] = {
        "model": opened.label,
        "engine": engine,
        "inputs": {
            spec.name: {
                "declared": spec.describe(),
                "source": "file" if spec.name in _pairs(args.input, "--input") else "random",
                **_describe(values[spec.name]),
            }
            for spec in specs
        },
        "outputs": {name: _describe(value) for name, value in zip(names, outputs, strict=True)},
    }
    if args.repeat:
        report["latency"] = _latency(opened, session, values, args.repeat)
    rows: list[Difference] = []
    if args.compare is not None:
        other = open_model(args.compare, options=args)
        other_values = _same_inputs(declared_inputs(other.model), specs, values, other.label, opened.label)
        other_names, other_outputs = _execute(other, _session(other, args.ort_log_level), other_values)
        rows = compare(names, outputs, other_names, other_outputs, atol=args.atol, rtol=args.rtol)
        report["compare"] = {
            "model": other.label,
            "atol": args.atol,
            "rtol": args.rtol,
            "outputs": [row.to_dict() for row in rows],
            "same": all(row.same for row in rows),
        }
    elif args.compare_engine is not None:
        second = _make_session(opened, args.compare_engine, args.ort_log_level)
        other_names, other_outputs = _execute(opened, second, values)
        rows = compare(names, outputs, other_names, other_outputs, atol=args.atol, rtol=args.rtol)
        report["compare"] = {
            "model": opened.label,
            "engine": args.compare_engine,
            "atol": args.atol,
            "rtol": args.rtol,
            "outputs": [row.to_dict() for row in rows],
            "same": all(row.same for row in rows),
        }
    if args.json:
        print_json(report)
    else:
        for name, facts in report["inputs"].items():
            shape = ",".join(map(str, facts.get("shape", [])))
            print(f"input {name}: {facts['declared']} <- {facts['source']} {facts.get('dtype', '')}[{shape}]")
        _print_outputs(names, outputs)
        if args.repeat:
            latency = report["latency"]
            print(
                f"latency over {latency['runs']} runs: min {latency['min_ms']:.3f} ms, "
                f"median {latency['median_ms']:.3f} ms (after one warm-up run)"
            )
        if rows and args.compare_engine is not None:
            print(f"compared with engine {args.compare_engine} ({engine} above):")
            _print_table(rows, args.atol, args.rtol)
        elif rows:
            print(f"compared with {report['compare']['model']}:")
            _print_table(rows, args.atol, args.rtol)
    sys.stdout.flush()
    return 0 if all(row.same for row in rows) else 1
