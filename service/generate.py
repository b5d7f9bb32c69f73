"""The main job: compose a scenario, materialize it, prove it with the checklist, emit it only if it passes."""

from __future__ import annotations

import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from generator import DesignRequest, LLMConfig, design_run
from generator.config import Composer
from materializer import materialize
from schemas.report import ValidationReport
from schemas.scenario import Scenario
from validation.caches import Caches
from validation.checklist import validate


@dataclass(frozen=True)
class Generated:
    scenario: Scenario
    report: ValidationReport
    bundle: Path | None  # None when a check failed: nothing is emitted
    seconds: float


def generate(
    seed: int,
    out_dir: Path,
    caches: Caches,
    app: str | None = None,
    difficulty: float = 0.5,
    faults: Sequence[str] = (),
    count: int | None = None,
    composer: Composer = "fallback",
    llm: LLMConfig | None = None,
    no_cache: bool = False,
    backend: str = "local",
) -> Generated:
    started = time.monotonic()
    request = DesignRequest(
        seed=seed,
        app=app,
        difficulty=difficulty,
        pinned=tuple(faults),
        count=count,
        composer=composer,
        no_cache=no_cache,
    )
    scenario = design_run(request, llm or LLMConfig(), caches.root).scenario
    out_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix=".faultsmith-generate-", dir=out_dir) as tmp:
        staged = materialize(scenario, Path(tmp))
        report = validate(staged, caches, backend=backend)
        bundle = None
        if report.passed:
            bundle = out_dir / scenario.id
            if bundle.exists():
                shutil.rmtree(bundle)
            staged.rename(bundle)
            report_file = staged.parent / f"{staged.name}.report.json"
            report_file.rename(out_dir / report_file.name)
    return Generated(scenario, report, bundle, round(time.monotonic() - started, 2))
