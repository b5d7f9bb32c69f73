import json
import logging
import sqlite3
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

APP_ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(APP_ROOT / "services" / "worker"))

from billing_worker import signing  # noqa: E402

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


class StubOrdersApi(ThreadingHTTPServer):
    """Stands in for the orders API's internal endpoint: checks signatures, bills what it is asked to."""

    daemon_threads = True

    def __init__(self, key: str) -> None:
        super().__init__(("127.0.0.1", 0), _StubHandler)
        self.key = key
        self.calls: list[dict] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _StubHandler(BaseHTTPRequestHandler):
    server: StubOrdersApi

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        valid = signing.verify(self.server.key, body, self.headers.get(signing.HEADER))
        self.server.calls.append({"path": self.path, "body": json.loads(body), "valid": valid})
        if self.path != "/internal/billing/mark-billed":
            status, payload = 404, {"error": "not found"}
        elif not valid:
            status, payload = 401, {"error": "invalid signature"}
        else:
            status, payload = 200, {"billed": json.loads(body)["order_ids"]}
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def stub_api():
    server = StubOrdersApi(SIGNING_KEY)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def restore_logging():
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    yield
    for handler in root.handlers:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
