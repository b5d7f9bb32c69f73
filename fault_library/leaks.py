"""The leak lint: text an agent reads must describe symptoms, never the diagnosis."""

from __future__ import annotations

import re
from collections.abc import Iterable

from schemas.manifest import STAGES

# words of fault names that also describe symptoms, or are too common to mean anything
_NEUTRAL = set(STAGES) | {
    "broken", "missing", "wrong", "invalid", "test", "tests", "service", "services", "from", "with", "that",
    "this", "file", "path", "level", "name", "only", "value", "data", "database", "schema", "source",
    "default", "without", "order",
}  # fmt: skip


def forbidden_terms(fault_ids: Iterable[str], touched_paths: Iterable[str], param_values: Iterable[object]) -> set[str]:
    """Fault ids, the words of their names, touched paths and their file names, and distinctive param strings."""
    terms: set[str] = set()
    for fault_id in fault_ids:
        terms.add(fault_id.lower())
        terms.update(w for w in re.split(r"[._]", fault_id.lower())[1:] if len(w) > 3 and w not in _NEUTRAL)
    for path in touched_paths:
        terms.add(path.lower())
        name = path.rsplit("/", 1)[-1].lower()
        if len(name) > 3:
            terms.add(name)
    for value in param_values:
        if isinstance(value, str) and 4 <= len(value) <= 80 and "\n" not in value and value.lower() not in _NEUTRAL:
            terms.add(value.lower())
    return terms


def leaks(text: str, terms: set[str]) -> list[str]:
    """The forbidden terms `text` contains, as whole words (or path fragments)."""
    lowered = text.lower()
    found = []
    for term in sorted(terms):
        if re.search(rf"(?<![\w/.-]){re.escape(term)}(?![\w-])", lowered):
            found.append(term)
    return found
