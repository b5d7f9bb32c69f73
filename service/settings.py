"""The one settings class: environment and `.env`, prefix FAULTSMITH_. Nothing below service/ reads os.environ."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from validation.caches import Caches


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FAULTSMITH_", env_file=".env", extra="ignore")

    cache_dir: Path = Field(default_factory=lambda: Path.home() / ".cache" / "faultsmith")

    def caches(self) -> Caches:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        return Caches(self.cache_dir.resolve())
