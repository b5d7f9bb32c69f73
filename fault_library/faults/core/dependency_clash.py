"""A dependency pinned to a version its parent package does not accept; pip cannot resolve."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel

from fault_library.fault import Category, Fault, Repair
from fault_library.registry import register
from fault_library.text import remove_line, replace_line
from fault_library.workspace import Workspace
from schemas.mutation import Edit

DEV_REQUIREMENTS = "requirements-dev.txt"

# parent -> {dependency: versions outside the parent's declared range} (all in the wheelhouse)
INCOMPATIBLE: dict[str, dict[str, tuple[str, ...]]] = {
    "flask": {
        "werkzeug": ("2.3.8", "2.2.3"),
        "itsdangerous": ("2.0.1",),
        "click": ("8.0.4",),
        "blinker": ("1.5",),
    },
    "requests": {"idna": ("2.4",), "charset-normalizer": ("1.4.1",), "urllib3": ("1.20",)},
    "pytest": {"pluggy": ("1.4.0", "1.3.0")},
}
_PIN = re.compile(r"^(?P<name>[A-Za-z0-9_.-]+)==(?P<version>\S+)\s*$")


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pins(text: str) -> dict[str, tuple[int, str]]:
    """normalized name -> (line index, pinned version)"""
    found = {}
    for i, line in enumerate(text.splitlines()):
        m = _PIN.match(line)
        if m:
            found[_norm(m["name"])] = (i, m["version"])
    return found


class Params(BaseModel):
    path: str
    parent: str
    package: str
    version: str


@register
class DependencyClash(Fault):
    id = "core.dependency_clash"
    category = Category.CORE
    stage = "build"
    summary = (
        "A requirements file pins a dependency below the range its parent package requires, so "
        "pip's resolver cannot build the service."
    )
    signature = r"ResolutionImpossible|conflicting dependencies"
    Params = Params
    roles = ("requirements:*",)

    def sample_params(self, app: Workspace, rng: random.Random) -> Params:
        files = [s.requirements for _, s in sorted(app.manifest.services.items())]
        if app.exists(DEV_REQUIREMENTS):
            files.append(DEV_REQUIREMENTS)
        options = []
        for path in sorted(set(files)):
            pins = _pins(app.read(path))
            for parent, deps in sorted(INCOMPATIBLE.items()):
                if parent in pins:
                    for dep, versions in sorted(deps.items()):
                        if dep in pins:
                            options += [(path, parent, dep, v) for v in versions]
        path, parent, dep, version = rng.choice(options)
        return Params(path=path, parent=parent, package=dep, version=version)

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        text = ws.read(params.path)
        index, _ = _pins(text)[params.package]
        name = _PIN.match(text.splitlines()[index])["name"]  # type: ignore[index]
        return [replace_line(params.path, text, index, f"{name}=={params.version}")]

    def alternative_fixes(self, ws: Workspace, params: Params) -> list[Repair]:
        text = ws.read(params.path)
        index, _ = _pins(text)[params.package]
        return [
            Repair(
                "unpin_dependency",
                f"drop the {params.package} pin; {params.parent} chooses a version",
                [remove_line(params.path, text, index)],
            )
        ]
