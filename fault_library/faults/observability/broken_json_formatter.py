"""The JSON log formatter emits something that is not JSON; log pipelines drop every line."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel

from fault_library.fault import Category, Fault
from fault_library.registry import register
from fault_library.workspace import Workspace
from schemas.errors import MutationError
from schemas.mutation import Edit, Replace

_DUMPS = re.compile(r"return json\.dumps\((?P<arg>\w+)(?P<rest>[^)\n]*)\)")

# how the formatter's return statement goes wrong
_BREAKS = {
    "python_repr": "return str({arg})",
    "logfmt": 'return " ".join(f"{{k}}={{v}}" for k, v in {arg}.items())',
}


class Params(BaseModel):
    path: str
    kind: str


@register
class BrokenJsonFormatter(Fault):
    id = "observability.broken_json_formatter"
    category = Category.OBSERVABILITY
    stage = "test"
    summary = "The structured-log formatter no longer writes one JSON object per line."
    signature = r"JSONDecodeError|Expecting (property name|value)|Extra data|not valid JSON"
    Params = Params
    roles = ("logging_module*",)

    def sample_params(self, app: Workspace, rng: random.Random) -> Params:
        paths = [
            p
            for _, s in sorted(app.manifest.services.items())
            for p in app.files(s.dir, ".py")
            if "logging.Formatter" in (text := app.read(p)) and _DUMPS.search(text)
        ]
        return Params(path=rng.choice(paths), kind=rng.choice(sorted(_BREAKS)))

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        m = _DUMPS.search(ws.read(params.path))
        if m is None:
            raise MutationError(params.path, "no JSON formatter return statement")
        return [Replace(path=params.path, before=m[0], after=_BREAKS[params.kind].format(arg=m["arg"], rest=m["rest"]))]
