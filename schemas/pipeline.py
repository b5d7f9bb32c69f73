"""What a pipeline run reports: one entry per stage, with the real tool output an engineer reads."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field


class StageStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"


class StageResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    status: StageStatus
    duration_s: float = 0.0
    exit_code: int | None = None
    log_excerpt: str = Field("", description="the tail of the stage's combined output")
    error_lines: list[str] = Field(default_factory=list, description="the lines an engineer would look at")

    @property
    def passed(self) -> bool:
        return self.status is StageStatus.PASSED


class PipelineResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    app: str
    backend: str = "local"
    stages: list[StageResult]
    duration_s: float

    @property
    def passed(self) -> bool:
        return all(s.status is StageStatus.PASSED for s in self.stages)

    @property
    def failed_stage(self) -> StageResult | None:
        return next((s for s in self.stages if s.status is StageStatus.FAILED), None)

    def output(self) -> str:
        """All captured output, for matching a fault's signature."""
        return "\n".join(s.log_excerpt + "\n" + "\n".join(s.error_lines) for s in self.stages)
