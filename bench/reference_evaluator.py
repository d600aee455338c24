"""wirecodec.reference vs onnx.reference on onnx's backend node tests: time to build and run.

PYTHONPATH=. .venv/bin/python bench/reference_evaluator.py [--repeat N] [--only SUBSTRING] [--top K]

Each test both evaluators pass is timed as onnx's backend runner uses an evaluator:
build from the model, then run every data set; the best of ``--repeat`` runs counts.
Each evaluator is given the model already parsed into its own classes (onnx's
``ModelProto``; wirecodec's, decoded once before timing), so neither pays a parse.
Prints the totals, their ratio, the spread of per-test ratios and the tests where ours
is slowest relative to onnx's.
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
import warnings
from typing import Any

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from tests.differential.reference_backend import BASELINE, KNOWN_GAPS, cases, read_names

_DECODED: dict[str, Any] = {}


def _ours(case: Any) -> None:
    from wirecodec.reference import ReferenceEvaluator

    _run(ReferenceEvaluator(_DECODED[case.name]), case)


def _theirs(case: Any) -> None:
    from onnx.reference import ReferenceEvaluator

    _run(ReferenceEvaluator(case.model), case)


def _run(sess: Any, case: Any) -> None:
    names = [i.name for i in case.model.graph.input]
    outs = [o.name for o in case.model.graph.output]
    for inputs, _ in case.data_sets:
        sess.run(outs, dict(zip(names[: len(inputs)], inputs, strict=True)))


def _best(fn: Any, case: Any, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn(case)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", default="")
    parser.add_argument("--top", type=int, default=10)
    args = parser.parse_args()
    names = [n for n in sorted(read_names(BASELINE)) if n not in read_names(KNOWN_GAPS) and args.only in n]
    all_cases = cases()
    from schema_dsl.onnx import ModelProto
    from wirecodec import decode

    for name in names:
        _DECODED[name] = decode(ModelProto, all_cases[name].model.SerializeToString())
    # warm both (imports, registries, the codec) before timing
    _ours(all_cases[names[0]])
    _theirs(all_cases[names[0]])
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in names:
            case = all_cases[name]
            rows.append((name, _best(_ours, case, args.repeat), _best(_theirs, case, args.repeat)))
    ours = sum(r[1] for r in rows)
    theirs = sum(r[2] for r in rows)
    ratios = sorted(r[1] / r[2] for r in rows)
    print(f"{len(rows)} backend node tests, best of {args.repeat}")
    print(f"  wirecodec.reference  {ours:8.2f} s")
    print(f"  onnx.reference       {theirs:8.2f} s")
    print(f"  ratio (ours/onnx)    {ours / theirs:8.2f}")
    quantiles = statistics.quantiles(ratios, n=10)
    print(
        f"  per-test ratio: median {statistics.median(ratios):.2f}, p10 {quantiles[0]:.2f}, "
        f"p90 {quantiles[-1]:.2f}, max {ratios[-1]:.2f}; slower than onnx on "
        f"{sum(r > 1 for r in ratios)} of {len(ratios)}"
    )
    print(f"slowest relative to onnx (top {args.top}):")
    for name, mine, other in sorted(rows, key=lambda r: r[2] / r[1])[: args.top]:
        print(f"  {name:60} {mine * 1e3:9.2f} ms  onnx {other * 1e3:9.2f} ms  x{mine / other:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
