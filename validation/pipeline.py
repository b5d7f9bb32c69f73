"""The local pipeline runner: stages as real subprocesses, stopping at the first failure."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from fault_library.workspace import load_manifest
from schemas.manifest import AppManifest
from schemas.pipeline import PipelineResult, StageResult, StageStatus
from validation.caches import Caches
from validation.memo import StageMemo
from validation.stages import STAGE_FUNCTIONS, StageContext

EXCERPT_LINES = 40


def run_pipeline(
    workspace: Path,
    caches: Caches,
    manifest: AppManifest | None = None,
    stop_after: str | None = None,
    memo: StageMemo | None = None,
) -> PipelineResult:
    """Run the app's pipeline on `workspace`. `manifest` overrides the workspace's own (the verifier's copy)."""
    workspace = workspace.resolve()
    manifest = manifest or load_manifest(workspace)
    started = time.monotonic()
    results: list[StageResult] = []
    with tempfile.TemporaryDirectory(prefix="faultsmith-run-", dir=caches.tmp) as run_dir:
        ctx = StageContext(workspace, manifest, caches, Path(run_dir), manifest.pipeline.stage_timeout_s)
        failed = False
        for name in manifest.pipeline.stages:
            if failed:
                results.append(StageResult(name=name, status=StageStatus.SKIPPED))
                continue
            t0 = time.monotonic()
            key = memo.key(name, workspace, manifest) if memo else None
            outcome = (memo.get(key) if memo else None) or STAGE_FUNCTIONS[name](ctx)
            if memo:
                memo.put(key, outcome)
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
    return PipelineResult(app=manifest.name, stages=results, duration_s=round(time.monotonic() - started, 3))
