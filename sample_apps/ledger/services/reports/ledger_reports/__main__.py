"""python -m ledger_reports: serve the latest report until stopped."""

from __future__ import annotations

import logging
import sys

import jsonlog
from ledger_reports.server import ReportServer
from ledger_reports.settings import Settings
from ledger_reports.store import Store


def main() -> int:
    settings = Settings.from_env()
    jsonlog.configure(settings.log_config)
    log = logging.getLogger("ledger_reports")
    server = ReportServer((settings.host, settings.port), Store(settings.database, settings.secret))
    log.info("listening", extra={"host": settings.host, "port": server.server_address[1],
                                 "database": str(settings.database)})
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
