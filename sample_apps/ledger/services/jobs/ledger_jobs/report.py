"""Store a report run: the signed summary, one row per segment, and the accepted transactions."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ledger_jobs.models import Transaction
from ledger_jobs.policy import Policy
from ledger_jobs.signing import canonical_json, sign


def connect(path: Path) -> sqlite3.Connection:
    """Open an existing database read-write; a missing file is an error, not a new database."""
    return sqlite3.connect(f"file:{path}?mode=rw", uri=True)


def build_summary(report: dict[str, Any], policy: Policy, policy_env: str, accepted: int) -> dict[str, Any]:
    return {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "policy_env": policy_env or "base",
        "window": {"start": policy.window.start.isoformat(), "end": policy.window.end.isoformat()},
        "rate_method": policy.rate_method,
        "accepted": accepted,
        **report,
    }


def write_report(
    conn: sqlite3.Connection,
    summary: dict[str, Any],
    accepted: Iterable[Transaction],
    secret: str,
) -> int:
    """Insert the run and its rows in one transaction; returns the run id."""
    text = canonical_json(summary)
    with conn:
        cur = conn.execute(
            "INSERT INTO report_runs (created_at, policy_env, window_start, window_end,"
            " accepted, rejected, summary, signature) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (
                summary["generated_at"],
                summary["policy_env"],
                summary["window"]["start"],
                summary["window"]["end"],
                summary["accepted"],
                summary["totals"]["rejected"],
                text,
                sign(secret, text),
            ),
        )
        run_id = int(cur.lastrowid or 0)
        conn.executemany(
            "INSERT INTO transactions (run_id, txn_id, booked_on, customer_id, segment, currency,"
            " amount, kind) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (run_id, t.txn_id, t.booked_on.isoformat(), t.customer_id, t.segment, t.currency,
                 str(t.amount), t.kind)
                for t in accepted
            ],
        )
        conn.executemany(
            "INSERT INTO reports (run_id, segment, sales, refunds, net, refund_rate, growth,"
            " transactions) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (run_id, name, seg["sales"], seg["refunds"], seg["net"], seg["refund_rate"],
                 seg["growth"], seg["transactions"])
                for name, seg in summary["segments"].items()
            ],
        )
    return run_id
