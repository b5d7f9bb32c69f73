"""Runtime settings from the environment; relative paths resolve against the app root
(the nearest directory above this module that holds ``config/``)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SQLITE_PREFIX = "sqlite:///"


def app_root() -> Path:
    for parent in Path(__file__).resolve().parents:
        if (parent / "config").is_dir():
            return parent
    return Path.cwd()


def resolve_path(value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else app_root() / path


def sqlite_path(url: str) -> Path:
    if not url.startswith(SQLITE_PREFIX) or len(url) == len(SQLITE_PREFIX):
        raise ValueError(f"DATABASE_URL must look like sqlite:////path/to/file.db, got {url!r}")
    return Path(url[len(SQLITE_PREFIX):])


def require(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "")
    if not value:
        raise KeyError(f"{name} is not set")
    return value


@dataclass(frozen=True)
class Settings:
    port: int
    host: str
    database: Path
    log_config: Path
    secret: str

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            port=int(require(env, "REPORTS_PORT")),
            host=env.get("REPORTS_HOST", "0.0.0.0"),
            database=sqlite_path(require(env, "DATABASE_URL")),
            log_config=resolve_path(env.get("LOG_CONFIG", "config/logging.json")),
            secret=require(env, "SHARED_SECRET"),
        )
