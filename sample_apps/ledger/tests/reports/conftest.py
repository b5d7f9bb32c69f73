import hashlib
import hmac
import json
import sqlite3
import sys
import threading
from pathlib import Path

import pytest

APP_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(APP_ROOT / "services" / "reports"))

from ledger_reports.server import ReportServer  # noqa: E402
from ledger_reports.store import Store  # noqa: E402

SECRET = "0d9e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"
SUMMARY = {
    "generated_at": "2024-04-01T06:00:00+00:00",
    "policy_env": "production",
    "window": {"start": "2024-03-01", "end": "2024-03-31"},
    "totals": {"currency": "USD", "sales": "400.00", "refunds": "100.00", "net": "300.00",
               "refund_rate": "0.2500", "growth": None, "transactions": 4, "rejected": 1},
    "segments": {},
}


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    conn = sqlite3.connect(path)
    for migration in sorted((APP_ROOT / "db" / "migrations").glob("*.sql")):
        conn.executescript(migration.read_text(encoding="utf-8"))
    conn.close()
    return path


def _store_run(database: Path, secret: str = SECRET, summary: dict = SUMMARY) -> int:
    text = json.dumps(summary, sort_keys=True, separators=(",", ":"))
    signature = hmac.new(secret.encode(), text.encode(), hashlib.sha256).hexdigest()
    with sqlite3.connect(database) as conn:
        cur = conn.execute(
            "INSERT INTO report_runs (created_at, policy_env, window_start, window_end, accepted, rejected,"
            " summary, signature) VALUES (?, 'production', '2024-03-01', '2024-03-31', 4, 1, ?, ?)",
            (summary["generated_at"], text, signature),
        )
        conn.executemany(
            "INSERT INTO reports (run_id, segment, sales, refunds, net, refund_rate, growth, transactions)"
            " VALUES (?, ?, ?, ?, ?, ?, NULL, ?)",
            [(cur.lastrowid, "a", "100.00", "10.00", "90.00", "0.1000", 2),
             (cur.lastrowid, "b", "300.00", "90.00", "210.00", "0.3000", 2)],
        )
    return int(cur.lastrowid)


@pytest.fixture
def store_run():
    return _store_run


@pytest.fixture
def secret() -> str:
    return SECRET


@pytest.fixture
def serve():
    servers = []

    def start(database: Path, secret: str = SECRET) -> str:
        server = ReportServer(("127.0.0.1", 0), Store(database, secret))
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()
