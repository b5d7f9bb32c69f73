"""Worker settings, read from the environment."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from billing_worker.db import sqlite_path


def require_env(env: Mapping[str, str], name: str) -> str:
    value = env.get(name, "")
    if not value:
        raise ValueError(f"{name} is not set")
    return value


@dataclass(frozen=True)
class Settings:
    port: int
    api_url: str
    db_path: str
    shared_secret: str
    host: str = "127.0.0.1"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        api_url = require_env(env, "API_URL")
        if not api_url.startswith(("http://", "https://")):
            raise ValueError(f"API_URL {api_url!r} must be an http(s) URL")
        return cls(
            port=int(require_env(env, "WORKER_PORT")),
            api_url=api_url.rstrip("/"),
            db_path=sqlite_path(require_env(env, "DATABASE_URL")),
            shared_secret=require_env(env, "SHARED_SECRET"),
            host=env.get("BIND_HOST", "127.0.0.1"),
        )
