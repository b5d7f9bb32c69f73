"""Pipeline backends by name: `local` (processes on this machine) and `docker` (a Docker engine)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schemas.errors import InputError
from schemas.pipeline import PipelineResult
from validation.pipeline import run_pipeline

BACKENDS = ("local", "docker")
Runner = Callable[..., PipelineResult]


def runner(backend: str) -> Runner:
    """The run_pipeline-compatible function of a backend (the docker one is imported only when asked for)."""
    if backend == "local":
        return run_pipeline
    if backend == "docker":
        from validation.docker.pipeline import run_docker_pipeline

        return run_docker_pipeline
    raise InputError(f"unknown backend {backend!r}; available: {', '.join(BACKENDS)}")


def run(backend: str, *args: Any, **kwargs: Any) -> PipelineResult:
    return runner(backend)(*args, **kwargs)
