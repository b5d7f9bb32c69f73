"""The Docker engine seam: a client that says clearly when no engine answers, and the local base image.

No image can be pulled on these machines, so the base every service and bundle builds `FROM` is made
here: `debootstrap --variant=minbase bookworm` from the machine's own apt mirror (read from its
sources, never hard-coded), with Debian's Python 3.11, then `docker import`. The image carries a
label with the hash of its recipe; a matching image is reused, so bootstrapping is idempotent.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from schemas.errors import ToolError

BASE_IMAGE = "faultsmith/python:3.11"
RECIPE_LABEL = "faultsmith.recipe"
SUITE = "bookworm"
PACKAGES = ("python3", "python3-venv", "python3-pip", "python-is-python3", "ca-certificates")
# What python:3.11-slim gives a Dockerfile that we must give too: `python`/`pip` on PATH, pip allowed to
# install into the system interpreter (no PEP 668 marker), UTF-8.
CHANGES = (
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "ENV LANG=C.UTF-8",
    'CMD ["python3"]',
)
_SOURCES = (Path("/etc/apt/sources.list"), Path("/etc/apt/sources.list.d"))
ENGINE_HINT = "start one with `scripts/dockerd.sh start`"


class EngineUnavailable(ToolError):
    def __init__(self, detail: str) -> None:
        super().__init__("docker", f"no Docker engine reachable ({detail}); {ENGINE_HINT}")


def client(timeout: int = 300) -> Any:
    """A docker SDK client for the local engine, or EngineUnavailable (one line)."""
    import docker

    try:
        c = docker.from_env(timeout=timeout, version="auto")
        c.ping()
    except Exception as err:  # noqa: BLE001 - the SDK raises several unrelated types for "nothing there"
        raise EngineUnavailable(str(err).splitlines()[0][:160]) from None
    return c


def apt_mirror(sources: tuple[Path, ...] = _SOURCES) -> str:
    """The machine's Debian mirror for the base suite (not -security/-updates), from its apt sources."""
    texts: list[str] = []
    for src in sources:
        if src.is_file():
            texts.append(src.read_text("utf-8", "replace"))
        elif src.is_dir():
            texts += [
                p.read_text("utf-8", "replace") for p in sorted(src.glob("*.sources")) + sorted(src.glob("*.list"))
            ]
    for text in texts:
        for block in re.split(r"\n\s*\n", text):  # deb822 stanzas
            uris = re.search(r"^URIs:\s*(\S+)", block, re.M)
            suites = re.search(r"^Suites:\s*(.+)$", block, re.M)
            if uris and suites and SUITE in suites.group(1).split() and "security" not in uris.group(1):
                return uris.group(1).rstrip("/")
        for m in re.finditer(r"^deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+(\S+)", text, re.M):
            if m.group(2) == SUITE and "security" not in m.group(1):
                return m.group(1).rstrip("/")
    raise ToolError("debootstrap", f"no Debian {SUITE} mirror found in the machine's apt sources")


def recipe_hash(mirror: str) -> str:
    recipe = "\n".join([SUITE, "minbase", *PACKAGES, *CHANGES, "strip-externally-managed", mirror])
    return hashlib.sha256(recipe.encode()).hexdigest()[:16]


@dataclass
class Bootstrap:
    image: str
    recipe: str
    built: bool
    seconds: float
    steps: list[str] = field(default_factory=list)


def base_image_ready(c: Any, image: str = BASE_IMAGE) -> bool:
    try:
        found = c.images.get(image)
    except Exception:  # noqa: BLE001 - docker.errors.ImageNotFound
        return False
    return bool(found.labels.get(RECIPE_LABEL) == recipe_hash(apt_mirror()))


def bootstrap(work_dir: Path, force: bool = False) -> Bootstrap:
    """Build the local base image unless an image from the same recipe exists."""
    t0 = time.monotonic()
    c = client()
    mirror = apt_mirror()
    digest = recipe_hash(mirror)
    if not force and base_image_ready(c):
        return Bootstrap(
            BASE_IMAGE, digest, False, time.monotonic() - t0, [f"{BASE_IMAGE} is current (recipe {digest})"]
        )
    if shutil.which("debootstrap") is None:
        raise ToolError(
            "debootstrap", "not installed; `apt-get install -y debootstrap` (scripts/dockerd.sh start does)"
        )
    steps: list[str] = []
    work_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rootfs-", dir=work_dir) as tmp:
        rootfs = Path(tmp) / "rootfs"
        argv = ["debootstrap", "--variant=minbase", f"--include={','.join(PACKAGES)}", SUITE, str(rootfs), mirror]
        t = time.monotonic()
        done = subprocess.run(argv, capture_output=True, text=True, timeout=1200)
        if done.returncode != 0:
            tail = (done.stdout + done.stderr).strip().splitlines()[-1:] or ["failed"]
            raise ToolError("debootstrap", tail[0])
        steps.append(f"debootstrap minbase {SUITE} from {mirror} + {' '.join(PACKAGES)}: {time.monotonic() - t:.1f}s")
        _trim(rootfs)
        t = time.monotonic()
        tarball = Path(tmp) / "rootfs.tar"
        subprocess.run(["tar", "--numeric-owner", "-C", str(rootfs), "-cf", str(tarball), "."], check=True)
        repo, tag = BASE_IMAGE.rsplit(":", 1)
        changes = [*CHANGES, f"LABEL {RECIPE_LABEL}={digest}"]
        c.api.import_image_from_file(str(tarball), repository=repo, tag=tag, changes=changes)
        steps.append(f"docker import {BASE_IMAGE}: {time.monotonic() - t:.1f}s")
    return Bootstrap(BASE_IMAGE, digest, True, time.monotonic() - t0, steps)


def _trim(rootfs: Path) -> None:
    """Drop what an image does not need, and the marker that stops `pip install` in the system Python."""
    for marker in rootfs.glob("usr/lib/python3*/EXTERNALLY-MANAGED"):
        marker.unlink()
    for cache in ("var/cache/apt/archives", "var/lib/apt/lists"):
        for item in (rootfs / cache).glob("*"):
            if item.is_file():
                item.unlink()
