import logging
import sqlite3
import sys
from pathlib import Path

import pytest

APP_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(APP_ROOT / "services" / "api"))

MIGRATIONS = APP_ROOT / "db" / "migrations"
SIGNING_KEY = "unit-test-signing-key"


def apply_migrations(path: Path) -> None:
    conn = sqlite3.connect(path)
    try:
        for script in sorted(MIGRATIONS.glob("*.sql")):
            conn.executescript(script.read_text())
    finally:
        conn.close()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    path = tmp_path / "shop.db"
    apply_migrations(path)
    return path


@pytest.fixture
def signing_key() -> str:
    return SIGNING_KEY


@pytest.fixture
def app(db_path: Path):
    from orders_api import create_app

    return create_app({"DATABASE_URL": f"sqlite:///{db_path}", "SHARED_SECRET": SIGNING_KEY})


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
