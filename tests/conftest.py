"""Fixtures shared across test modules."""

from __future__ import annotations

import pytest

from tests.exports import Export, make_exports


@pytest.fixture(scope="session")
def pytorch_exports(tmp_path_factory: pytest.TempPathFactory) -> list[Export]:
    """Small models exported by PyTorch (TorchScript and dynamo exporters), made once per run."""
    return make_exports(tmp_path_factory)
