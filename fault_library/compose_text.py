"""Locating lines in a compose file's text, so faults edit it as a person would: one line at a time."""

from __future__ import annotations

import re

from schemas.errors import MutationError


def service_block(lines: list[str], service: str) -> tuple[int, int]:
    """[start, end) line indexes of a service's block under `services:`."""
    header = re.compile(rf"^(\s+){re.escape(service)}:\s*$")
    for i, line in enumerate(lines):
        m = header.match(line)
        if m:
            indent = len(m[1])
            end = next(
                (
                    j
                    for j in range(i + 1, len(lines))
                    if lines[j].strip() and len(lines[j]) - len(lines[j].lstrip()) <= indent
                ),
                len(lines),
            )
            return i, end
    raise MutationError("compose", f"no service {service!r}")


def env_line(text: str, service: str, key: str) -> int:
    """The line index that sets `key` in a service's `environment:` (mapping or list form)."""
    lines = text.splitlines()
    start, end = service_block(lines, service)
    pattern = re.compile(rf"^\s+(-\s+)?{re.escape(key)}\s*[:=]")
    for i in range(start, end):
        if pattern.match(lines[i]):
            return i
    raise MutationError("compose", f"service {service!r} does not set {key}")


def env_keys(text: str, service: str) -> list[str]:
    found = (
        re.match(r"^\s+(?:-\s+)?([A-Z][A-Z0-9_]*)\s*[:=]", line) for line in _lines_under(text, service, "environment")
    )
    return [m[1] for m in found if m]


def _lines_under(text: str, service: str, key: str) -> list[str]:
    """The lines nested under a service's `key:` (block form)."""
    lines = text.splitlines()
    start, end = service_block(lines, service)
    nested, inside, indent = [], False, 0
    for line in lines[start:end]:
        if re.match(rf"^\s+{key}:\s*$", line):
            inside, indent = True, len(line) - len(line.lstrip())
            continue
        if inside:
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            nested.append(line)
    return nested


def _list_under(text: str, service: str, key: str) -> list[str]:
    """The `- item` entries of a service's list-valued `key:` (block form)."""
    found = (re.match(r"^\s+-\s+[\"']?([^\"'\s]+)[\"']?\s*$", line) for line in _lines_under(text, service, key))
    return [m[1] for m in found if m]


def named_mounts(text: str, service: str) -> dict[str, str]:
    """target -> named volume, for a service's `volume:/target` entries."""
    found = {}
    for item in _list_under(text, service, "volumes"):
        source, _, target = item.partition(":")
        if target and not source.startswith((".", "/", "~")):
            found[target.split(":")[0]] = source
    return found


def start_order(text: str, services: list[str]) -> list[str]:
    """Compose's start order from `depends_on` (list form): dependencies first, ties by name."""
    order: list[str] = []

    def visit(name: str, seen: tuple[str, ...]) -> None:
        if name in order or name in seen:
            return
        for dep in sorted(_list_under(text, name, "depends_on")):
            if dep in services:
                visit(dep, (*seen, name))
        order.append(name)

    for name in sorted(services):
        visit(name, ())
    return order
