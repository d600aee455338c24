"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.exports import Export, make_exports

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
