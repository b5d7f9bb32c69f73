"""Run a tool as a subprocess with a hard timeout (thread-safe: no SIGALRM)."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Completed:
    argv: tuple[str, ...]
    exit_code: int
    output: str
    timed_out: bool = False


def run_tool(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout_s: float,
    env: Mapping[str, str] | None = None,
) -> Completed:
    """Run argv, merge stdout and stderr, kill the whole process group on timeout."""
    proc = subprocess.Popen(
        list(argv),
        cwd=cwd,
        env=dict(env) if env is not None else None,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=timeout_s)
        return Completed(tuple(argv), proc.returncode, out.decode("utf-8", "replace"))
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, _ = proc.communicate()
        text = out.decode("utf-8", "replace") + f"\ntimed out after {timeout_s:.0f}s"
        return Completed(tuple(argv), -1, text, timed_out=True)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill a process started with start_new_session=True and everything it spawned."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
