import sqlite3
import threading
from contextlib import closing

import pytest
import requests

from billing_worker import signing
from billing_worker.config import Settings
from billing_worker.db import connect, sqlite_path
from billing_worker.reconcile import OrdersApiClient, UpstreamError, reconcile
from billing_worker.server import WorkerServer


def invoices(db_path):
    with closing(sqlite3.connect(db_path)) as conn:
        return conn.execute("SELECT order_id, amount_cents FROM invoices ORDER BY order_id").fetchall()


def test_signature_round_trip(signing_key):
    body = b'{"order_ids": [1]}'
    sig = signing.sign(signing_key, body)
    assert sig.startswith("sha256=") and len(sig) == 7 + 64
    assert signing.verify(signing_key, body, sig)
    assert not signing.verify(signing_key, body + b" ", sig)
    assert not signing.verify("another-key", body, sig)
    assert not signing.verify(signing_key, body, None)


@pytest.mark.parametrize(
    ("url", "path"),
    [("sqlite:////data/shop.db", "/data/shop.db"), ("sqlite:///var/shop.db", "var/shop.db")],
)
def test_sqlite_path(url, path):
    assert sqlite_path(url) == path


def test_settings_from_env(signing_key):
    env = {
        "WORKER_PORT": "8082",
        "API_URL": "http://api:8081/",
        "DATABASE_URL": "sqlite:////data/shop.db",
        "SHARED_SECRET": signing_key,
    }
    settings = Settings.from_env(env)
    assert (settings.port, settings.api_url, settings.db_path) == (8082, "http://api:8081", "/data/shop.db")
    with pytest.raises(ValueError, match="SHARED_SECRET is not set"):
        Settings.from_env({**env, "SHARED_SECRET": ""})
    with pytest.raises(ValueError, match="API_URL"):
        Settings.from_env({**env, "API_URL": "api:8081"})


def test_reconcile_invoices_seeded_orders(db_path, stub_api, signing_key):
    client = OrdersApiClient(stub_api.url, signing_key)
    with closing(connect(str(db_path))) as conn:
        result = reconcile(conn, client)
        assert result["reconciled"] == 2
        assert reconcile(conn, client)["reconciled"] == 0
    assert invoices(db_path) == [(1, 2400), (2, 1999)]
    assert [c["valid"] for c in stub_api.calls] == [True, True]
    assert stub_api.calls[0]["body"] == {"order_ids": [1, 2]}
    assert stub_api.calls[1]["body"] == {"order_ids": []}


def test_reconcile_surfaces_rejected_signature(db_path, stub_api):
    client = OrdersApiClient(stub_api.url, "wrong-key")
    with closing(connect(str(db_path))) as conn, pytest.raises(UpstreamError) as err:
        reconcile(conn, client)
    assert err.value.status == 401
    assert err.value.detail == "invalid signature"
    assert invoices(db_path) == []


def test_unreachable_api(db_path, signing_key):
    client = OrdersApiClient("http://127.0.0.1:9", signing_key, timeout=1)
    with pytest.raises(UpstreamError) as err:
        client.mark_billed([1])
    assert err.value.status is None


def test_connect_does_not_create_database(tmp_path):
    with pytest.raises(sqlite3.OperationalError):
        connect(str(tmp_path / "missing" / "shop.db"))
    assert not (tmp_path / "missing").exists()


@pytest.fixture
def worker(db_path, stub_api, signing_key, request):
    key = getattr(request, "param", signing_key)
    settings = Settings(port=0, api_url=stub_api.url, db_path=str(db_path), shared_secret=key)
    server = WorkerServer(settings)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_worker_http_endpoints(worker):
    assert requests.get(f"{worker}/healthz", timeout=5).json() == {"status": "ok", "service": "worker"}
    resp = requests.post(f"{worker}/jobs/reconcile", timeout=5)
    assert resp.status_code == 200
    assert resp.json()["reconciled"] == 2
    assert requests.get(f"{worker}/nope", timeout=5).status_code == 404
    assert requests.get(f"{worker}/jobs/reconcile", timeout=5).status_code == 405


@pytest.mark.parametrize("worker", ["mismatched-key"], indirect=True)
def test_worker_reports_upstream_401(worker):
    resp = requests.post(f"{worker}/jobs/reconcile", timeout=5)
    assert resp.status_code == 502
    body = resp.json()
    assert body["upstream_status"] == 401
    assert body["detail"] == "invalid signature"
