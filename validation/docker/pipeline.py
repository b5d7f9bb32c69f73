"""The docker pipeline backend: the same stages and PipelineResult as the local one, in containers.

build, test and deploy run through the engine (image builds from the workspace's Dockerfiles, pytest inside
the service images, services as containers); checkout, lint, migrate and iac are the local stages — they
read files, and a container would add nothing but time.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from fault_library.workspace import load_manifest
from schemas.manifest import AppManifest
from schemas.pipeline import PipelineResult, StageResult, StageStatus
from validation.caches import Caches
from validation.docker.deploy import docker_deploy
from validation.docker.engine import client
from validation.docker.session import docker_session
from validation.docker.stages import DockerState, docker_build, docker_test
from validation.memo import StageMemo
from validation.stages import STAGE_FUNCTIONS, StageContext, StageOutcome

EXCERPT_LINES = 40
DockerStage = Callable[[StageContext, DockerState], StageOutcome]
DOCKER_STAGES: dict[str, DockerStage] = {"build": docker_build, "test": docker_test, "deploy": docker_deploy}
LOCAL_MEMOIZED = ("checkout", "lint", "iac")  # the memo's other entries are the local backend's outcomes


def run_docker_pipeline(
    workspace: Path,
    caches: Caches,
    manifest: AppManifest | None = None,
    stop_after: str | None = None,
    memo: StageMemo | None = None,
    stages: list[str] | None = None,
) -> PipelineResult:
    """Run the app's pipeline on `workspace` with the Docker engine; same contract as run_pipeline.
    `stages` runs a subset, in the manifest's order (e.g. the container stages alone, to see what a fault
    does to the image when an earlier stage would have stopped the pipeline first)."""
    workspace = workspace.resolve()
    manifest = manifest or load_manifest(workspace)
    c = client()
    started = time.monotonic()
    results: list[StageResult] = []
    with (
        tempfile.TemporaryDirectory(prefix="faultsmith-drun-", dir=caches.tmp) as run_dir,
        docker_session(c, manifest.name) as session,
    ):
        ctx = StageContext(workspace, manifest, caches, Path(run_dir), manifest.pipeline.stage_timeout_s)
        state = DockerState(session)
        failed = False
        for name in [s for s in manifest.pipeline.stages if stages is None or s in stages]:
            if failed:
                results.append(StageResult(name=name, status=StageStatus.SKIPPED))
                continue
            t0 = time.monotonic()
            outcome = _run_stage(name, ctx, state, memo)
            failed = not outcome.ok
            output = ctx.scrub(outcome.output)
            results.append(
                StageResult(
                    name=name,
                    status=StageStatus.PASSED if outcome.ok else StageStatus.FAILED,
                    duration_s=round(time.monotonic() - t0, 3),
                    exit_code=outcome.exit_code,
                    log_excerpt="\n".join(output.splitlines()[-EXCERPT_LINES:]),
                    error_lines=[ctx.scrub(line) for line in outcome.error_lines],
                )
            )
            if name == stop_after:
                break
    return PipelineResult(
        app=manifest.name, backend="docker", stages=results, duration_s=round(time.monotonic() - started, 3)
    )


def _run_stage(name: str, ctx: StageContext, state: DockerState, memo: StageMemo | None) -> StageOutcome:
    if name in DOCKER_STAGES:
        return DOCKER_STAGES[name](ctx, state)
    key = memo.key(name, ctx.workspace, ctx.manifest) if memo and name in LOCAL_MEMOIZED else None
    outcome = (memo.get(key) if memo else None) or STAGE_FUNCTIONS[name](ctx)
    if memo:
        memo.put(key, outcome)
    return outcome
