"""A local wheelhouse: every package the sample apps (and the faults' alternative pins) may need.

Downloaded once per machine, keyed by the hash of `sample_apps/wheelhouse.txt`, so pipeline
installs run with `--no-index` and never touch the network.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

from schemas.errors import ToolError
from validation.caches import Caches
from validation.process import run_tool

SPEC = Path(__file__).resolve().parent.parent / "sample_apps" / "wheelhouse.txt"
_DONE = ".complete"


def wheelhouse(caches: Caches, spec: Path = SPEC) -> Path:
    """The wheelhouse folder for `spec`, downloading it on first use."""
    digest = hashlib.sha256(spec.read_bytes()).hexdigest()[:16]
    target = caches.wheelhouses / digest
    if (target / _DONE).exists():
        return target
    staging = caches.tmp / f"wheelhouse-{digest}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    argv = [sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check", "--no-deps",
            "--only-binary=:all:", "--python-version", "3.11", "-d", str(staging), "-r", str(spec)]
    done = run_tool(argv, cwd=staging, timeout_s=600)
    if done.exit_code != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise ToolError("pip download", done.output.strip().splitlines()[-1] if done.output.strip() else "failed")
    (staging / _DONE).write_text(digest)
    target.parent.mkdir(parents=True, exist_ok=True)
    try:
        staging.rename(target)
    except OSError:  # another process finished the same wheelhouse first
        shutil.rmtree(staging, ignore_errors=True)
    return target
