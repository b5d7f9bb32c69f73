"""Run the billing worker: python -m billing_worker"""

from __future__ import annotations

import logging
import sys

from billing_worker.config import Settings
from billing_worker.server import WorkerServer
from jsonlog import configure_logging

log = logging.getLogger("billing_worker")


def main() -> int:
    configure_logging()
    try:
        settings = Settings.from_env()
    except ValueError as exc:
        log.error("invalid configuration", extra={"error": str(exc)})
        return 2
    server = WorkerServer(settings)
    log.info(
        "worker listening",
        extra={"host": settings.host, "port": settings.port, "api_url": settings.api_url},
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
