"""GET /healthz and GET /reports/latest over the report database; responses are HMAC-signed."""

from __future__ import annotations

import json
import logging
import sqlite3
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from ledger_reports.store import SignatureMismatch, Store, sign

log = logging.getLogger("ledger_reports.server")

SIGNATURE_HEADER = "X-Report-Signature"


class ReportHandler(BaseHTTPRequestHandler):
    server: ReportServer
    protocol_version = "HTTP/1.1"

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/healthz":
            self._health()
        elif path == "/reports/latest":
            self._latest()
        else:
            self._send(HTTPStatus.NOT_FOUND, {"error": "not found", "path": path})

    def _health(self) -> None:
        try:
            missing = self.server.store.missing_tables()
        except sqlite3.Error as exc:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, {"status": "error", "error": f"database: {exc}"})
            return
        if missing:
            self._send(HTTPStatus.SERVICE_UNAVAILABLE, {"status": "error", "error": f"missing tables {missing}"})
        else:
            self._send(HTTPStatus.OK, {"status": "ok"})

    def _latest(self) -> None:
        try:
            report = self.server.store.latest()
        except SignatureMismatch as exc:
            log.error("signature mismatch", extra={"detail": str(exc)})
            self._send(HTTPStatus.CONFLICT, {"error": "signature mismatch"})
            return
        except (sqlite3.Error, KeyError, ValueError) as exc:
            log.exception("cannot read report")
            self._send(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"cannot read report: {exc}"})
            return
        if report is None:
            self._send(HTTPStatus.NOT_FOUND, {"error": "no report yet"})
        else:
            self._send(HTTPStatus.OK, report)

    def _send(self, status: HTTPStatus, payload: dict[str, Any]) -> None:
        body = json.dumps(payload, sort_keys=True).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.send_header(SIGNATURE_HEADER, sign(self.server.store.secret, body))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, fmt: str, *args: Any) -> None:
        log.info("request", extra={"client": self.client_address[0], "line": fmt % args})


class ReportServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], store: Store) -> None:
        self.store = store
        super().__init__(address, ReportHandler)
