"""test: each service's pytest suite, run with that service's venv from the app root."""

from __future__ import annotations

import os

from validation.process import run_tool
from validation.stages.base import StageContext, StageOutcome, combine, error_lines


def run_tests(ctx: StageContext) -> StageOutcome:
    parts = []
    for name, svc in sorted(ctx.manifest.services.items()):
        if not svc.tests:
            continue
        python = ctx.venvs[name] / "bin" / "python"
        env = {**_clean_env(), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
        argv = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", svc.tests]
        done = run_tool(argv, cwd=ctx.workspace, timeout_s=ctx.timeout_s, env=env)
        output = ctx.scrub(done.output)
        failures = [ln for ln in output.splitlines() if ln.startswith(("FAILED", "ERROR", "E "))]
        parts.append(
            (
                f"pytest {svc.tests}",
                StageOutcome(
                    ok=done.exit_code == 0,
                    output=output,
                    error_lines=failures or error_lines(output),
                    exit_code=done.exit_code,
                ),
            )
        )
    return combine(parts)


def _clean_env() -> dict[str, str]:
    """The runner's environment minus anything that would leak our own Python setup into the app's."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTEST_ADDOPTS", "PYTEST_XDIST_WORKER"}
    return {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("FAULTSMITH_")}
