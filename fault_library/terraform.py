"""Reading Terraform files for faults: python-hcl2 values keep their HCL quotes, so strip them."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import hcl2


def unquote(value: Any) -> Any:
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    return value


@lru_cache(maxsize=256)
def parse(text: str) -> dict[str, Any]:
    """Parsed HCL (cached: parsing is slow and composers parse the same files again and again). Read-only."""
    return hcl2.loads(text)  # type: ignore[no-any-return]


def variables(text: str) -> dict[str, dict[str, Any]]:
    """variable name -> its block attributes"""
    found: dict[str, dict[str, Any]] = {}
    for block in parse(text).get("variable", []):
        for name, attrs in block.items():
            found[unquote(name)] = attrs
    return found
