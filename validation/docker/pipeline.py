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
from schemas.pipeline import PipelineResult
from validation.caches import Caches
from validation.docker.deploy import docker_deploy
from validation.docker.engine import client
from validation.docker.session import docker_session
from validation.docker.stages import DockerState, docker_build, docker_test
from validation.memo import StageMemo
from validation.pipeline import memoized, run_stages
from validation.stages import StageContext, StageOutcome

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
    names = [s for s in manifest.pipeline.stages if stages is None or s in stages]
    with (
        tempfile.TemporaryDirectory(prefix="faultsmith-drun-", dir=caches.tmp) as run_dir,
        docker_session(c, manifest.name) as session,
    ):
        ctx = StageContext(workspace, manifest, caches, Path(run_dir), manifest.pipeline.stage_timeout_s)
        state = DockerState(session)
        results = run_stages(ctx, names, lambda name: _run_stage(name, ctx, state, memo), stop_after)
    return PipelineResult(
        app=manifest.name, backend="docker", stages=results, duration_s=round(time.monotonic() - started, 3)
    )


def _run_stage(name: str, ctx: StageContext, state: DockerState, memo: StageMemo | None) -> StageOutcome:
    if name in DOCKER_STAGES:
        return DOCKER_STAGES[name](ctx, state)
    return memoized(memo if name in LOCAL_MEMOIZED else None, name, ctx)
