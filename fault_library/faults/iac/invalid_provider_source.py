"""A provider's source address in required_providers is malformed; `terraform init` would reject it."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel

from fault_library.fault import Category, Fault
from fault_library.registry import register
from fault_library.text import replace_line
from fault_library.workspace import Workspace
from schemas.errors import MutationError
from schemas.mutation import Edit

_SOURCE = re.compile(r'^(?P<lead>\s*source\s*=\s*")(?P<ns>[a-z0-9-]+)/(?P<type>[a-z0-9-]+)(?P<tail>".*)$')
_MANGLES = ("capitalized", "underscore", "double_slash", "registry_scheme")


def _mangle(ns: str, kind: str, how: str) -> str:
    return {
        "capitalized": f"{ns.capitalize()}/{kind.upper()}",
        "underscore": f"{ns}/{kind}_provider",
        "double_slash": f"{ns}//{kind}",
        "registry_scheme": f"https://registry.terraform.io/{ns}/{kind}",
    }[how]


class Params(BaseModel):
    line: int
    how: str


@register
class InvalidProviderSource(Fault):
    id = "iac.invalid_provider_source"
    category = Category.IAC
    stage = "iac"
    summary = "A required_providers source address is not a valid [hostname/]namespace/type string."
    signature = r"Invalid provider source string"
    Params = Params
    roles = ("tf_provider",)

    def sample_params(self, app: Workspace, rng: random.Random) -> Params:
        lines = app.read(app.role("tf_provider")).splitlines()
        candidates = [i for i, line in enumerate(lines) if _SOURCE.match(line)]
        return Params(line=rng.choice(candidates), how=rng.choice(_MANGLES))

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        path = ws.role("tf_provider")
        text = ws.read(path)
        m = _SOURCE.match(text.splitlines()[params.line])
        if m is None:
            raise MutationError(path, f"line {params.line + 1} is not a provider source address")
        new = f"{m['lead']}{_mangle(m['ns'], m['type'], params.how)}{m['tail']}"
        return [replace_line(path, text, params.line, new)]
