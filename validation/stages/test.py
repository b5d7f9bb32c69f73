"""test: each service's pytest suite, run with that service's venv from the app root."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

from validation.process import run_tool
from validation.stages.base import StageContext, StageOutcome, combine, error_lines


def run_tests(ctx: StageContext) -> StageOutcome:
    suites = [(name, svc.tests) for name, svc in sorted(ctx.manifest.services.items()) if svc.tests]
    with ThreadPoolExecutor(max_workers=max(1, len(suites))) as pool:  # suites are independent processes
        outcomes = list(pool.map(lambda suite: _pytest(ctx, *suite), suites))
    return combine((f"pytest {tests}", outcome) for (_, tests), outcome in zip(suites, outcomes, strict=True))


def _pytest(ctx: StageContext, service: str, tests: str) -> StageOutcome:
    python = ctx.venvs[service] / "bin" / "python"
    env = {**_clean_env(), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONHASHSEED": "0"}
    basetemp = ctx.run_dir / f"pytest-{service}"  # inside the run folder, so scrubbed to one stable name
    argv = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "--color=no", f"--basetemp={basetemp}", tests]
    done = run_tool(argv, cwd=ctx.workspace, timeout_s=ctx.timeout_s, env=env)
    output = ctx.scrub(done.output)
    failures = [ln for ln in output.splitlines() if ln.startswith(("FAILED", "ERROR", "E "))]
    return StageOutcome(
        ok=done.exit_code == 0, output=output, error_lines=failures or error_lines(output), exit_code=done.exit_code
    )


def _clean_env() -> dict[str, str]:
    """Only what a test run needs from the runner's environment: anything more changes pytest's output
    (CI=1 turns off assertion truncation, COLUMNS rewraps lines) or leaks our own Python setup into the app's,
    and the output is the symptom, so it must not depend on who runs the pipeline."""
    return {k: v for k, v in os.environ.items() if k in _PASSED_THROUGH}


_PASSED_THROUGH = frozenset({"PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR"})
