import json
import logging
import sys

import pytest

import jsonlog


def make_record(msg, *args, **extra):
    record = logging.LogRecord("orders_api", logging.INFO, __file__, 1, msg, args, None)
    record.__dict__.update(extra)
    return record


def test_formatter_emits_one_json_object():
    line = jsonlog.JsonFormatter().format(make_record("order %s created", 7, order_id=7))
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["msg"] == "order 7 created"
    assert entry["level"] == "INFO"
    assert entry["logger"] == "orders_api"
    assert entry["order_id"] == 7
    assert entry["ts"].endswith("Z")


def test_formatter_masks_emails():
    line = jsonlog.JsonFormatter().format(make_record("mail to jane@example.com", customer="bob@shop.io"))
    entry = json.loads(line)
    assert entry["msg"] == "mail to j***@example.com"
    assert entry["customer"] == "b***@shop.io"
    assert "jane@" not in line and "bob@" not in line


def test_formatter_includes_exception():
    try:
        raise RuntimeError("boom")
    except RuntimeError:
        record = make_record("failed")
        record.exc_info = sys.exc_info()
    entry = json.loads(jsonlog.JsonFormatter().format(record))
    assert "RuntimeError: boom" in entry["exc"]


def test_config_path_resolution(tmp_path):
    assert jsonlog.resolve_config_path(None) == jsonlog.APP_ROOT / "config" / "logging.json"
    assert jsonlog.resolve_config_path("config/logging.json").is_file()
    assert jsonlog.resolve_config_path(str(tmp_path / "x.json")) == tmp_path / "x.json"


def test_missing_config_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="logging config not found"):
        jsonlog.configure_logging(str(tmp_path / "missing.json"))


def test_logging_config_produces_json_lines(capsys, restore_logging, client):
    jsonlog.configure_logging("config/logging.json")
    logging.getLogger("orders_api").info("hello", extra={"k": "v"})
    client.get("/healthz")
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert lines[0]["msg"] == "hello" and lines[0]["k"] == "v"
    assert any(e["msg"] == "request" and e["path"] == "/healthz" and e["status"] == 200 for e in lines)
