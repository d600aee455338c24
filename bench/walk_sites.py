"""The one walk over a decoded graph, in one process: every site, and the sites toward tensors.

    python bench/walk_sites.py [MODEL] [--rounds N]

Decodes the model (default ``bench/.cache/meta-100000``: ``python bench/inputs.py
meta-100000``), then times ``wirecodec.protobuf.walk.walk`` over it ``--rounds`` times: the
whole walk (every message) and the walk toward ``TensorProto`` (what ``load``, ``save`` and
the checker's tensor rules run), CPU seconds, with the number of sites (the same on every
round and in every version of the walk: only its cost changes).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

import wirecodec  # noqa: E402  (after the path is set)
from schema_dsl.onnx import ModelProto, TensorProto  # noqa: E402
from wirecodec.protobuf.walk import walk  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "model", nargs="?", type=pathlib.Path, default=HERE / ".cache" / "meta-100000" / "model.onnx"
    )
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    model = wirecodec.decode(ModelProto, args.model.read_bytes())
    for _ in range(args.rounds):
        start = time.process_time()
        every = sum(1 for _ in walk(model))
        middle = time.process_time()
        toward = sum(1 for _ in walk(model, (TensorProto,)))
        end = time.process_time()
        whole, toward_time = middle - start, end - middle
        print(
            f"whole walk {whole:.2f} s ({every} sites); toward tensors {toward_time:.2f} s ({toward} sites)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
