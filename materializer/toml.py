"""A small TOML writer for task.toml (tomllib reads TOML but does not write it)."""

from __future__ import annotations

import json
from typing import Any


def dumps_toml(doc: dict[str, Any]) -> str:
    lines: list[str] = []
    _table(doc, [], lines)
    return "\n".join(lines).strip() + "\n"


def _table(doc: dict[str, Any], prefix: list[str], lines: list[str]) -> None:
    scalars = {k: v for k, v in doc.items() if not isinstance(v, dict)}
    tables = {k: v for k, v in doc.items() if isinstance(v, dict)}
    if prefix and scalars:
        lines.append(f"\n[{'.'.join(prefix)}]")
    for key, value in scalars.items():
        lines.append(f"{key} = {_value(value)}")
    for key, value in tables.items():
        _table(value, [*prefix, key], lines)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a valid TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")
