"""The reconcile job: bill pending orders through the orders API, then write their invoices."""

from __future__ import annotations

import json
import logging
import sqlite3

import requests

from billing_worker import signing

log = logging.getLogger("billing_worker.reconcile")

MARK_BILLED_PATH = "/internal/billing/mark-billed"


class UpstreamError(Exception):
    """The orders API could not be reached or refused the call."""

    def __init__(self, status: int | None, detail: str) -> None:
        super().__init__(f"orders api returned {status}: {detail}" if status else detail)
        self.status = status
        self.detail = detail


class OrdersApiClient:
    def __init__(self, base_url: str, secret: str, timeout: float = 5.0, session=None) -> None:
        self.base_url = base_url.rstrip("/")
        self.secret = secret
        self.timeout = timeout
        self.session = session or requests.Session()

    def mark_billed(self, order_ids: list[int]) -> list[int]:
        url = self.base_url + MARK_BILLED_PATH
        body = json.dumps({"order_ids": order_ids}).encode("utf-8")
        headers = {"Content-Type": "application/json", signing.HEADER: signing.sign(self.secret, body)}
        try:
            resp = self.session.post(url, data=body, headers=headers, timeout=self.timeout)
        except requests.RequestException as exc:
            raise UpstreamError(None, f"could not reach {url}: {exc}") from exc
        if resp.status_code != 200:
            raise UpstreamError(resp.status_code, _error_text(resp))
        try:
            billed = resp.json()["billed"]
        except (ValueError, KeyError, TypeError) as exc:
            raise UpstreamError(resp.status_code, f"unexpected response body: {resp.text[:200]}") from exc
        return [int(i) for i in billed]


def _error_text(resp: requests.Response) -> str:
    try:
        return str(resp.json()["error"])
    except (ValueError, KeyError, TypeError):
        return resp.text[:200] or resp.reason or "no response body"


def uninvoiced_orders(conn: sqlite3.Connection, limit: int = 100) -> list[sqlite3.Row]:
    return conn.execute(
        """
        SELECT o.id, o.total_cents
        FROM orders o LEFT JOIN invoices i ON i.order_id = o.id
        WHERE o.status IN ('pending', 'billed') AND i.id IS NULL
        ORDER BY o.id
        LIMIT ?
        """,
        (limit,),
    ).fetchall()


def reconcile(conn: sqlite3.Connection, client: OrdersApiClient, batch_size: int = 100) -> dict:
    orders = uninvoiced_orders(conn, batch_size)
    amounts = {row["id"]: row["total_cents"] for row in orders}
    billed = client.mark_billed(list(amounts))
    invoice_ids: list[int] = []
    with conn:
        for order_id in billed:
            if order_id not in amounts:
                continue
            cur = conn.execute(
                "INSERT INTO invoices (order_id, amount_cents) VALUES (?, ?)", (order_id, amounts[order_id])
            )
            invoice_ids.append(cur.lastrowid)
    log.info("reconciled orders", extra={"candidates": len(orders), "invoiced": len(invoice_ids)})
    return {"reconciled": len(invoice_ids), "invoice_ids": invoice_ids, "candidates": len(orders)}
