"""Conflict markers left in service code after a merge."""

from __future__ import annotations

import random
import re

from pydantic import BaseModel

from fault_library.fakes import branch_name
from fault_library.fault import Category, Fault
from fault_library.registry import register
from fault_library.text import unique_window
from fault_library.workspace import Workspace
from schemas.mutation import Edit, Replace

_NUMBER = re.compile(r"(?<![\w.])(\d+)(?![\w.])")


class Params(BaseModel):
    path: str
    line: int
    branch: str


@register
class MergeConflict(Fault):
    id = "core.merge_conflict"
    category = Category.CORE
    stage = "checkout"
    summary = "A merge left conflict markers in a service's Python module; the tree no longer compiles."
    signature = r"leftover conflict marker '<<<<<<<"
    Params = Params
    roles = ("service:*",)

    def sample_params(self, app: Workspace, rng: random.Random) -> Params:
        candidates = [
            (path, i)
            for _, svc in sorted(app.manifest.services.items())
            for path in app.files(svc.dir, ".py")
            for i, line in enumerate(app.read(path).splitlines())
            if line.strip() and not line.lstrip().startswith(("#", '"""', "import ", "from "))
        ]
        path, line = rng.choice(candidates)
        return Params(path=path, line=line, branch=branch_name(rng))

    def edits(self, ws: Workspace, params: Params) -> list[Edit]:
        text = ws.read(params.path)
        lines = text.splitlines(keepends=True)
        lo, hi = unique_window(lines, params.line, text)
        ours = "".join(lines[lo:hi])
        theirs = _NUMBER.sub(lambda m: str(int(m[1]) + 1), ours, count=1)
        if theirs == ours:  # no number to bump: their side deleted these lines (modify/delete)
            theirs = ""
        block = f"<<<<<<< HEAD\n{ours}=======\n{theirs}>>>>>>> {params.branch}\n"
        return [Replace(path=params.path, before=ours, after=block)]
