"""Run the orders API: python -m orders_api"""

from __future__ import annotations

import logging
import os
import sys

from werkzeug.serving import make_server

from jsonlog import configure_logging
from orders_api.app import create_app, require_env

log = logging.getLogger("orders_api")


def main() -> int:
    configure_logging()
    try:
        port = int(require_env(os.environ, "API_PORT"))
        app = create_app()
    except ValueError as exc:
        log.error("invalid configuration", extra={"error": str(exc)})
        return 2
    host = os.environ.get("BIND_HOST", "127.0.0.1")
    server = make_server(host, port, app, threaded=True)
    log.info("api listening", extra={"host": host, "port": port, "database": app.config["DB_PATH"]})
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
