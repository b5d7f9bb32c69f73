"""Structured logging: one JSON object per line, configured from the dictConfig file in LOG_CONFIG."""

from __future__ import annotations

import json
import logging
import logging.config
import os
import re
from datetime import datetime, timezone
from pathlib import Path

# The app root is two levels above this service directory, both in a checkout and in the image.
APP_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_CONFIG = "config/logging.json"

_RESERVED = frozenset(vars(logging.LogRecord("", 0, "", 0, "", (), None))) | {"message", "asctime"}
_EMAIL = re.compile(r"\b([A-Za-z0-9])[A-Za-z0-9._%+-]*@([A-Za-z0-9.-]+\.[A-Za-z]{2,})\b")


def mask_email(text: str) -> str:
    """Keep the first character of the local part and the domain: a***@example.com."""
    return _EMAIL.sub(r"\1***@\2", text)


class JsonFormatter(logging.Formatter):
    """Formats a record as JSON with ts, level, logger, msg and any `extra` fields."""

    def format(self, record: logging.LogRecord) -> str:
        ts = datetime.fromtimestamp(record.created, tz=timezone.utc)
        entry: dict[str, object] = {
            "ts": ts.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "msg": mask_email(record.getMessage()),
        }
        for key, value in vars(record).items():
            if key not in _RESERVED and not key.startswith("_"):
                entry[key] = mask_email(value) if isinstance(value, str) else value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def resolve_config_path(value: str | None) -> Path:
    """An absolute LOG_CONFIG is used as is; a relative one is taken from the app root."""
    path = Path(value or DEFAULT_CONFIG)
    return path if path.is_absolute() else APP_ROOT / path


def configure_logging(value: str | None = None) -> Path:
    """Load the dictConfig JSON named by `value` (default: $LOG_CONFIG) and apply it."""
    raw = value if value is not None else os.environ.get("LOG_CONFIG")
    path = resolve_config_path(raw)
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SystemExit(f"logging config not found: {path} (LOG_CONFIG={raw!r})") from None
    except json.JSONDecodeError as exc:
        raise SystemExit(f"logging config {path} is not valid JSON: {exc}") from None
    logging.config.dictConfig(config)
    return path
