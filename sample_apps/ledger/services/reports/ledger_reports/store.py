"""Read report runs from the SQLite database the batch job writes."""

from __future__ import annotations

import hashlib
import hmac
import json
import sqlite3
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from dateutil.parser import isoparse

TABLES = ("report_runs", "reports", "transactions")


class SignatureMismatch(Exception):
    pass


def sign(secret: str, data: bytes) -> str:
    return hmac.new(secret.encode("utf-8"), data, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class Store:
    path: Path
    secret: str

    def _connect(self) -> sqlite3.Connection:
        conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
        conn.row_factory = sqlite3.Row
        return conn

    def missing_tables(self) -> list[str]:
        conn = self._connect()
        try:
            names = {r["name"] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        finally:
            conn.close()
        return [t for t in TABLES if t not in names]

    def latest(self, now: datetime | None = None) -> dict[str, Any] | None:
        """The newest run, its signature checked; None when no run exists yet."""
        conn = self._connect()
        try:
            run = conn.execute("SELECT * FROM report_runs ORDER BY id DESC LIMIT 1").fetchone()
            if run is None:
                return None
            rows = conn.execute(
                "SELECT segment, sales, refunds, net, refund_rate, growth, transactions"
                " FROM reports WHERE run_id = ? ORDER BY segment",
                (run["id"],),
            ).fetchall()
        finally:
            conn.close()
        expected = sign(self.secret, run["summary"].encode("utf-8"))
        if not hmac.compare_digest(expected, run["signature"]):
            raise SignatureMismatch(f"run {run['id']}")
        summary = json.loads(run["summary"])
        created = isoparse(run["created_at"])
        age = ((now or datetime.now(UTC)) - created).total_seconds()
        return {
            "run_id": run["id"],
            "generated_at": run["created_at"],
            "age_seconds": int(age),
            "policy_env": run["policy_env"],
            "window": summary["window"],
            "totals": summary["totals"],
            "segments": {r["segment"]: {k: r[k] for k in r.keys() if k != "segment"} for r in rows},
        }
