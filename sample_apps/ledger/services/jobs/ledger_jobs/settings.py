"""Runtime settings, all taken from the environment.

Path variables (POLICY_PATH, LOG_CONFIG, INPUT_PATH) may be relative: they are resolved against
the app root, the nearest directory above this module that holds ``config/``. The same relative
value then works in a checkout (``services/jobs/..``) and in the image (``/app``).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

SQLITE_PREFIX = "sqlite:///"


def app_root(start: Path | None = None) -> Path:
    here = (start or Path(__file__)).resolve()
    for parent in here.parents:
        if (parent / "config").is_dir():
            return parent
    return Path.cwd()


def resolve_path(value: str) -> Path:
    path = Path(value)
    return path if path.is_absolute() else app_root() / path


def sqlite_path(url: str) -> Path:
    """``sqlite:////data/ledger.db`` -> ``/data/ledger.db``."""
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
    database: Path
    policy_path: Path
    policy_env: str
    log_config: Path
    input_path: Path
    secret: str

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if environ is None else environ
        return cls(
            database=sqlite_path(require(env, "DATABASE_URL")),
            policy_path=resolve_path(env.get("POLICY_PATH", "config/policy.yaml")),
            policy_env=env.get("POLICY_ENV", ""),
            log_config=resolve_path(env.get("LOG_CONFIG", "config/logging.json")),
            input_path=resolve_path(env.get("INPUT_PATH", "data/transactions.csv")),
            secret=require(env, "SHARED_SECRET"),
        )
