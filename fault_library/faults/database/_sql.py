"""Helpers shared by the database faults: migration names and a dry run of the migrate stage."""

from __future__ import annotations

import re
import sqlite3

from fault_library.workspace import Workspace

NUMBERED = re.compile(r"^(?P<num>\d+)(?P<rest>[_-].*\.sql)$")


def migrations(ws: Workspace) -> dict[str, str]:
    """name -> SQL text of every migration, as the migrate stage finds them."""
    folder = ws.role("migrations")
    return {p.rsplit("/", 1)[-1]: ws.read(p) for p in ws.files(folder, ".sql") if p.count("/") == folder.count("/") + 1}


def dry_run(scripts: dict[str, str], tables: list[str]) -> str | None:
    """Apply `scripts` in name order to an in-memory database; the error, or None when all tables exist."""
    conn = sqlite3.connect(":memory:")
    try:
        for name in sorted(scripts):
            try:
                conn.executescript(scripts[name])
            except sqlite3.Error as err:
                return f"{name}: {err}"
        present = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    finally:
        conn.close()
    missing = sorted(set(tables) - present)
    return f"tables are missing: {', '.join(missing)}" if missing else None


def columns(scripts: dict[str, str], table: str) -> set[str]:
    conn = sqlite3.connect(":memory:")
    try:
        for name in sorted(scripts):
            conn.executescript(scripts[name])
        return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}
    finally:
        conn.close()


def next_number(names: list[str]) -> str:
    """The number the next migration takes, zero-padded like the last one."""
    numbered = [m for m in (NUMBERED.match(n) for n in names) if m]
    last = max(numbered, key=lambda m: int(m["num"]))
    return f"{int(last['num']) + 1:0{len(last['num'])}d}"


def populated(scripts: dict[str, str], tables: list[str]) -> list[str]:
    """The tables that hold rows once every migration ran (seed data)."""
    conn = sqlite3.connect(":memory:")
    try:
        for name in sorted(scripts):
            conn.executescript(scripts[name])
        return [t for t in tables if conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]]
    finally:
        conn.close()


def schema_objects(scripts: dict[str, str]) -> list[str]:
    """Every table, index, view and trigger the migrations create, as "type:name" (empty on an error)."""
    conn = sqlite3.connect(":memory:")
    try:
        for name in sorted(scripts):
            conn.executescript(scripts[name])
        rows = conn.execute("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'")
        return sorted(f"{kind}:{name}" for kind, name in rows)
    except sqlite3.Error:
        return []
    finally:
        conn.close()
