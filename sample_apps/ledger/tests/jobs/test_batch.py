import json
import sqlite3

import pytest
from ledger_jobs.batch import run
from ledger_jobs.ingest import read_transactions
from ledger_jobs.settings import Settings, sqlite_path
from ledger_jobs.signing import verify

SECRET = "0d9e3f4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"


def settings_for(app_root, database, env):
    return Settings.from_env({
        "DATABASE_URL": f"sqlite:///{database}",
        "POLICY_PATH": "config/policy.yaml",
        "POLICY_ENV": env,
        "LOG_CONFIG": "config/logging.json",
        "INPUT_PATH": "data/transactions.csv",
        "SHARED_SECRET": SECRET,
    })


def test_relative_paths_resolve_against_the_app_root(app_root, database):
    settings = settings_for(app_root, database, "production")
    assert settings.input_path == app_root / "data" / "transactions.csv"
    assert settings.policy_path == app_root / "config" / "policy.yaml"
    assert sqlite_path("sqlite:////data/ledger.db").as_posix() == "/data/ledger.db"
    assert len(read_transactions(settings.input_path)) == 69


def test_production_batch_totals(app_root, database):
    run_id, summary = run(settings_for(app_root, database, "production"))
    assert summary["totals"] == {
        "currency": "USD", "sales": "10807.82", "refunds": "804.63", "net": "10003.20",
        "refund_rate": "0.0744", "growth": "-0.0085", "transactions": 62, "rejected": 7,
    }
    assert summary["segments"]["wholesale"] == {
        "sales": "8828.96", "refunds": "429.30", "net": "8399.66", "refund_rate": "0.0486",
        "growth": "-0.0052", "transactions": 14,
    }
    assert summary["segments"]["online"]["net"] == "815.53"
    assert summary["segments"]["retail"]["refund_rate"] == "0.2467"

    conn = sqlite3.connect(database)
    stored, signature = conn.execute(
        "SELECT summary, signature FROM report_runs WHERE id = ?", (run_id,)).fetchone()
    assert json.loads(stored) == summary
    assert verify(SECRET, stored, signature)
    assert not verify(SECRET.replace("0d9e", "1d9e"), stored, signature)
    assert conn.execute("SELECT count(*) FROM transactions WHERE run_id = ?", (run_id,)).fetchone() == (62,)
    assert conn.execute("SELECT segment, net FROM reports ORDER BY segment").fetchall() == [
        ("online", "815.53"), ("retail", "788.00"), ("wholesale", "8399.66")]


def test_base_and_staging_batch_totals(app_root, database):
    _, base = run(settings_for(app_root, database, ""))
    assert {k: base["totals"][k] for k in ("sales", "refunds", "net", "transactions", "rejected")} == {
        "sales": "10796.80", "refunds": "804.63", "net": "9992.17", "transactions": 59, "rejected": 7}
    _, staging = run(settings_for(app_root, database, "staging"))
    assert {k: staging["totals"][k] for k in ("sales", "refunds", "net", "transactions", "rejected")} == {
        "sales": "4911.91", "refunds": "0.00", "net": "4911.91", "transactions": 27, "rejected": 39}


def test_missing_database_is_not_created(app_root, tmp_path):
    database = tmp_path / "absent.db"
    with pytest.raises(sqlite3.OperationalError):
        run(settings_for(app_root, database, "production"))
    assert not database.exists()


@pytest.mark.parametrize("name", ["DATABASE_URL", "SHARED_SECRET"])
def test_required_settings(app_root, database, name):
    env = {"DATABASE_URL": f"sqlite:///{database}", "SHARED_SECRET": SECRET}
    del env[name]
    with pytest.raises(KeyError, match=f"{name} is not set"):
        Settings.from_env(env)
