import json
import logging

import jsonlog


def test_reports_formatter_emits_one_json_object_per_record():
    record = logging.makeLogRecord({"name": "ledger_reports", "levelname": "INFO", "levelno": 20,
                                    "msg": "GET %s", "args": ("/reports/latest",), "status": 200})
    line = jsonlog.JsonFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["msg"] == "GET /reports/latest" and entry["status"] == 200
