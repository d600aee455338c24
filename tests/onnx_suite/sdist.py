"""The onnx sdist matching the installed onnx, fetched once from the package index and cached.

The sdist carries onnx's Python tests (``tests/python/`` in 1.23); only those are extracted.
Nothing is built: the tests run against the installed onnx wheel (or the shim).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import pathlib
import shutil
import tarfile
import tempfile
import urllib.request

REPO = pathlib.Path(__file__).resolve().parents[2]
# gitignored; the mutation harness points its copies of the tree at the original's cache
CACHE = pathlib.Path(os.environ.get("WIRECODEC_ONNX_SUITE_CACHE") or REPO / ".onnx_suite_cache")
INDEX = os.environ.get("WIRECODEC_ONNX_SUITE_INDEX", "https://pypi.org/simple")
# Where the sdist keeps its Python tests (newest layout first).
TEST_FOLDERS = ("tests/python", "onnx/test")


class FetchError(RuntimeError):
    """The sdist could not be obtained (no network, no such release, a checksum mismatch)."""


def installed_onnx_version() -> str:
    """The version of the onnx distribution installed in this interpreter."""
    return importlib.metadata.version("onnx")


def _sdist_url(version: str) -> tuple[str, str]:
    """The download URL and sha256 of ``onnx-<version>.tar.gz``, from the simple index (PEP 691 JSON)."""
    request = urllib.request.Request(
        f"{INDEX}/onnx/", headers={"Accept": "application/vnd.pypi.simple.v1+json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            listing = json.load(response)
    except (OSError, ValueError) as error:
        raise FetchError(f"cannot read the package index {INDEX}/onnx/: {error}") from error
    wanted = f"onnx-{version}.tar.gz"
    for entry in listing.get("files", []):
        if entry.get("filename") == wanted:
            return str(entry["url"]), str(entry.get("hashes", {}).get("sha256", ""))
    raise FetchError(f"the index {INDEX} lists no {wanted}")


def _download(url: str, sha256: str, target: pathlib.Path) -> None:
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as partial:
        try:
            with urllib.request.urlopen(url, timeout=120) as response:
                while chunk := response.read(1 << 20):
                    digest.update(chunk)
                    partial.write(chunk)
        except OSError as error:
            os.unlink(partial.name)
            raise FetchError(f"cannot download {url}: {error}") from error
    if sha256 and digest.hexdigest() != sha256:
        os.unlink(partial.name)
        raise FetchError(f"{url}: sha256 {digest.hexdigest()}, the index says {sha256}")
    os.replace(partial.name, target)


def suite_folder(version: str | None = None) -> pathlib.Path:
    """The folder of onnx's Python tests for ``version`` (default: the installed one), fetched if needed."""
    version = version or installed_onnx_version()
    extracted = CACHE / f"onnx-{version}-tests"
    if extracted.is_dir():
        return extracted
    CACHE.mkdir(exist_ok=True)
    archive = CACHE / f"onnx-{version}.tar.gz"
    if not archive.is_file():
        _download(*_sdist_url(version), archive)
    staging = pathlib.Path(tempfile.mkdtemp(dir=CACHE, prefix=".extract-"))
    try:
        with tarfile.open(archive) as tar:
            prefix = f"onnx-{version}/"
            for folder in TEST_FOLDERS:
                members = [m for m in tar.getmembers() if m.name.startswith(prefix + folder + "/")]
                if members:
                    break
            else:
                raise FetchError(f"{archive.name} has none of {TEST_FOLDERS}")
            for member in members:
                if member.isfile() and member.name.endswith(".py"):
                    relative = member.name[len(prefix + folder) + 1 :]
                    destination = staging / relative
                    destination.parent.mkdir(parents=True, exist_ok=True)
                    source = tar.extractfile(member)
                    assert source is not None
                    destination.write_bytes(source.read())
        os.replace(staging, extracted)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return extracted
