"""The lint stage against a tiny workspace, with the real tools: clean passes, each tool catches its fault."""

from __future__ import annotations

from pathlib import Path

import pytest

from schemas.errors import ToolError
from schemas.manifest import AppManifest
from validation.caches import Caches
from validation.process import run_tool
from validation.stages.base import StageContext
from validation.stages.lint import lint
from validation.tools import find_tool

MANIFEST = {
    "name": "demo",
    "summary": "lint fixture",
    "shape": "api",
    "services": {
        "api": {
            "dir": "api",
            "requirements": "api/requirements.txt",
            "dockerfile": "api/Dockerfile",
            "command": ["python", "app.py"],
            "port_env": "API_PORT",
        }
    },
    "compose": {"file": "compose.yaml"},
    "database": {"migrations": "db", "file": "/data/app.db", "url_env": "DATABASE_URL", "tables": ["items"]},
    "secret": {"env": "APP_SECRET"},
    "logging": {"config": "logging.json", "module": "api/app.py"},
    "terraform": {
        "dir": "infra",
        "provider_file": "infra/providers.tf",
        "variables_file": "infra/variables.tf",
        "tfvars_file": "infra/terraform.tfvars",
        "iam_file": "infra/iam.tf",
        "required_actions": [],
    },
    "ci_workflow": ".github/workflows/ci.yml",
    "smoke": {"service": "api", "path": "/healthz"},
}

DOCKERFILE = """\
FROM python:3.11-slim
WORKDIR /app
COPY requirements.txt .
RUN pip install --no-cache-dir -r requirements.txt
COPY . .
USER 10001
CMD ["python", "app.py"]
"""

WORKFLOW = """\
name: ci
on:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v5
      - uses: actions/setup-python@v6
        with:
          python-version: ${{ matrix.python }}
      - run: pip install -r api/requirements.txt
"""

COMPOSE = """\
services:
  api:
    build: ./api
    environment:
      API_PORT: ${API_PORT}
      LOG_LEVEL: ${LOG_LEVEL}
    volumes:
      - appdata:/data
volumes:
  appdata: {}
"""

FILES = {
    "api/Dockerfile": DOCKERFILE,
    "api/requirements.txt": "flask==3.0.3\n",
    "api/app.py": "import os\n\nPORT = int(os.environ['API_PORT'])\n",
    ".github/workflows/ci.yml": WORKFLOW,
    "compose.yaml": COMPOSE,
    ".env": "API_PORT=8000\nLOG_LEVEL=info\n",
    ".yamllint.yaml": "extends: default\nrules:\n  document-start: disable\n  truthy: {check-keys: false}\n",
    "logging.json": '{"version": 1}\n',
}


def make_ctx(tmp_path: Path, files: dict[str, str] | None = None) -> StageContext:
    workspace = tmp_path / "ws"
    for rel, text in (files if files is not None else FILES).items():
        (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
        (workspace / rel).write_text(text)
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")  # binary: not handed to the scanners
    return StageContext(
        workspace=workspace,
        manifest=AppManifest.model_validate(MANIFEST),
        caches=Caches(tmp_path / "cache"),
        run_dir=tmp_path / "run",
        timeout_s=60,
    )


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_clean_workspace_passes_without_touching_it(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    before = snapshot(ctx.workspace)
    outcome = lint(ctx)
    assert outcome.ok, outcome.output
    assert outcome.error_lines == [] and outcome.exit_code == 0
    labels = [line for line in outcome.output.splitlines() if line.startswith("$ ")]
    assert labels == [
        "$ hadolint",
        "$ actionlint",
        "$ docker-compose config",
        "$ yamllint",
        "$ detect-secrets",
    ]
    assert str(tmp_path) not in outcome.output
    assert snapshot(ctx.workspace) == before


def test_latest_tag_fails_hadolint(tmp_path: Path) -> None:
    dockerfile = DOCKERFILE.replace("python:3.11-slim", "python:latest")
    outcome = lint(make_ctx(tmp_path, FILES | {"api/Dockerfile": dockerfile}))
    assert not outcome.ok
    assert any(line.startswith("hadolint: api/Dockerfile:1 DL3007 warning:") for line in outcome.error_lines)


def test_hadolint_config_at_the_root_applies(tmp_path: Path) -> None:
    dockerfile = DOCKERFILE.replace("python:3.11-slim", "python:latest")
    files = FILES | {"api/Dockerfile": dockerfile, ".hadolint.yaml": "ignored:\n  - DL3007\n"}
    outcome = lint(make_ctx(tmp_path, files))
    assert outcome.ok, outcome.error_lines
    assert "--config .hadolint.yaml" in outcome.output


def test_missing_dockerfile_fails_with_hadolints_message(tmp_path: Path) -> None:
    files = {k: v for k, v in FILES.items() if k != "api/Dockerfile"}
    outcome = lint(make_ctx(tmp_path, files))
    assert not outcome.ok
    assert any("api/Dockerfile" in line and "does not exist" in line for line in outcome.error_lines)


def test_undefined_matrix_property_fails_actionlint(tmp_path: Path) -> None:
    workflow = WORKFLOW.replace("matrix.python }}", "matrix.pyversion }}")
    outcome = lint(make_ctx(tmp_path, FILES | {".github/workflows/ci.yml": workflow}))
    assert not outcome.ok
    [line] = [line for line in outcome.error_lines if line.startswith("actionlint: ")]
    assert line.startswith("actionlint: .github/workflows/ci.yml:15:")
    assert 'property "pyversion" is not defined' in line


def test_unknown_compose_key_fails_compose_config(tmp_path: Path) -> None:
    compose = COMPOSE.replace("environment:", "enviroment:")
    outcome = lint(make_ctx(tmp_path, FILES | {"compose.yaml": compose}))
    assert not outcome.ok
    assert outcome.error_lines == [
        "docker-compose config: validating compose.yaml: services.api additional properties 'enviroment' not allowed"
    ]


def test_unset_variable_is_reported_without_a_timestamp(tmp_path: Path) -> None:
    compose = COMPOSE.replace("      - appdata:/data", "      - appdata:/data\n    ports:\n      - '${WEB_PORT}'")
    outcome = lint(make_ctx(tmp_path, FILES | {"compose.yaml": compose}))
    assert not outcome.ok
    assert outcome.error_lines == [
        'docker-compose config: level=warning msg="The \\"WEB_PORT\\" variable is not set. '
        'Defaulting to a blank string."',
        "docker-compose config: invalid proto:",
    ]
    assert "time=" not in outcome.output


def test_missing_env_file_fails_compose_config(tmp_path: Path) -> None:
    files = {k: v for k, v in FILES.items() if k != ".env"}
    outcome = lint(make_ctx(tmp_path, files))
    assert not outcome.ok
    [line] = [line for line in outcome.error_lines if line.startswith("docker-compose config: ")]
    assert ".env" in line and str(tmp_path) not in line


def test_bad_indentation_fails_yamllint(tmp_path: Path) -> None:
    outcome = lint(make_ctx(tmp_path, FILES | {"config/app.yaml": "a:\n  b: 1\nc:\n    d: 2\n"}))
    assert not outcome.ok
    assert outcome.error_lines == [
        "yamllint: config/app.yaml:4:5: [error] wrong indentation: expected 2 but found 4 (indentation)"
    ]


def test_aws_key_fails_detect_secrets(tmp_path: Path) -> None:
    settings = 'REGION = "eu-west-1"\nAWS_KEY = "AKIAIOSFODNN7EXAMPLE"\n'
    outcome = lint(make_ctx(tmp_path, FILES | {"api/settings.py": settings}))
    assert not outcome.ok
    assert "detect-secrets: Secret Type: AWS Access Key" in outcome.error_lines
    assert "detect-secrets: Location:    api/settings.py:2" in outcome.error_lines


def _with_accepted_secret(tmp_path: Path) -> StageContext:
    """A workspace whose .env holds a secret that .secrets.baseline accepts."""
    ctx = make_ctx(tmp_path, FILES | {".env": FILES[".env"] + "APP_SECRET=dev-only-3f9a1c77e2b44d0d\n"})
    scan = run_tool([find_tool("detect-secrets"), "scan", ".env"], cwd=ctx.workspace, timeout_s=60)
    assert scan.exit_code == 0, scan.output
    (ctx.workspace / ".secrets.baseline").write_text(scan.output)
    return ctx


def test_baseline_accepts_listed_secrets(tmp_path: Path) -> None:
    ctx = _with_accepted_secret(tmp_path)
    before = snapshot(ctx.workspace)
    outcome = lint(ctx)
    assert outcome.ok, outcome.error_lines
    assert snapshot(ctx.workspace) == before


def test_stale_baseline_fails_but_the_workspace_baseline_is_never_rewritten(tmp_path: Path) -> None:
    ctx = _with_accepted_secret(tmp_path)
    env = ctx.workspace / ".env"
    env.write_text("# moved down a line\n" + env.read_text())
    before = snapshot(ctx.workspace)
    outcome = lint(ctx)
    assert not outcome.ok
    assert "detect-secrets: The baseline file was updated." in outcome.error_lines
    assert "git add .secrets.baseline" in outcome.output and str(tmp_path) not in outcome.output
    assert snapshot(ctx.workspace) == before


def test_a_missing_tool_is_an_infrastructure_error() -> None:
    with pytest.raises(ToolError, match="not found; install faultsmith's dependencies"):
        find_tool("faultsmith-no-such-tool")
