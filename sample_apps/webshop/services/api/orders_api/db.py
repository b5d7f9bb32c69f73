"""SQLite access: DATABASE_URL parsing, connections, schema checks."""

from __future__ import annotations

import sqlite3
from urllib.parse import quote, unquote

REQUIRED_TABLES = ("customers", "orders", "invoices")
_SCHEME = "sqlite:///"


def sqlite_path(url: str) -> str:
    """sqlite:////data/shop.db -> /data/shop.db; sqlite:///shop.db -> shop.db (relative)."""
    if not url.startswith(_SCHEME):
        raise ValueError(f"unsupported DATABASE_URL {url!r}: expected sqlite:///<path>")
    path = unquote(url[len(_SCHEME):])
    if not path:
        raise ValueError(f"DATABASE_URL {url!r} has no database path")
    return path


def connect(path: str) -> sqlite3.Connection:
    """Open an existing database read-write; never creates the file or its directory."""
    conn = sqlite3.connect(f"file:{quote(path)}?mode=rw", uri=True, timeout=5)
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    return conn


def missing_tables(conn: sqlite3.Connection, tables: tuple[str, ...] = REQUIRED_TABLES) -> list[str]:
    rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    present = {row[0] for row in rows}
    return [name for name in tables if name not in present]
