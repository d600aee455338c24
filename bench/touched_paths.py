"""Peak memory of two paths round 10 changed, beside onnx where onnx has the same step.

    python bench/touched_paths.py [KEY...] [--repeat N]     # default: gpt-small

Each measurement is a fresh process reporting its own peak resident size (``VmHWM``),
best and worst of ``--repeat`` (default 3), on ``bench/inputs.py``'s dynamo exports:

* ``append-save``: a folder holds ``shared.data``, written by onnx's saver for the same
  model (another model's data file); the process loads the model and saves it with
  ``save_model(..., save_as_external_data=True, location="shared.data")``, which appends
  to that file — ``onnx`` and ``wirecodec.onnx_compat``, the same program;
* ``zip-past-prefix``: the model converted to a zip container (``wirecodec convert --to
  zip``) and written after a 4 KiB prefix; the process opens the file, seeks past the
  prefix, ``wirecodec.load(file)``s it and adds up its initializers' sizes. Beside it,
  ``zip-by-path``: ``wirecodec.load`` of the container's own file. onnx reads no container.

The data files each step leaves are compared between the two libraries (``append-save``:
byte for byte).
"""

from __future__ import annotations

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent

_PEAK = (
    "import os\n"
    "def _peak():\n"
    "    s = open('/proc/self/status').read()\n"
    "    os.write(2, ('\\nPEAK_KB ' + s.split('VmHWM:')[1].split()[0] + '\\n').encode())\n"
)
PROGRAMS = {
    "append-save": _PEAK
    + (
        "import sys\n"
        "if sys.argv[1] == 'onnx':\n    import onnx\n"
        "else:\n    import wirecodec.onnx_compat as onnx\n"
        "m = onnx.load(sys.argv[2])\n"
        "onnx.save_model(m, sys.argv[3], save_as_external_data=True, location='shared.data')\n"
        "_peak()\n"
    ),
    "zip-past-prefix": _PEAK
    + (
        "import sys, wirecodec\n"
        "with open(sys.argv[2], 'rb') as f:\n"
        "    f.seek(4096)\n"
        "    m = wirecodec.load(f)\n"
        "print(sum(len(t.raw_data) for t in m.graph.initializer))\n"
        "_peak()\n"
    ),
    "zip-by-path": _PEAK
    + (
        "import sys, wirecodec\n"
        "m = wirecodec.load(sys.argv[2])\n"
        "print(sum(len(t.raw_data) for t in m.graph.initializer))\n"
        "_peak()\n"
    ),
}


def peak_mb(argv: list[str]) -> tuple[float, str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
    kb = int(done.stderr.split("PEAK_KB ")[-1].split()[0])
    return kb / 1024, done.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("keys", nargs="*", default=["gpt-small"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cache", type=pathlib.Path, default=HERE / ".cache")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(HERE))
    import inputs
    import onnx

    print("| model | path | library | peak MB (best-worst) | result |")
    print("|---|---|---|---|---|")
    for key in args.keys:
        model = inputs.ensure(args.cache, inputs.FULL, key)
        with tempfile.TemporaryDirectory() as scratch:
            work = pathlib.Path(scratch)
            made: dict[str, bytes] = {}
            for library in ("onnx", "wirecodec"):
                peaks = []
                for _ in range(args.repeat):
                    folder = work / library
                    shutil.rmtree(folder, ignore_errors=True)
                    folder.mkdir()
                    other = onnx.load(str(model))  # another model's data file, there first
                    onnx.save_model(
                        other, str(folder / "other.onnx"), save_as_external_data=True, location="shared.data"
                    )
                    mb, _ = peak_mb(
                        [
                            sys.executable,
                            "-c",
                            PROGRAMS["append-save"],
                            library,
                            str(model),
                            str(folder / "m.onnx"),
                        ]
                    )
                    peaks.append(mb)
                made[library] = (folder / "shared.data").read_bytes()
                same = "data file = onnx's" if made[library] == made["onnx"] else "DATA FILE DIFFERS"
                print(f"| {key} | append-save | {library} | {min(peaks):,.0f}-{max(peaks):,.0f} | {same} |")
            container = work / "m.onnxz"
            subprocess.run(
                [sys.executable, "-m", "wirecodec", "convert", str(model), str(container), "--to", "zip"],
                check=True,
                env={**os.environ, "PYTHONPATH": str(ROOT)},
                capture_output=True,
            )
            prefixed = work / "prefixed.bin"
            prefixed.write_bytes(b"\0" * 4096 + container.read_bytes())
            for path, source in (("zip-past-prefix", prefixed), ("zip-by-path", container)):
                runs = [
                    peak_mb([sys.executable, "-c", PROGRAMS[path], "wirecodec", str(source)])
                    for _ in range(args.repeat)
                ]
                mbs = [mb for mb, _ in runs]
                print(
                    f"| {key} | {path} | wirecodec | {min(mbs):,.0f}-{max(mbs):,.0f} | "
                    f"{runs[0][1]} weight bytes |"
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
