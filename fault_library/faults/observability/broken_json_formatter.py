"""The JSON log formatter emits something that is not JSON; log pipelines drop every line."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel

from fault_library.fault import Category, Fault, Repair
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
    arg: str = "entry"
    rest: str = ""


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
        path = rng.choice(paths)
        m = _DUMPS.search(app.read(path))
        if m is None:
            raise MutationError(path, "no JSON formatter return statement")
        return Params(path=path, kind=rng.choice(sorted(_BREAKS)), arg=m["arg"], rest=m["rest"])

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        m = _DUMPS.search(ws.read(params.path))
        if m is None:
            raise MutationError(params.path, "no JSON formatter return statement")
        return [Replace(path=params.path, before=m[0], after=_BREAKS[params.kind].format(arg=m["arg"], rest=m["rest"]))]

    def alternative_fixes(self, ws: Workspace, params: Params) -> list[Repair]:
        """Serialise compactly: still one JSON object per line."""
        broken = _BREAKS[params.kind].format(arg=params.arg, rest=params.rest)
        fixed = f'return json.dumps({params.arg}{params.rest}, separators=(",", ":"))'
        return [
            Repair(
                "compact_json",
                "serialise with json.dumps and compact separators",
                [Replace(path=params.path, before=broken, after=fixed)],
            )
        ]
