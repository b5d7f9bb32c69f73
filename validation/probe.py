"""The probe a fault's hidden check runs code through: the app's own built venvs, real subprocesses."""

from __future__ import annotations

import os
from pathlib import Path

from fault_library.fault import ProbeResult
from fault_library.workspace import Workspace
from schemas.errors import InputError
from validation.caches import Caches
from validation.process import run_tool
from validation.stages import StageContext
from validation.stages.build import build

_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); del sys.argv[1]; exec(compile(sys.argv[1], '<probe>', 'exec'))"


class LocalProbe:
    def __init__(self, ws: Workspace, venvs: dict[str, Path]) -> None:
        self.ws, self.venvs = ws, venvs

    @classmethod
    def build(cls, ws: Workspace, caches: Caches, run_dir: Path) -> LocalProbe:
        """Build (or reuse from the cache) each service's venv from the workspace's requirements."""
        ctx = StageContext(ws.root, ws.manifest, caches, run_dir, ws.manifest.pipeline.stage_timeout_s)
        outcome = build(ctx)
        if not outcome.ok:
            raise InputError("cannot probe the app: its services do not build: " + "; ".join(outcome.error_lines[:3]))
        return cls(ws, ctx.venvs)

    def run_python(self, service: str, code: str, timeout_s: float = 30.0) -> ProbeResult:
        python = self.venvs[service] / "bin" / "python"
        service_dir = str(self.ws.path(self.ws.manifest.services[service].dir))
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TZ")}
        env |= {"PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
        done = run_tool([str(python), "-c", _BOOT, service_dir, code], cwd=self.ws.root, timeout_s=timeout_s, env=env)
        # run_tool merges the streams: a probe prints its answer as its last line
        return ProbeResult(done.exit_code, done.output, "" if done.exit_code == 0 else done.output)
