"""The worker's HTTP interface: health and the reconcile trigger."""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable
from contextlib import closing
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from billing_worker import db
from billing_worker.config import Settings
from billing_worker.reconcile import OrdersApiClient, UpstreamError, reconcile

log = logging.getLogger("billing_worker")

Response = tuple[int, dict]


def healthz(settings: Settings) -> Response:
    try:
        with closing(db.connect(settings.db_path)) as conn:
            missing = db.missing_tables(conn)
    except sqlite3.Error as exc:
        return 503, {"status": "error", "error": f"database unreachable: {exc}"}
    if missing:
        return 503, {"status": "error", "error": f"missing tables: {', '.join(missing)}"}
    return 200, {"status": "ok", "service": "worker"}


def run_reconcile(settings: Settings) -> Response:
    client = OrdersApiClient(settings.api_url, settings.shared_secret)
    try:
        with closing(db.connect(settings.db_path)) as conn:
            result = reconcile(conn, client)
    except UpstreamError as exc:
        log.error(
            "orders api call failed",
            extra={"upstream_status": exc.status, "upstream_error": exc.detail, "api_url": settings.api_url},
        )
        return 502, {"error": "orders api call failed", "upstream_status": exc.status, "detail": exc.detail}
    except sqlite3.Error as exc:
        log.error("database error", extra={"error": str(exc)})
        return 500, {"error": f"database error: {exc}"}
    return 200, result


ROUTES: dict[tuple[str, str], Callable[[Settings], Response]] = {
    ("GET", "/healthz"): healthz,
    ("POST", "/jobs/reconcile"): run_reconcile,
}


class WorkerServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        super().__init__((settings.host, settings.port), WorkerHandler)


class WorkerHandler(BaseHTTPRequestHandler):
    server: WorkerServer
    server_version = "billing-worker/1.0"

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        started = time.perf_counter()
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        path = self.path.split("?", 1)[0]
        handler = ROUTES.get((method, path))
        if handler is None:
            known = any(p == path for _, p in ROUTES)
            status, body = (405, {"error": "method not allowed"}) if known else (404, {"error": "not found"})
        else:
            try:
                status, body = handler(self.server.settings)
            except Exception:
                log.exception("unhandled error", extra={"path": path})
                status, body = 500, {"error": "internal error"}
        elapsed = (time.perf_counter() - started) * 1000
        log.info(
            "request",
            extra={"method": method, "path": path, "status": status, "duration_ms": round(elapsed, 1)},
        )
        self._send(status, body)

    def _send(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        """Requests are logged as JSON by _dispatch."""
