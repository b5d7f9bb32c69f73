"""checkout: the tree is syntactically whole — Python compiles, no text file holds conflict markers."""

from __future__ import annotations

import re

from validation.stages.base import StageContext, StageOutcome

_MARKER = re.compile(r"^(<{7}|={7}|>{7})(\s|$)")
_SKIP_PARTS = {".git", "__pycache__", ".venv"}


def checkout(ctx: StageContext) -> StageOutcome:
    errors: list[str] = []
    checked = 0
    for path in sorted(p for p in ctx.workspace.rglob("*") if p.is_file()):
        rel = ctx.rel(path)
        if _SKIP_PARTS.intersection(path.parts):
            continue
        try:
            text = path.read_text("utf-8")
        except UnicodeDecodeError:
            continue
        checked += 1
        for lineno, line in enumerate(text.splitlines(), 1):
            if _MARKER.match(line):
                errors.append(f"{rel}:{lineno}: leftover conflict marker {line.strip()!r}")
        if path.suffix == ".py":
            try:
                compile(text, rel, "exec", dont_inherit=True)
            except SyntaxError as err:
                errors.append(f'File "{rel}", line {err.lineno}: SyntaxError: {err.msg}')
    summary = f"checked {checked} text files"
    return StageOutcome(
        ok=not errors, output="\n".join([summary, *errors]), error_lines=errors, exit_code=1 if errors else 0
    )
