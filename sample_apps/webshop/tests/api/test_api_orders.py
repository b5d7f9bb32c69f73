import io
import json
import logging
import sqlite3

import pytest

from jsonlog import JsonFormatter
from orders_api import create_app, signing
from orders_api.db import sqlite_path

ORDER = {"customer_email": "Jane.Doe@example.com", "sku": "MUG-001", "quantity": 3, "unit_price_cents": 1200}


def signed_post(client, path, payload, key):
    body = json.dumps(payload).encode()
    headers = {signing.HEADER: signing.sign(key, body), "Content-Type": "application/json"}
    return client.post(path, data=body, headers=headers)


def test_healthz_ok(client):
    resp = client.get("/healthz")
    assert resp.status_code == 200
    assert resp.get_json() == {"status": "ok", "service": "api"}


def test_healthz_reports_missing_table(client, db_path):
    with sqlite3.connect(db_path) as conn:
        conn.execute("DROP TABLE invoices")
    resp = client.get("/healthz")
    assert resp.status_code == 503
    assert "invoices" in resp.get_json()["error"]


def test_healthz_does_not_create_database(tmp_path, signing_key):
    missing = tmp_path / "nope" / "shop.db"
    app = create_app({"DATABASE_URL": f"sqlite:///{missing}", "SHARED_SECRET": signing_key})
    resp = app.test_client().get("/healthz")
    assert resp.status_code == 503
    assert "database unreachable" in resp.get_json()["error"]
    assert not missing.parent.exists()


def test_create_and_fetch_order(client):
    resp = client.post("/orders", json=ORDER)
    assert resp.status_code == 201
    order = resp.get_json()
    assert order["customer_email"] == "jane.doe@example.com"
    assert order["total_cents"] == 3600
    assert order["status"] == "pending"
    assert resp.headers["Location"] == f"/orders/{order['id']}"
    assert client.get(f"/orders/{order['id']}").get_json() == order


@pytest.mark.parametrize(
    "change",
    [{"customer_email": "nobody"}, {"sku": ""}, {"quantity": 0}, {"quantity": "2"}, {"unit_price_cents": -1}],
)
def test_create_order_rejects_invalid_input(client, change):
    resp = client.post("/orders", json={**ORDER, **change})
    assert resp.status_code == 400
    assert "error" in resp.get_json()


def test_unknown_order_is_404_json(client):
    resp = client.get("/orders/9999")
    assert resp.status_code == 404
    assert resp.get_json() == {"error": "order 9999 not found"}


def test_list_orders_by_status(client):
    client.post("/orders", json=ORDER)
    pending = client.get("/orders?status=pending").get_json()["orders"]
    assert len(pending) == 3
    assert client.get("/orders?status=billed").get_json()["orders"] == []


def test_mark_billed_with_valid_signature(client, signing_key):
    resp = signed_post(client, "/internal/billing/mark-billed", {"order_ids": [1, 2, 404]}, signing_key)
    assert resp.status_code == 200
    assert resp.get_json() == {"billed": [1, 2]}
    assert client.get("/orders/1").get_json()["status"] == "billed"
    again = signed_post(client, "/internal/billing/mark-billed", {"order_ids": [1]}, signing_key)
    assert again.get_json() == {"billed": [1]}


def test_mark_billed_rejects_bad_signature_and_logs_json(client):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("orders_api")
    logger.addHandler(handler)
    try:
        resp = signed_post(client, "/internal/billing/mark-billed", {"order_ids": [1]}, key="other-key")
    finally:
        logger.removeHandler(handler)
    assert resp.status_code == 401
    assert resp.get_json() == {"error": "invalid signature"}
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    rejected = [line for line in lines if line["msg"] == "rejected internal request"]
    assert rejected and rejected[0]["level"] == "WARNING"
    assert client.get("/orders/1").get_json()["status"] == "pending"


def test_mark_billed_requires_signature_header(client):
    resp = client.post("/internal/billing/mark-billed", json={"order_ids": [1]})
    assert resp.status_code == 401


def test_create_app_requires_shared_secret(db_path):
    with pytest.raises(ValueError, match="SHARED_SECRET"):
        create_app({"DATABASE_URL": f"sqlite:///{db_path}"})


@pytest.mark.parametrize(
    ("url", "path"),
    [("sqlite:////data/shop.db", "/data/shop.db"), ("sqlite:///shop.db", "shop.db")],
)
def test_sqlite_path(url, path):
    assert sqlite_path(url) == path


@pytest.mark.parametrize("url", ["postgres://db/shop", "sqlite:///", "/data/shop.db"])
def test_sqlite_path_rejects_other_urls(url):
    with pytest.raises(ValueError):
        sqlite_path(url)
