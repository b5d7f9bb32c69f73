"""Image builds through the docker SDK, FROM the local base, installing only from the local wheelhouse.

The apps' Dockerfiles say `FROM python:3.11-slim`, which no registry here can serve. The build reads a
copy of the (possibly mutated) Dockerfile, written outside the workspace, with that one FROM line rewritten
in place to the local build base (the line count is unchanged, so the builder's error text points at the
same lines the agent sees); every other byte is the workspace's own. A build arg would need an `ARG` line
the apps' files do not have. The build base is `faultsmith/python:3.11` plus the wheelhouse at /wheels and
`PIP_NO_INDEX=1 PIP_FIND_LINKS=/wheels`, so the Dockerfile's own `pip install -r ...` resolves for real,
offline. Builds use the legacy builder with `network_mode="none"`.
"""

from __future__ import annotations

import io
import re
import tarfile
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validation.caches import Caches
from validation.docker.engine import BASE_IMAGE, RECIPE_LABEL, EngineUnavailable, base_image_ready
from validation.wheelhouse import wheelhouse

UPSTREAM_BASE = re.compile(r"^(\s*FROM\s+(?:--platform=\S+\s+)?)python:3\.11-slim(?=\s|$)", re.I | re.M)
BUILD_BASE_REPO = "faultsmith/pybuild"
ANSI_ESCAPE = re.compile(r"\x1b\[[0-9;]*m")


@dataclass
class BuildOutcome:
    ok: bool
    output: str
    error_lines: list[str] = field(default_factory=list)
    image_id: str = ""


def build_base(c: Any, caches: Caches) -> str:
    """The local base plus the wheelhouse: built once per (base recipe, wheelhouse) pair."""
    if not base_image_ready(c):
        raise EngineUnavailable(f"base image {BASE_IMAGE} missing or stale; run `faultsmith docker bootstrap`")
    wheels = wheelhouse(caches)
    base = c.images.get(BASE_IMAGE)
    tag = f"{BUILD_BASE_REPO}:{base.labels[RECIPE_LABEL]}-{wheels.name}"
    try:
        c.images.get(tag)
        return tag
    except Exception:  # noqa: BLE001 - not built yet
        pass
    dockerfile = (
        f"FROM {BASE_IMAGE}\nCOPY wheels/ /wheels/\n"
        "ENV PIP_NO_INDEX=1 PIP_FIND_LINKS=/wheels PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_ROOT_USER_ACTION=ignore\n"
    )
    files = {"Dockerfile": dockerfile.encode()}
    files |= {f"wheels/{wheel.name}": wheel.read_bytes() for wheel in sorted(wheels.glob("*.whl"))}
    outcome = build_in_memory(c, files, tag, {})
    if not outcome.ok:
        raise EngineUnavailable(f"cannot build {tag}: {'; '.join(outcome.error_lines[-2:])}")
    return tag


def rewrite_from(text: str, base: str) -> str:
    return UPSTREAM_BASE.sub(lambda m: m.group(1) + base, text)


def build_image(
    c: Any, context: Path, dockerfile: str, base: str, tag: str, labels: dict[str, str], nocache: bool = False
) -> BuildOutcome:
    """Build `context` with its `dockerfile` (relative), FROM rewritten to `base`."""
    source = context / dockerfile
    if not source.is_file():
        line = f"unable to prepare context: unable to evaluate symlinks in Dockerfile path: lstat {dockerfile}: "
        line += "no such file or directory"
        return BuildOutcome(False, line, [line])
    outcome = _build_once(c, context, source, base, tag, labels, nocache)
    if not outcome.ok and any(race in line for line in outcome.error_lines for race in _CACHE_RACES):
        # the classic builder can pick a cached layer another run is deleting; that is the engine, not the app
        outcome = _build_once(c, context, source, base, tag, labels, nocache=True)
    return outcome


_CACHE_RACES = ("failed to get digest", "No such image", "unknown parent image ID")


def _build_once(
    c: Any, context: Path, source: Path, base: str, tag: str, labels: dict[str, str], nocache: bool
) -> BuildOutcome:
    with tempfile.TemporaryDirectory(prefix="faultsmith-df-") as tmp:
        copy = Path(tmp) / "Dockerfile"
        copy.write_text(rewrite_from(source.read_text("utf-8", "replace"), base), "utf-8")
        return stream_build(
            c,
            path=str(context),
            dockerfile=str(copy),
            tag=tag,
            labels=labels,
            network_mode="none",
            rm=True,
            forcerm=True,
            nocache=nocache,
            pull=False,
        )


def build_in_memory(c: Any, files: dict[str, bytes], tag: str, labels: dict[str, str]) -> BuildOutcome:
    """Build a context given as {path: bytes} (with its own "Dockerfile"), offline."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in files.items():
            _add_bytes(tar, name, data)
    buf.seek(0)
    return stream_build(
        c, fileobj=buf, custom_context=True, tag=tag, labels=labels, network_mode="none", rm=True, forcerm=True
    )


def stream_build(c: Any, **kwargs: Any) -> BuildOutcome:
    """Run a build, keeping the builder's own output; its error message is the symptom."""
    lines: list[str] = []
    errors: list[str] = []
    image_id = ""
    try:
        for chunk in c.api.build(decode=True, **kwargs):
            if "stream" in chunk:  # the builder colours a step's stderr; where the codes fall depends on chunking
                lines += ANSI_ESCAPE.sub("", chunk["stream"]).rstrip("\n").splitlines()
            if "aux" in chunk and "ID" in chunk["aux"]:
                image_id = chunk["aux"]["ID"]
            if "error" in chunk:
                errors.append(chunk["error"].strip())
    except Exception as err:  # noqa: BLE001 - the daemon refused the build before it started (APIError)
        text = getattr(err, "explanation", None) or str(err)
        errors.append(f"Error response from daemon: {text}".strip())
    output = "\n".join(lines + errors)
    if errors:
        step_lines = [ln for ln in lines if ln.startswith(("ERROR", "Step ", "E: ", "    "))][-12:]
        return BuildOutcome(False, output, [*_pip_lines(lines), *errors] or step_lines)
    return BuildOutcome(True, output, image_id=image_id)


def _pip_lines(lines: list[str]) -> list[str]:
    return [ln for ln in lines if ln.startswith(("ERROR:", "    The conflict is caused by")) or "No module" in ln][:12]


def _add_bytes(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size, info.mode = len(data), 0o644
    tar.addfile(info, io.BytesIO(data))
