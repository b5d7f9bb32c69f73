"""Engine-backed tests: they skip with the reason when no engine answers, unless FAULTSMITH_REQUIRE_DOCKER=1
(CI), where a missing engine or base image is a failure."""

from __future__ import annotations

import os
from typing import Any

import pytest

from schemas.errors import ToolError

REQUIRED = os.environ.get("FAULTSMITH_REQUIRE_DOCKER") == "1"


def _unavailable(reason: str) -> None:
    if REQUIRED:
        pytest.fail(f"FAULTSMITH_REQUIRE_DOCKER=1 but {reason}", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def engine() -> Any:
    from validation.docker.engine import client

    try:
        return client()
    except ToolError as err:
        _unavailable(str(err))


@pytest.fixture(scope="session")
def base_image(engine: Any, caches: Any) -> str:
    """The local base image, bootstrapped if missing (cold: ~2 min, once per machine)."""
    from validation.docker.engine import BASE_IMAGE, bootstrap

    try:
        bootstrap(caches.tmp)
    except ToolError as err:
        _unavailable(str(err))
    return BASE_IMAGE


def leftovers(engine: Any, run_id: str) -> list[str]:
    """Containers and volumes the run `run_id` left behind (other runs may share the engine)."""
    flt = {"label": f"faultsmith.run={run_id}"}
    return [c.name for c in engine.containers.list(all=True, filters=flt)] + [
        v.name for v in engine.volumes.list(filters=flt)
    ]


@pytest.fixture
def run_id(monkeypatch: pytest.MonkeyPatch) -> str:
    """Pin the next docker session's run id, so a test can look for exactly its own resources."""
    import uuid

    import validation.docker.session as session

    fixed = uuid.uuid4()
    monkeypatch.setattr(session.uuid, "uuid4", lambda: fixed)
    return fixed.hex[:12]
