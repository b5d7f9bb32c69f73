"""A bundle runs where Harbor runs: its environment/Dockerfile builds offline (FROM the runner image) into
the broken state, and tests/test.sh grades inside that container with only the image and tests/ —
reward 1 after solution/solve.sh, 0 on an untouched container — written to /logs/verifier/reward.txt."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fallbacks.composer import compose
from materializer import materialize

pytestmark = pytest.mark.xdist_group("docker")


@pytest.fixture(scope="module")
def runner(engine: Any, base_image: str, caches: Any) -> str:
    """The runner image (faultsmith + tools + wheelhouse); cold ~2.5 min once per source change."""
    from validation.docker.runner import ensure_runner

    tag, _ = ensure_runner(engine, caches)
    return tag


@pytest.fixture(scope="module")
def task_image(engine: Any, runner: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str]]:
    from validation.docker.images import stream_build

    scenario = compose(1, "webshop", 0.5)
    bundle = materialize(scenario, tmp_path_factory.mktemp("bundles"))
    assert (bundle / "environment" / "Dockerfile").read_text().startswith(f"FROM {runner}\n")
    tag = f"faultsmith/task-test:{uuid.uuid4().hex[:12]}"
    outcome = stream_build(
        engine, path=str(bundle / "environment"), tag=tag, network_mode="none", rm=True, forcerm=True, pull=False
    )
    assert outcome.ok, outcome.error_lines
    yield bundle, tag
    engine.images.remove(tag, force=True, noprune=False)


def _run(engine: Any, image: str, bundle: Path, logs: Path, script: str) -> tuple[str, str]:
    """Run `script` in a fresh container of the task image, the way Harbor does: solution/ at /solution,
    tests/ at /tests, its logs folder mounted at /logs/verifier, no network; returns (reward.txt, output)."""
    logs.mkdir(parents=True, exist_ok=True)
    container = engine.containers.run(
        image,
        ["bash", "-c", script],
        network_mode="none",
        detach=True,
        labels={"faultsmith.test": "harbor-bundle"},
        volumes={
            str(bundle / "solution"): {"bind": "/solution", "mode": "ro"},
            str(bundle / "tests"): {"bind": "/tests", "mode": "ro"},
            str(logs): {"bind": "/logs/verifier", "mode": "rw"},
        },
    )
    try:
        container.wait(timeout=600)
        output = container.logs().decode("utf-8", "replace")
    finally:
        container.remove(force=True)
    reward = logs / "reward.txt"
    return (reward.read_text().strip() if reward.is_file() else "missing"), output


def test_solution_scores_1_in_the_container(engine: Any, task_image: tuple[Path, str], tmp_path: Path) -> None:
    bundle, image = task_image
    reward, output = _run(engine, image, bundle, tmp_path, "bash /solution/solve.sh && bash /tests/test.sh")
    assert reward == "1", output


def test_untouched_container_scores_0(engine: Any, task_image: tuple[Path, str], tmp_path: Path) -> None:
    bundle, image = task_image
    reward, output = _run(engine, image, bundle, tmp_path, "bash /tests/test.sh")
    assert reward == "0", output
