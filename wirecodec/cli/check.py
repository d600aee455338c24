"""Check a model against the ONNX IR specification and its operator schemas; list every violation.

Each violation is printed as ``path: message [rule]``; ``--json`` prints an object
with the list of ``{"path", "rule", "message"}`` violations. External data is looked
for where the model's references point (files beside it, or a .onnxz container's
entries). A safetensors data file's header is checked (it must parse, cover its file,
and agree with the tensors that point into it: dtype, shape, offsets); that reads only
headers. ``--full`` also reads every data file and container entry whole to verify
checksums: the SHA1 a reference may give, and each .onnxz entry's CRC-32. That costs a
read of all the weights. Every node is checked against its operator's schema at the
imported opset, as onnx's ``check_model`` does; nodes of domains onnx has no schemas for
are skipped, and the output says which. ``--ir-only`` leaves the schema rules out. Exit
code 0 when the model is valid, 1 when it is not (or cannot be read), 2 for a usage error.
"""

from __future__ import annotations

import argparse

from schema_dsl.onnx import ModelProto
from wirecodec.checker import examine
from wirecodec.checker.violation import Violation
from wirecodec.cli.common import add_model_argument, open_model, print_json

HELP = "check a model against the ONNX IR rules and operator schemas"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_model_argument(parser)
    parser.add_argument(
        "--full",
        action="store_true",
        help="also verify checksums (SHA1 of data files, CRC-32 of .onnxz entries): reads every "
        "weight byte, as long as reading the whole model; without it only headers are read. "
        "Then strict shape inference with type checks, as onnx's full_check (reads no weight)",
    )
    parser.add_argument("--json", action="store_true", help="print the violations as JSON")
    parser.add_argument(
        "--ir-only", action="store_true", help="check the IR rules only, not nodes against operator schemas"
    )


def _strict_inference(model: ModelProto) -> list[Violation]:
    """``--full``: strict shape inference with type checks, as onnx's ``full_check`` runs it
    (on a model the other rules accept; it reads no weight)."""
    from wirecodec.shape_inference import InferenceError, infer_shapes  # only with --full

    try:
        infer_shapes(model, check_type=True, strict_mode=True)
    except InferenceError as exc:
        where = exc.node.split(" ")[0] if exc.node else "graph"
        return [Violation(where, "shape-inference", exc.reason)]
    return []


def _note(operators: dict[str, int], ir_only: bool, skipped: dict[str, int]) -> str:
    if ir_only:
        kinds = len(operators)
        return f"--ir-only: {kinds} operator type{'s' if kinds != 1 else ''} not checked against schemas"
    if not skipped:
        return "every node checked against its operator schema"
    shown = ", ".join(
        f"{domain} ({count} node{'s' if count != 1 else ''})" for domain, count in skipped.items()
    )
    return f"no schemas for domains {shown}: skipped as onnx skips them"


def run(args: argparse.Namespace) -> int:
    opened = open_model(args.model, load_external_data=False, check_safetensors=False)
    examined = examine(opened, full=args.full, ir_only=args.ir_only)  # one walk of the model
    found = list(examined.violations)  # the files layer's integrity problems among them
    if args.full and not found:
        found += _strict_inference(opened.model)
    skipped = examined.skipped_domains
    rules = "the IR rules" if args.ir_only else "the IR rules and operator schemas"
    note = _note(examined.operators, args.ir_only, skipped)
    if args.json:
        print_json(
            {
                "model": opened.label,
                "valid": not found,
                "schemas_checked": not args.ir_only,
                "skipped_domains": skipped,
                "violations": [v.to_dict() for v in found],
            }
        )
    elif found:
        for violation in found:
            print(violation)
        print(f"{opened.label}: {len(found)} violation{'s' if len(found) != 1 else ''} of {rules} ({note})")
    else:
        print(f"{opened.label}: valid under {rules} ({note})")
    return 1 if found else 0
