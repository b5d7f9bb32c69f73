"""`faultsmith docker ...`: the local Docker engine, its base image, and pipeline runs in containers."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from fault_library.apps import copy_app, get_app
from schemas.errors import InputError
from service.settings import Settings

docker_cli = typer.Typer(no_args_is_help=True, help="Docker mode: base image and pipeline runs in containers.")
out = Console(highlight=False)


@docker_cli.command("bootstrap")
def bootstrap(
    force: Annotated[bool, typer.Option("--force", help="Rebuild even if the base image is current.")] = False,
) -> None:
    """Build the local base image (debootstrap + docker import) once; a no-op when it is current."""
    from validation.docker.engine import bootstrap as run_bootstrap

    settings = Settings()
    result = run_bootstrap(settings.caches().tmp, force=force)
    verb = "built" if result.built else "reused"
    out.print(f"{verb} {result.image} (recipe {result.recipe}) in {result.seconds:.1f}s")
    for step in result.steps:
        out.print(f"  {step}", markup=False)
    import time

    from validation.docker.engine import client
    from validation.docker.runner import ensure_runner

    t0 = time.monotonic()
    tag, built = ensure_runner(client(), settings.caches())
    verb = "built" if built else "reused"
    out.print(f"{verb} {tag} (faultsmith, tools, wheelhouse: what bundles build FROM) in {time.monotonic() - t0:.1f}s")


@docker_cli.command("run")
def run(
    app_name: Annotated[str | None, typer.Option("--app", help="Run on a clean copy of this app.")] = None,
    workspace: Annotated[Path | None, typer.Option(help="Run on this workspace instead.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the PipelineResult as JSON.")] = False,
) -> None:
    """Run the pipeline with the docker backend; exit 1 if a stage fails."""
    from service.cli import _emit_json, print_pipeline
    from validation.docker.pipeline import run_docker_pipeline

    settings = Settings()
    caches = settings.caches()
    scratch: Path | None = None
    if workspace is None:
        if app_name is None:
            raise InputError("give --app APP or --workspace DIR")
        get_app(app_name)
        scratch = workspace = copy_app(app_name, Path(caches.tmp) / f"docker-clean-{app_name}-{id(settings):x}")
    elif not workspace.is_dir():
        raise InputError(f"workspace {workspace} is not a directory")
    try:
        result = run_docker_pipeline(workspace, caches)
    finally:
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
    if as_json:
        _emit_json(result.model_dump(mode="json"))
    else:
        print_pipeline(result)
    raise typer.Exit(0 if result.passed else 1)
