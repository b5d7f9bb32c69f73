import json
import logging

import pytest

import jsonlog


def test_formatter_emits_json_with_extra_fields():
    record = logging.LogRecord("billing_worker", logging.WARNING, __file__, 1, "sent %d", (3,), None)
    record.upstream_status = 401
    entry = json.loads(jsonlog.JsonFormatter().format(record))
    assert entry == {
        "ts": entry["ts"],
        "level": "WARNING",
        "logger": "billing_worker",
        "msg": "sent 3",
        "upstream_status": 401,
    }


def test_formatter_masks_emails():
    record = logging.LogRecord("billing_worker", logging.INFO, __file__, 1, "invoice for ann@corp.example", (), None)
    assert json.loads(jsonlog.JsonFormatter().format(record))["msg"] == "invoice for a***@corp.example"


def test_missing_config_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="logging config not found"):
        jsonlog.configure_logging(str(tmp_path / "missing.json"))


def test_logging_config_produces_json_lines(capsys, restore_logging):
    path = jsonlog.configure_logging("config/logging.json")
    assert path == jsonlog.APP_ROOT / "config" / "logging.json"
    logging.getLogger("billing_worker").error("upstream failed", extra={"upstream_status": 401})
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert (entry["level"], entry["msg"], entry["upstream_status"]) == ("ERROR", "upstream failed", 401)
