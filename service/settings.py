"""The one settings class: environment and `.env`, prefix FAULTSMITH_. Nothing below service/ reads os.environ."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from generator.config import LLMConfig
from validation.caches import Caches


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="FAULTSMITH_", env_file=".env", extra="ignore")

    cache_dir: Path = Field(default_factory=lambda: Path.home() / ".cache" / "faultsmith")

    # the LLM designer (FAULTSMITH_LLM_*); no base URL: `generate --composer auto` uses the seeded fallback
    llm_base_url: str | None = None
    llm_model: str = "gpt-4o-mini"
    llm_api_key: SecretStr | None = Field(
        None, validation_alias=AliasChoices("FAULTSMITH_LLM_API_KEY", "OPENAI_API_KEY", "llm_api_key")
    )
    llm_mode: Literal["tools", "json", "md_json", "json_schema"] = "tools"
    llm_timeout_s: float = 20.0
    llm_deadline_s: float = 30.0
    llm_max_retries: int = 2
    llm_catalog_size: int | None = None
    llm_temperature: float = 0.7
    llm_max_tokens: int = 1500
    llm_breaker_failures: int = 3
    llm_breaker_cooldown_s: float = 60.0
    llm_cache_dir: Path | None = None  # default <cache_dir>/llm

    def llm_config(self) -> LLMConfig:
        return LLMConfig(
            base_url=self.llm_base_url,
            model=self.llm_model,
            api_key=self.llm_api_key,
            mode=self.llm_mode,
            timeout_s=self.llm_timeout_s,
            deadline_s=self.llm_deadline_s,
            max_retries=self.llm_max_retries,
            catalog_size=self.llm_catalog_size,
            temperature=self.llm_temperature,
            max_tokens=self.llm_max_tokens,
            breaker_failures=self.llm_breaker_failures,
            breaker_cooldown_s=self.llm_breaker_cooldown_s,
            cache_dir=self.llm_cache_dir,
        )

    def caches(self) -> Caches:
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        return Caches(self.cache_dir.resolve())
