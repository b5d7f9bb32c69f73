"""The catalog of sample apps shipped with faultsmith."""

from __future__ import annotations

import shutil
from functools import cache
from pathlib import Path

from fault_library.workspace import Workspace, load_manifest
from schemas.errors import UnknownAppError
from schemas.manifest import MANIFEST_NAME, AppManifest

APPS_DIR = Path(__file__).resolve().parent.parent / "sample_apps"


@cache
def all_apps() -> dict[str, AppManifest]:
    manifests = (load_manifest(p.parent) for p in sorted(APPS_DIR.glob(f"*/{MANIFEST_NAME}")))
    return {m.name: m for m in manifests}


def get_app(name: str) -> AppManifest:
    apps = all_apps()
    if name not in apps:
        raise UnknownAppError(name, apps)
    return apps[name]


def app_dir(name: str) -> Path:
    get_app(name)
    return APPS_DIR / name


def copy_app(name: str, dest: Path) -> Path:
    """A clean copy of an app's files (without caches a local run may have left) at `dest`."""
    shutil.copytree(app_dir(name), dest, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    return dest


@cache
def app_view(name: str) -> Workspace:
    """The clean app as a read-only workspace whose reads are cached: composers read it thousands of times."""
    return CleanApp(app_dir(name), get_app(name))


class CleanApp(Workspace):
    @cache  # noqa: B019  (one instance per app, alive for the process)
    def path(self, rel: str) -> Path:
        return super().path(rel)

    @cache  # noqa: B019
    def read(self, rel: str) -> str:
        return super().read(rel)

    @cache  # noqa: B019
    def exists(self, rel: str) -> bool:
        return super().exists(rel)

    @cache  # noqa: B019
    def files(self, under: str = "", suffix: str = "") -> list[str]:
        return super().files(under, suffix)

    def apply(self, edits):  # type: ignore[no-untyped-def]
        raise PermissionError("the clean app is read-only; copy it first")
