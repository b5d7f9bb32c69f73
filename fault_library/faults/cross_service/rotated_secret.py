"""The shared secret was rotated for one service only; cross-service calls fail authentication."""

from __future__ import annotations

import random

from pydantic import BaseModel

from fault_library.compose_text import env_line
from fault_library.fakes import faker_for
from fault_library.fault import Category, Fault
from fault_library.registry import register
from fault_library.text import replace_line
from fault_library.workspace import Workspace
from schemas.mutation import Edit


class Params(BaseModel):
    service: str
    suffix: str


def rotation_suffix(rng: random.Random) -> str:
    day = faker_for(rng).date_between("-2y", "today")
    return rng.choice([f"-v{rng.randint(2, 9)}", f"-{day.year}q{(day.month - 1) // 3 + 1}", f".{day:%Y%m%d}"])


@register
class RotatedSecret(Fault):
    id = "cross_service.rotated_secret"
    category = Category.CROSS_SERVICE
    stage = "deploy"
    summary = "One service's compose entry derives the shared secret with a new version suffix; its peer does not."
    signature = r"(?i)signature"
    Params = Params
    roles = ("compose",)

    def applicable(self, app):  # type: ignore[no-untyped-def]
        return sum(app.secret.env in s.required_env for s in app.services.values()) >= 2

    def sample_params(self, app: Workspace, rng: random.Random) -> Params:
        users = [n for n, s in sorted(app.manifest.services.items()) if app.manifest.secret.env in s.required_env]
        return Params(service=rng.choice(users), suffix=rotation_suffix(rng))

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        path = ws.role("compose")
        text = ws.read(path)
        index = env_line(text, params.service, ws.manifest.secret.env)
        line = text.splitlines()[index].rstrip()
        quote = line[-1] if line[-1] in "\"'" else ""
        new = line[: len(line) - len(quote)] + params.suffix + quote
        return [replace_line(path, text, index, new)]
