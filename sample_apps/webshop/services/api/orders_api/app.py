"""The orders API: public order endpoints plus the signed internal billing endpoint."""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Mapping

from flask import Flask, g, jsonify, request
from werkzeug.exceptions import HTTPException

from jsonlog import mask_email
from orders_api import db, signing

log = logging.getLogger("orders_api")

_ORDER_COLUMNS = """
    o.id, c.email AS customer_email, o.sku, o.quantity, o.total_cents,
    o.status, o.created_at, o.billed_at
"""


class ConfigError(ValueError):
    pass


def require_env(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "")
    if not value:
        raise ConfigError(f"{name} is not set")
    return value


def create_app(env: Mapping[str, str] | None = None) -> Flask:
    env = os.environ if env is None else env
    app = Flask(__name__)
    app.config["DB_PATH"] = db.sqlite_path(require_env(env, "DATABASE_URL"))
    app.config["SHARED_SECRET"] = require_env(env, "SHARED_SECRET")
    _register_hooks(app)
    _register_routes(app)
    return app


def get_db() -> sqlite3.Connection:
    if "db" not in g:
        g.db = db.connect(g.db_path)
    return g.db


def _error(message: str, status: int):
    return jsonify(error=message), status


def _register_hooks(app: Flask) -> None:
    @app.before_request
    def _start() -> None:
        g.started = time.perf_counter()
        g.db_path = app.config["DB_PATH"]

    @app.after_request
    def _log_request(response):
        elapsed = (time.perf_counter() - g.get("started", time.perf_counter())) * 1000
        log.info(
            "request",
            extra={
                "method": request.method,
                "path": request.path,
                "status": response.status_code,
                "duration_ms": round(elapsed, 1),
            },
        )
        return response

    @app.teardown_appcontext
    def _close_db(_exc: BaseException | None) -> None:
        conn = g.pop("db", None)
        if conn is not None:
            conn.close()

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException):
        return _error(exc.description or exc.name, exc.code or 500)

    @app.errorhandler(sqlite3.Error)
    def _db_error(exc: sqlite3.Error):
        log.error("database error", extra={"error": str(exc), "path": request.path})
        return _error(f"database error: {exc}", 500)


def _register_routes(app: Flask) -> None:
    @app.get("/healthz")
    def healthz():
        try:
            missing = db.missing_tables(get_db())
        except sqlite3.Error as exc:
            return jsonify(status="error", error=f"database unreachable: {exc}"), 503
        if missing:
            return jsonify(status="error", error=f"missing tables: {', '.join(missing)}"), 503
        return jsonify(status="ok", service="api")

    @app.post("/orders")
    def create_order():
        payload = request.get_json(silent=True)
        problem = _validate_order(payload)
        if problem:
            return _error(problem, 400)
        conn = get_db()
        email = payload["customer_email"].strip().lower()
        conn.execute("INSERT INTO customers (email) VALUES (?) ON CONFLICT (email) DO NOTHING", (email,))
        customer_id = conn.execute("SELECT id FROM customers WHERE email = ?", (email,)).fetchone()[0]
        total = payload["quantity"] * payload["unit_price_cents"]
        cur = conn.execute(
            "INSERT INTO orders (customer_id, sku, quantity, total_cents) VALUES (?, ?, ?, ?)",
            (customer_id, payload["sku"], payload["quantity"], total),
        )
        conn.commit()
        order = _fetch_order(conn, cur.lastrowid)
        log.info(
            "order created",
            extra={"order_id": order["id"], "customer": mask_email(email), "total_cents": total},
        )
        return jsonify(order), 201, {"Location": f"/orders/{order['id']}"}

    @app.get("/orders/<int:order_id>")
    def get_order(order_id: int):
        order = _fetch_order(get_db(), order_id)
        if order is None:
            return _error(f"order {order_id} not found", 404)
        return jsonify(order)

    @app.get("/orders")
    def list_orders():
        status = request.args.get("status")
        query = f"SELECT {_ORDER_COLUMNS} FROM orders o JOIN customers c ON c.id = o.customer_id"
        params: tuple[str, ...] = ()
        if status:
            query += " WHERE o.status = ?"
            params = (status,)
        rows = get_db().execute(query + " ORDER BY o.id LIMIT 100", params).fetchall()
        return jsonify(orders=[dict(row) for row in rows])

    @app.post("/internal/billing/mark-billed")
    def mark_billed():
        body = request.get_data()
        if not signing.verify(app.config["SHARED_SECRET"], body, request.headers.get(signing.HEADER)):
            log.warning("rejected internal request", extra={"path": request.path, "reason": "invalid signature"})
            return _error("invalid signature", 401)
        try:
            order_ids = json.loads(body)["order_ids"]
        except (ValueError, KeyError, TypeError):
            return _error("expected a JSON object with order_ids", 400)
        if not isinstance(order_ids, list) or not all(type(i) is int for i in order_ids):
            return _error("order_ids must be a list of integers", 400)
        conn = get_db()
        billed: list[int] = []
        if order_ids:
            marks = ",".join("?" * len(order_ids))
            conn.execute(
                "UPDATE orders SET status = 'billed', billed_at = strftime('%Y-%m-%dT%H:%M:%SZ', 'now') "
                f"WHERE status = 'pending' AND id IN ({marks})",
                order_ids,
            )
            conn.commit()
            rows = conn.execute(
                f"SELECT id FROM orders WHERE status = 'billed' AND id IN ({marks}) ORDER BY id", order_ids
            ).fetchall()
            billed = [row["id"] for row in rows]
        log.info("orders marked billed", extra={"requested": len(order_ids), "billed": len(billed)})
        return jsonify(billed=billed)


def _fetch_order(conn: sqlite3.Connection, order_id: int | None) -> dict | None:
    row = conn.execute(
        f"SELECT {_ORDER_COLUMNS} FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.id = ?",
        (order_id,),
    ).fetchone()
    return dict(row) if row else None


def _validate_order(payload: object) -> str | None:
    if not isinstance(payload, dict):
        return "expected a JSON object"
    email = payload.get("customer_email")
    if not isinstance(email, str) or "@" not in email:
        return "customer_email must be an email address"
    sku = payload.get("sku")
    if not isinstance(sku, str) or not sku.strip():
        return "sku must be a non-empty string"
    quantity = payload.get("quantity")
    if type(quantity) is not int or quantity < 1:
        return "quantity must be a positive integer"
    price = payload.get("unit_price_cents")
    if type(price) is not int or price < 0:
        return "unit_price_cents must be a non-negative integer"
    return None
