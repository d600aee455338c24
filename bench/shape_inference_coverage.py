"""How often wirecodec's shape inference equals onnx's on the backend corpus, and the gaps by op.

PYTHONPATH=. .venv/bin/python bench/shape_inference_coverage.py [--data-prop] [--show OP]
"""

from __future__ import annotations

import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent.parent))

from tests.differential.shape_compare import compare, summarize
from tests.support.reference import backend_corpus


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--data-prop", action="store_true", help="compare with data_prop=True")
    parser.add_argument("--show", metavar="OP", help="print the differing values of models where OP differs")
    parser.add_argument("--limit", type=int, default=5, help="how many models --show prints")
    args = parser.parse_args()
    models = [i for i in backend_corpus() if i.name.endswith("model.onnx")]
    results = [compare(i.name, i.data, args.data_prop) for i in models]
    fraction, gaps = summarize(results)
    refused = sum(r.error.startswith("onnx") for r in results)
    print(
        f"backend corpus: {sum(r.equal for r in results)}/{len(results)} models equal ({fraction:.1%})"
        f"{' with data_prop' if args.data_prop else ''}; onnx refused {refused} of them (counted equal)"
    )
    print("models differing, by op producing a differing value:")
    for op, n in gaps.most_common():
        print(f"  {op:32} {n}")
    if args.show:
        shown = 0
        for r in results:
            if (
                args.show in r.ops or (args.show == "<error>" and r.error and not r.equal)
            ) and shown < args.limit:
                shown += 1
                print(f"\n{r.name} {r.error}")
                for value, theirs, ours in r.differing[:6]:
                    print(f"  {value}\n    onnx: {theirs}\n    ours: {ours}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
