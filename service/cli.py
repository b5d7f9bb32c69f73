"""The `faultsmith` command: a thin layer over the library; errors become one clear line."""

from __future__ import annotations

import json
import random
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from fault_library.apps import all_apps, app_dir, copy_app, get_app
from fault_library.registry import all_faults, applicable_fault, get_fault
from fault_library.workspace import Workspace
from schemas.errors import FaultsmithError, InputError
from schemas.pipeline import PipelineResult
from schemas.report import ValidationReport
from service.docker_cli import docker_cli
from service.generate import Generated
from service.llm_cli import llm_cli
from service.settings import Settings
from validation.backends import runner

app = typer.Typer(no_args_is_help=True, add_completion=False, help=__doc__)
apps_cli = typer.Typer(no_args_is_help=True, help="Sample apps faults are injected into.")
faults_cli = typer.Typer(no_args_is_help=True, help="The fault library.")
pipeline_cli = typer.Typer(no_args_is_help=True, help="Run an app's CI-like pipeline.")
app.add_typer(apps_cli, name="apps")
app.add_typer(faults_cli, name="faults")
app.add_typer(pipeline_cli, name="pipeline")
app.add_typer(llm_cli, name="llm")
app.add_typer(docker_cli, name="docker")

out = Console(highlight=False)
JsonFlag = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
BackendOption = Annotated[str, typer.Option(help="Where the pipeline runs: local processes, or docker.")]


def _emit_json(doc: Any) -> None:
    sys.stdout.write(json.dumps(doc, indent=2, sort_keys=True) + "\n")


@apps_cli.command("list")
def apps_list(as_json: JsonFlag = False) -> None:
    """List the sample apps."""
    apps = all_apps()
    if as_json:
        _emit_json(
            [
                {
                    "name": m.name,
                    "shape": m.shape,
                    "summary": m.summary,
                    "services": sorted(m.services),
                    "stages": m.pipeline.stages,
                }
                for m in apps.values()
            ]
        )
        return
    table = Table("app", "shape", "services", "summary")
    for m in apps.values():
        table.add_row(m.name, m.shape, ", ".join(sorted(m.services)), m.summary)
    out.print(table)


@faults_cli.command("list")
def faults_list(as_json: JsonFlag = False) -> None:
    """List the faults in the library."""
    apps = all_apps()
    rows = [
        {
            "id": f.id,
            "category": f.category.value,
            "stage": f.stage,
            "summary": f.summary,
            "apps": [a for a, m in apps.items() if f.applicable(m)],
            "backends": list(f.backends),
            "docker": dict(zip(("stage", "signature"), f.surfaces_as("docker"), strict=True)),
            "params_schema": f.Params.model_json_schema(),
        }
        for f in all_faults().values()
    ]
    if as_json:
        _emit_json(rows)
        return
    table = Table("id", "category", "stage", "apps", "summary")
    for r in rows:
        table.add_row(str(r["id"]), str(r["category"]), str(r["stage"]), ", ".join(r["apps"]), str(r["summary"]))
    out.print(table)


@faults_cli.command("show")
def faults_show(
    fault_id: Annotated[str, typer.Argument(help="The fault's id, e.g. core.dependency_clash.")],
    app_name: Annotated[
        str | None, typer.Option("--app", help="App for the example (default: the first it fits).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed for the example parameters.")] = 0,
) -> None:
    """Print one fault's card: summary, stage, signature, parameters and an example diff."""
    fault = get_fault(fault_id)
    apps = all_apps()
    fits = [a for a, m in apps.items() if fault.applicable(m)]
    name = app_name or fits[0]
    manifest = get_app(name)
    applicable_fault(fault_id, manifest, apps)
    params = fault.sample_params(Workspace(app_dir(name), manifest), random.Random(seed))
    with tempfile.TemporaryDirectory(prefix="faultsmith-show-") as tmp:
        mutation = fault.inject(Workspace(copy_app(name, Path(tmp) / name), manifest), params)
    out.print(f"[bold]{fault.id}[/]  ({fault.category.value}, fails at {fault.stage})")
    out.print(fault.summary, markup=False)
    out.print(f"signature: {fault.signature}", markup=False)
    if fault.docker_stage or fault.docker_signature:
        stage, signature = fault.surfaces_as("docker")
        out.print(f"in docker: fails at {stage}, signature {signature}", markup=False)
    out.print(f"apps: {', '.join(fits)}   backends: {', '.join(fault.backends)}")
    out.print(f"example on {name}, seed {seed}: {params.model_dump_json()}", markup=False)
    out.print(mutation.diff, markup=False)


@pipeline_cli.command("run")
def pipeline_run(
    app_name: Annotated[str | None, typer.Option("--app", help="Run on a clean copy of this app.")] = None,
    workspace: Annotated[Path | None, typer.Option(help="Run on this workspace instead.")] = None,
    backend: BackendOption = "local",
    as_json: JsonFlag = False,
) -> None:
    """Run the pipeline on a clean app or a workspace; exit 1 if a stage fails."""
    settings = Settings()
    if workspace is None:
        if app_name is None:
            raise InputError("give --app APP or --workspace DIR")
        result = _run_on_copy(app_name, settings, backend)
    else:
        if not workspace.is_dir():
            raise InputError(f"workspace {workspace} is not a directory")
        result = runner(backend)(workspace, settings.caches())
    if as_json:
        _emit_json(result.model_dump(mode="json"))
    else:
        print_pipeline(result)
    raise typer.Exit(0 if result.passed else 1)


def _run_on_copy(app_name: str, settings: Settings, backend: str) -> PipelineResult:
    caches = settings.caches()
    get_app(app_name)
    scratch = copy_app(app_name, caches.tmp / f"clean-{app_name}-{random.SystemRandom().getrandbits(32):08x}")
    try:
        return runner(backend)(scratch, caches)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


@app.command()
def inject(
    app_name: Annotated[str, typer.Option("--app")],
    fault_id: Annotated[str, typer.Option("--fault")],
    seed: Annotated[int, typer.Option()],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the broken workspace to (must not exist).")],
    as_json: JsonFlag = False,
) -> None:
    """Write a broken workspace: a clean app copy with one fault injected."""
    manifest = get_app(app_name)
    fault = applicable_fault(fault_id, manifest, all_apps())
    if out_dir.exists():
        raise InputError(f"{out_dir} already exists; choose a new folder")
    params = fault.sample_params(Workspace(app_dir(app_name), manifest), random.Random(seed))
    staging = out_dir.with_name(f".{out_dir.name}.partial")
    shutil.rmtree(staging, ignore_errors=True)
    copy_app(app_name, staging)
    try:
        mutation = fault.inject(Workspace(staging, manifest), params)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    staging.rename(out_dir)
    if as_json:
        _emit_json(
            {
                "app": app_name,
                "fault": fault_id,
                "seed": seed,
                "out": str(out_dir),
                "params": params.model_dump(mode="json"),
                "diff": mutation.diff,
            }
        )
    else:
        out.print(f"wrote {out_dir} ({fault_id} on {app_name}, seed {seed})")
        out.print(mutation.diff, markup=False)


@app.command()
def generate(
    seed: Annotated[int, typer.Option(help="Every random choice flows from this seed.")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder the task bundle is written to.")],
    app_name: Annotated[str | None, typer.Option("--app", help="Sample app (default: drawn from the seed).")] = None,
    difficulty: Annotated[float, typer.Option(min=0.0, max=1.0, help="0 easy .. 1 hard.")] = 0.5,
    fault: Annotated[list[str] | None, typer.Option(help="Pin a fault (repeatable).")] = None,
    count: Annotated[int | None, typer.Option(help="Number of faults (1 pinned fault + count 1: isolating).")] = None,
    composer: Annotated[
        str,
        typer.Option(help="auto: the LLM, else the seeded fallback; llm: fail without it; fallback: never call it."),
    ] = "auto",
    no_cache: Annotated[bool, typer.Option("--no-cache", help="Ask the LLM again instead of replaying.")] = False,
    backend: BackendOption = "local",
    as_json: JsonFlag = False,
) -> None:
    """Compose an incident, materialize it as a task bundle and prove it trainable; emit it only if it is."""
    from service.generate import generate as run_generate
    from service.llm_cli import announce, composer_choice

    settings = Settings()
    chosen = composer_choice(composer)
    announce(chosen, settings.llm_config())
    done = run_generate(
        seed,
        out_dir,
        settings.caches(),
        app_name,
        difficulty,
        fault or [],
        count,
        chosen,
        settings.llm_config(),
        no_cache,
        backend,
    )
    if settings.llm_base_url and done.scenario.provenance.fallback_reason:
        Console(stderr=True).print(
            f"LLM designer not used ({done.scenario.provenance.fallback_reason}): composed with the seeded fallback",
            markup=False,
        )
    if as_json:
        _emit_json(
            {
                "bundle": str(done.bundle) if done.bundle else None,
                "seconds": done.seconds,
                "scenario": done.scenario.model_dump(mode="json"),
                "report": done.report.model_dump(mode="json"),
            }
        )
    else:
        print_generated(done)
    raise typer.Exit(0 if done.bundle else 1)


@app.command()
def validate(
    task: Annotated[Path, typer.Argument(help="A task bundle folder.")],
    backend: BackendOption = "local",
    as_json: JsonFlag = False,
) -> None:
    """Run the pre-ship checklist on a bundle; writes <bundle>.report.json beside it."""
    from validation.checklist import validate as run_checklist

    report = run_checklist(task.resolve(), Settings().caches(), backend=backend)
    if as_json:
        _emit_json(report.model_dump(mode="json"))
    else:
        print_report(report)
    raise typer.Exit(0 if report.passed else 1)


@app.command()
def verify(
    task: Annotated[Path, typer.Argument(help="A task bundle (or its tests/ folder).")],
    workspace: Annotated[Path, typer.Option(help="The workspace to grade.")],
    seed: Annotated[int | None, typer.Option(help="Grade-time seed (default: drawn fresh).")] = None,
    backend: BackendOption = "local",
    as_json: JsonFlag = False,
) -> None:
    """Grade a workspace with the task's hidden verifier: prints the reward in [0, 1]."""
    from validation.verifier import verify as run_verifier

    result = run_verifier(task.resolve(), workspace.resolve(), Settings().caches(), seed, backend=backend)
    if as_json:
        _emit_json(result.model_dump(mode="json"))
    else:
        for check in result.checks:
            out.print(f"{'pass' if check.passed else 'FAIL'}  {check.name}: {check.evidence}", markup=False)
        out.print(f"reward {result.reward}")


@app.command()
def schema(
    name: Annotated[
        str,
        typer.Argument(
            help="Scenario, FaultInstance, RedHerring, TaskManifest, ValidationReport, VerifierResult, "
            "PipelineResult or AppManifest."
        ),
    ],
) -> None:
    """Print the JSON Schema of one of faultsmith's contracts."""
    from service.schemas import SCHEMAS

    if name not in SCHEMAS:
        raise InputError(f"unknown schema {name!r}; available: {', '.join(sorted(SCHEMAS))}")
    _emit_json(SCHEMAS[name].model_json_schema())


def print_generated(done: Generated) -> None:
    s = done.scenario
    out.print(f"scenario {s.id} ({s.tier}, difficulty {s.difficulty}, seed {s.seed}, composer {s.provenance.composer})")
    for f in s.faults:
        out.print(f"  {f.order}. {f.fault_id} (fails at {f.stage})", markup=False)
    if s.red_herring:
        out.print(f"  red herring: {s.red_herring.kind} (mimics {s.red_herring.mimics})", markup=False)
    print_report(done.report)
    if done.bundle:
        out.print(f"[green]emitted[/] {done.bundle} in {done.seconds:.1f}s")
    else:
        out.print(f"[red]not emitted[/]: a check failed ({done.seconds:.1f}s)")


def print_report(report: ValidationReport) -> None:
    table = Table("check", "result", "evidence", title=f"checklist: {report.task} ({report.duration_s:.1f}s)")
    for check in report.checks:
        table.add_row(check.name, "[green]pass[/]" if check.passed else "[red]FAIL[/]", check.evidence)
    out.print(table)


def print_pipeline(result: PipelineResult) -> None:
    table = Table("stage", "status", "seconds", title=f"pipeline: {result.app} ({result.duration_s:.1f}s)")
    colors = {"passed": "green", "failed": "red", "skipped": "dim"}
    for stage in result.stages:
        table.add_row(stage.name, f"[{colors[stage.status.value]}]{stage.status.value}[/]", f"{stage.duration_s:.2f}")
    out.print(table)
    failed = result.failed_stage
    if failed:
        out.print(f"[red]{failed.name} failed[/]; the lines to look at:")
        for line in failed.error_lines or failed.log_excerpt.splitlines()[-10:]:
            out.print(f"  {line}", markup=False)


def main() -> None:
    try:
        app(standalone_mode=False)
    except FaultsmithError as err:
        sys.stderr.write(f"error: {err}\n")
        sys.exit(2)
    except typer.Exit as done:
        sys.exit(done.exit_code)
    except Exception as err:  # click usage errors arrive here in non-standalone mode
        import click

        if isinstance(err, click.ClickException):
            err.show()
            sys.exit(err.exit_code)
        raise
