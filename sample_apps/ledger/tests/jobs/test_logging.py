import json
import logging
import sys

import jsonlog
from ledger_jobs.batch import run
from ledger_jobs.settings import Settings


def test_formatter_emits_one_json_object_with_extras():
    record = logging.makeLogRecord({"name": "t", "levelname": "INFO", "levelno": 20, "msg": "rows %d",
                                    "args": (3,), "phase": "ingest", "rows": 3})
    line = jsonlog.JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["msg"] == "rows 3" and entry["level"] == "INFO" and entry["logger"] == "t"
    assert entry["phase"] == "ingest" and entry["rows"] == 3
    assert "args" not in entry and "levelno" not in entry


def test_formatter_includes_exceptions():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = logging.makeLogRecord({"msg": "failed", "exc_info": sys.exc_info()})
    entry = json.loads(jsonlog.JsonFormatter().format(record))
    assert entry["msg"] == "failed"
    assert "RuntimeError: boom" in entry["exc"]


def test_batch_logs_every_phase_as_json(app_root, database, capsys):
    jsonlog.configure(app_root / "config" / "logging.json")
    try:
        run(Settings.from_env({"DATABASE_URL": f"sqlite:///{database}", "POLICY_ENV": "production",
                               "SHARED_SECRET": "k"}))
    finally:
        logging.getLogger().handlers.clear()
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    phases = [e["phase"] for e in lines if e["level"] == "INFO"]
    assert phases == ["policy", "ingest", "validate", "aggregate", "report"]
    counts = {e["phase"]: e for e in lines if e["level"] == "INFO"}
    assert counts["ingest"]["rows"] == 69
    assert (counts["validate"]["accepted"], counts["validate"]["rejected"]) == (62, 7)
    assert sum(1 for e in lines if e["level"] == "WARNING") == 7
