"""One file through one built-in parser, in a process of its own (what the compare runner starts).

``python -m wirecodec.fuzz.parse_one PARSER FILE`` prints one JSON line::

    {"parsed": true, "stages": {"checker": "ok", ...}, "digest": "ab12...", "error": null}

``parsed`` says whether the protobuf parse succeeded; ``stages`` what the parser did
next (onnx: checker, full checker with shape inference, shape inference; onnxruntime:
session creation; wirecodec: the IR check), each ``ok`` or the first line of its
error; ``digest`` is the SHA-256 of the parsed model's canonical re-serialization,
where the parser exposes one, ``known_digest`` the same without unknown fields. Every
mention of the file's path in the line is replaced by ``{}``. A crash kills this
process (the runner sees the signal); an exception outside the parsers' own errors ends
it without a result line (the runner reports that as a crash too).
"""

from __future__ import annotations

import hashlib
import json
import pathlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["BUILTIN", "main"]


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:300]


def _stage(stages: dict[str, str], name: str, action: Callable[[], object]) -> None:
    try:
        action()
        stages[name] = "ok"
    except Exception as exc:  # the parser's own error: a result, not a harness failure
        stages[name] = _first_line(exc)


def _with_onnx(path: str) -> dict[str, Any]:
    import onnx
    from google.protobuf.message import DecodeError

    data = pathlib.Path(path).read_bytes()
    try:
        model = onnx.load_model_from_string(data)
    except DecodeError as exc:
        return {"parsed": False, "stages": {}, "digest": None, "error": _first_line(exc)}
    digest = hashlib.sha256(model.SerializeToString()).hexdigest()
    known = onnx.ModelProto()
    known.CopyFrom(model)
    known.DiscardUnknownFields()
    known_digest = hashlib.sha256(known.SerializeToString()).hexdigest()
    stages: dict[str, str] = {}
    _stage(stages, "checker", lambda: onnx.checker.check_model(model))
    _stage(stages, "checker_full", lambda: onnx.checker.check_model(model, full_check=True))
    _stage(stages, "shape_inference", lambda: onnx.shape_inference.infer_shapes(model))
    return {"parsed": True, "stages": stages, "digest": digest, "known_digest": known_digest, "error": None}


def _with_onnxruntime(path: str) -> dict[str, Any]:
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.log_severity_level = 4  # errors come back as exceptions; keep stderr quiet
    try:
        onnxruntime.InferenceSession(path, options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        message = _first_line(exc)
        parsed = "Protobuf parsing failed" not in message and "INVALID_PROTOBUF" not in message
        return {"parsed": parsed, "stages": {"session": message}, "digest": None, "error": message}
    return {"parsed": True, "stages": {"session": "ok"}, "digest": None, "error": None}


def _with_wirecodec(path: str) -> dict[str, Any]:
    from schema_dsl.onnx import ModelProto
    from wirecodec.checker import violations
    from wirecodec.errors import DecodeError
    from wirecodec.files.opener import open_model
    from wirecodec.protobuf.codec import decode, encode

    data = pathlib.Path(path).read_bytes()
    try:
        model = decode(ModelProto, data, lazy=False)
    except DecodeError as exc:
        return {"parsed": False, "stages": {}, "digest": None, "error": _first_line(exc)}
    digest = hashlib.sha256(encode(model)).hexdigest()
    model.DiscardUnknownFields()
    known_digest = hashlib.sha256(encode(model)).hexdigest()
    stages: dict[str, str] = {}

    def check() -> None:
        found = violations(open_model(path))
        if found:
            raise ValueError(f"{len(found)} violations, first: {found[0]}")

    _stage(stages, "check", check)
    return {"parsed": True, "stages": stages, "digest": digest, "known_digest": known_digest, "error": None}


BUILTIN: dict[str, Callable[[str], dict[str, Any]]] = {
    "onnx": _with_onnx,
    "onnxruntime": _with_onnxruntime,
    "wirecodec": _with_wirecodec,
}


def main(argv: list[str]) -> int:
    """Run one parser on one file; print its JSON line."""
    parser, path = argv
    result = BUILTIN[parser](path)
    # Messages that name the file would make every file's result differ from its origin's.
    text = json.dumps(result).replace(json.dumps(path)[1:-1], "{}")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
