"""The agent-facing instruction, rendered from a sandboxed template. Scenario text is data, never template."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from jinja2 import FileSystemLoader, StrictUndefined
from jinja2.sandbox import SandboxedEnvironment

from schemas.manifest import AppManifest
from schemas.scenario import Scenario

TEMPLATES = Path(__file__).resolve().parent / "templates"


@cache
def _env() -> SandboxedEnvironment:
    return SandboxedEnvironment(
        loader=FileSystemLoader(TEMPLATES), undefined=StrictUndefined, keep_trailing_newline=True, autoescape=False
    )


def render_instruction(scenario: Scenario, manifest: AppManifest, workdir: str) -> str:
    return (
        _env()
        .get_template("instruction.md.j2")
        .render(
            app_title=scenario.app.replace("-", " ").title(),
            alert=scenario.alert,
            narrative=scenario.narrative,
            workdir=workdir,
            stages=" → ".join(manifest.pipeline.stages),
        )
    )
