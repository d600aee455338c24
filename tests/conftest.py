"""Fixtures shared across test modules."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import settings

from tests.support.decode_modes import decode_mode  # noqa: F401  (the decode-mode matrix, for every test module)
from tests.support.exports import Export, make_exports
from tests.support.http_server import bad_server, nginx_server  # noqa: F401  (loopback servers, by name)

# The codec cache (wirecodec.protobuf.compile) goes to a temporary folder for the whole
# session, subprocesses included: the suite never writes the real home directory.
_CODE_CACHE = "WIRECODEC_CODE_CACHE"  # wirecodec.protobuf.compile.CACHE_ENV
_session_cache = tempfile.mkdtemp(prefix="wirecodec-codecs-")
os.environ[_CODE_CACHE] = _session_cache


# WIRECODEC_TEST_RECORDS_FROM_START=1: every graph decoded in this run keeps records,
# however short (wirecodec.protobuf.records: the whole suite on views; CI runs the
# message-behaviour tests so, tests/run.sh --records). The run replaces the library's
# default representation, which a decode uses when not told one; the library itself
# never changes it.
if os.environ.get("WIRECODEC_TEST_RECORDS_FROM_START") == "1":
    from wirecodec.protobuf import representation

    representation.DEFAULT = representation.Representation(records_always=True)


def pytest_unconfigure(config: pytest.Config) -> None:
    shutil.rmtree(_session_cache, ignore_errors=True)


# The inner loop (bash tests/run.sh --quick): whole modules that run in seconds and cover
# every layer (wire bytes, schema, layering, external data, every verb on every layout).
QUICK_MODULES = frozenset(
    {
        "test_wire.py",
        "test_golden_bytes.py",
        "test_schema.py",
        "test_layers.py",
        "test_external.py",
        "test_cli.py",
        "test_cli_verbs.py",
        "test_check_cli.py",
        "test_verb_matrix.py",
        "test_one_way_in.py",
        "test_remote.py",
    }
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in QUICK_MODULES:
            item.add_marker(pytest.mark.quick)


@pytest.fixture(scope="session")
def pytorch_exports(tmp_path_factory: pytest.TempPathFactory) -> list[Export]:
    """Small models exported by PyTorch (TorchScript and dynamo exporters), made once per run."""
    return make_exports(tmp_path_factory)


# No test times itself: Hypothesis's default per-example deadline (200 ms) would fail
# a correct test on a loaded machine, so every property test runs without one.
settings.register_profile("wirecodec", deadline=None)
settings.load_profile("wirecodec")
