"""Regenerate onnx_passes.txt: the backend node tests onnx's own evaluator passes.

python -m tests.differential.reference_backend.baseline  (a few minutes)
"""

from __future__ import annotations

import sys
import warnings

from tests.differential.reference_backend import BASELINE, cases, run_case


class _OnnxEvaluator:
    def __init__(self, data: bytes) -> None:
        import onnx
        from onnx.reference import ReferenceEvaluator

        self._sess = ReferenceEvaluator(onnx.load_from_string(data))

    def run(self, names: list[str], feeds: dict[str, object]) -> list[object]:
        return list(self._sess.run(names, feeds))


def main() -> int:
    passed = []
    all_cases = cases()
    for name, case in sorted(all_cases.items()):
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run_case(_OnnxEvaluator, case)
        except Exception as exc:
            print(f"onnx fails {name}: {type(exc).__name__}", file=sys.stderr)
            continue
        passed.append(name)
    import onnx

    BASELINE.write_text(
        f"# backend node tests onnx {onnx.__version__}'s ReferenceEvaluator passes "
        f"({len(passed)} of {len(all_cases)}); regenerate: "
        "python -m tests.differential.reference_backend.baseline\n" + "".join(f"{n}\n" for n in passed)
    )
    print(f"{len(passed)} of {len(all_cases)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
