import sqlite3
import sys
from pathlib import Path

import pytest

APP_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(APP_ROOT / "services" / "jobs"))

from ledger_jobs.policy import load_policy  # noqa: E402


@pytest.fixture
def app_root() -> Path:
    return APP_ROOT


@pytest.fixture
def base_policy():
    return load_policy(APP_ROOT / "config" / "policy.yaml", "", environ={})


@pytest.fixture
def database(tmp_path: Path) -> Path:
    path = tmp_path / "ledger.db"
    conn = sqlite3.connect(path)
    for migration in sorted((APP_ROOT / "db" / "migrations").glob("*.sql")):
        conn.executescript(migration.read_text(encoding="utf-8"))
    conn.close()
    return path
