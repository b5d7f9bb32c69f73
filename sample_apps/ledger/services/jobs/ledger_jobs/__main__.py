"""python -m ledger_jobs: run the batch once."""

from __future__ import annotations

import logging
import sys

import jsonlog
from ledger_jobs.batch import run
from ledger_jobs.settings import Settings, app_root


def main() -> int:
    settings = Settings.from_env()
    jsonlog.configure(settings.log_config)
    log = logging.getLogger("ledger_jobs")
    log.info("batch starting", extra={"phase": "start", "app_root": str(app_root())})
    try:
        run_id, _ = run(settings)
    except Exception:
        log.exception("batch failed", extra={"phase": "failed"})
        return 1
    log.info("batch finished", extra={"phase": "done", "run_id": run_id})
    return 0


if __name__ == "__main__":
    sys.exit(main())
