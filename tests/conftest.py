"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest
from hypothesis import settings

from tests.decode_modes import decode_mode  # noqa: F401  (the decode-mode matrix, for every test module)
from tests.exports import Export, make_exports


@pytest.fixture(scope="session")
def pytorch_exports(tmp_path_factory: pytest.TempPathFactory) -> list[Export]:
    """Small models exported by PyTorch (TorchScript and dynamo exporters), made once per run."""
    return make_exports(tmp_path_factory)


# No test times itself: Hypothesis's default per-example deadline (200 ms) would fail
# a correct test on a loaded machine, so every property test runs without one.
settings.register_profile("wirecodec", deadline=None)
settings.load_profile("wirecodec")
