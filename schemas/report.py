"""What validation and the verifier report: one entry per check, with the evidence."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class CheckEntry(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: str
    passed: bool
    evidence: str


class ValidationReport(BaseModel):
    """The pre-ship checklist's verdict on one task bundle (`report.json` beside it)."""

    task: str
    scenario_id: str
    passed: bool
    checks: list[CheckEntry]
    duration_s: float


class VerifierResult(BaseModel):
    """The hidden verifier's verdict on an agent's workspace."""

    reward: float = Field(ge=0.0, le=1.0)
    checks: list[CheckEntry]
    grade_seed: int = Field(description="the seed grade-time values were drawn from, to replay a verdict")


class TaskManifest(BaseModel):
    """The verifier's record of a task at build time; lives in tests/, never in environment/."""

    model_config = ConfigDict(frozen=True)

    task: str
    scenario_id: str
    app: str
    repairable: dict[str, str] = Field(description="path -> sha256 of each file the faults touched, as broken")
    protected: dict[str, str] = Field(description="path -> sha256 of each file restored before grading")
