"""The contracts `faultsmith schema NAME` exports as JSON Schema."""

from pydantic import BaseModel

from schemas.manifest import AppManifest
from schemas.pipeline import PipelineResult
from schemas.report import TaskManifest, ValidationReport, VerifierResult
from schemas.scenario import FaultInstance, RedHerring, Scenario

SCHEMAS: dict[str, type[BaseModel]] = {
    m.__name__: m
    for m in (
        Scenario,
        FaultInstance,
        RedHerring,
        TaskManifest,
        ValidationReport,
        VerifierResult,
        PipelineResult,
        AppManifest,
    )
}
