"""Shared fixtures: one cache for the whole session (the wheelhouse and venvs are built once)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from fault_library.apps import copy_app
from validation.caches import Caches


@pytest.fixture(scope="session")
def caches() -> Caches:
    root = Path(os.environ.get("FAULTSMITH_CACHE_DIR", Path.home() / ".cache" / "faultsmith")).resolve()
    root.mkdir(parents=True, exist_ok=True)
    return Caches(root)


@pytest.fixture
def clean_copy(tmp_path: Path):
    """A factory: a fresh copy of a sample app in a temporary folder."""

    def make(app: str, name: str = "ws") -> Path:
        target = tmp_path / f"{app}-{name}"
        copy_app(app, target)
        return target

    return make
