import hashlib
import hmac
import json
import sqlite3
import urllib.error
import urllib.request
from datetime import UTC, datetime

from ledger_reports.settings import Settings, app_root
from ledger_reports.store import Store


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def test_health_ok_when_tables_exist(database, serve):
    status, _, body = get(serve(database) + "/healthz")
    assert (status, json.loads(body)) == (200, {"status": "ok"})


def test_health_fails_without_tables_or_database(tmp_path, serve):
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    status, _, body = get(serve(empty) + "/healthz")
    assert status == 503 and "missing tables" in json.loads(body)["error"]
    status, _, _ = get(serve(tmp_path / "absent.db") + "/healthz")
    assert status == 503
    assert not (tmp_path / "absent.db").exists()


def test_latest_report_is_served_and_signed(database, serve, store_run, secret):
    run_id = store_run(database)
    status, headers, body = get(serve(database) + "/reports/latest")
    assert status == 200
    report = json.loads(body)
    assert report["run_id"] == run_id
    assert report["totals"]["net"] == "300.00"
    assert report["segments"]["b"] == {"sales": "300.00", "refunds": "90.00", "net": "210.00",
                                       "refund_rate": "0.3000", "growth": None, "transactions": 2}
    expected = hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
    assert headers["X-Report-Signature"] == expected


def test_signature_mismatch_is_refused(database, serve, store_run):
    store_run(database, secret="7c2b1a09-8e7f-4d6c-9b5a-f4e3d2c1b0a9")
    status, _, body = get(serve(database) + "/reports/latest")
    assert (status, json.loads(body)) == (409, {"error": "signature mismatch"})


def test_no_report_and_unknown_path_are_404(database, serve):
    base = serve(database)
    assert get(base + "/reports/latest")[0] == 404
    assert get(base + "/reports")[0] == 404


def test_age_is_measured_from_the_stored_timestamp(database, store_run, secret):
    store_run(database)
    report = Store(database, secret).latest(now=datetime(2024, 4, 1, 7, 0, 30, tzinfo=UTC))
    assert report["age_seconds"] == 3630


def test_settings_come_from_the_environment():
    settings = Settings.from_env({"REPORTS_PORT": "8091", "DATABASE_URL": "sqlite:////data/ledger.db",
                                  "LOG_CONFIG": "config/logging.json", "SHARED_SECRET": "x"})
    assert settings.port == 8091
    assert settings.database.as_posix() == "/data/ledger.db"
    assert settings.log_config == app_root() / "config" / "logging.json"


def test_missing_secret_is_refused():
    try:
        Settings.from_env({"REPORTS_PORT": "8091", "DATABASE_URL": "sqlite:////data/ledger.db"})
    except KeyError as exc:
        assert "SHARED_SECRET is not set" in str(exc)
    else:
        raise AssertionError("accepted a missing SHARED_SECRET")
