"""The reporting policy: base YAML <- overrides/<env>.yaml <- LEDGER_POLICY__* environment variables."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml

ENV_PREFIX = "LEDGER_POLICY__"
RATE_METHODS = ("pooled", "mean")


@dataclass(frozen=True)
class Window:
    start: date
    end: date  # inclusive


@dataclass(frozen=True)
class Policy:
    reporting_currency: str
    fx_rates: Mapping[str, Decimal]
    currency_aliases: Mapping[str, str]
    window: Window
    rate_method: str
    min_amount: Decimal
    include_refunds: bool
    growth_log_base: Decimal
    baseline_net: Mapping[str, Decimal]
    rounding: int
    rate_rounding: int

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Policy:
        window = data["reporting_window"]
        policy = cls(
            reporting_currency=str(data["reporting_currency"]).upper(),
            fx_rates={str(k).upper(): _decimal(v) for k, v in data["fx_rates"].items()},
            currency_aliases={str(k): str(v).upper() for k, v in data.get("currency_aliases", {}).items()},
            window=Window(_date(window["start"]), _date(window["end"])),
            rate_method=str(data["rate_method"]),
            min_amount=_decimal(data["min_amount"]),
            include_refunds=_bool(data["include_refunds"]),
            growth_log_base=_decimal(data["growth_log_base"]),
            baseline_net={str(k): _decimal(v) for k, v in data.get("baseline_net", {}).items()},
            rounding=int(data["rounding"]),
            rate_rounding=int(data["rate_rounding"]),
        )
        policy._check()
        return policy

    def _check(self) -> None:
        if self.window.start > self.window.end:
            raise ValueError(f"reporting_window starts after it ends: {self.window}")
        if self.rate_method not in RATE_METHODS:
            raise ValueError(f"rate_method must be one of {RATE_METHODS}, got {self.rate_method!r}")
        if self.min_amount < 0:
            raise ValueError("min_amount must not be negative")
        if self.growth_log_base <= 0 or self.growth_log_base == 1:
            raise ValueError("growth_log_base must be positive and not 1")
        if self.rounding < 0 or self.rate_rounding < 0:
            raise ValueError("rounding must not be negative")
        if self.reporting_currency not in self.fx_rates:
            raise ValueError(f"no fx rate for the reporting currency {self.reporting_currency}")
        unknown = sorted(set(self.currency_aliases.values()) - set(self.fx_rates))
        if unknown:
            raise ValueError(f"aliases point at currencies without an fx rate: {unknown}")


def _decimal(value: Any) -> Decimal:
    return Decimal(str(value))


def _date(value: Any) -> date:
    return value if isinstance(value, date) else date.fromisoformat(str(value))


def _bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("true", "yes", "on", "1"):
        return True
    if text in ("false", "no", "off", "0"):
        return False
    raise ValueError(f"not a boolean: {value!r}")


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """Return base with override laid over it; nested mappings merge key by key.

    Any value present in the override wins, including 0, false and empty strings; only an
    explicit null (None) leaves the base value in place.
    """
    merged = dict(base)
    for key, value in override.items():
        if value is None:
            continue
        current = merged.get(key)
        if isinstance(value, Mapping) and isinstance(current, Mapping):
            merged[key] = deep_merge(current, value)
        else:
            merged[key] = value
    return merged


def env_overrides(environ: Mapping[str, str], prefix: str = ENV_PREFIX) -> dict[str, Any]:
    """``LEDGER_POLICY__REPORTING_WINDOW__END=2024-03-15`` -> {"reporting_window": {"end": date(...)}}."""
    result: dict[str, Any] = {}
    for name in sorted(environ):
        if not name.startswith(prefix):
            continue
        keys = [part.lower() for part in name[len(prefix):].split("__") if part]
        if not keys:
            continue
        node = result
        for key in keys[:-1]:
            node = node.setdefault(key, {})
        node[keys[-1]] = yaml.safe_load(environ[name])
    return result


def read_yaml(path: Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping at the top level")
    return data


def override_path(policy_path: Path, env: str) -> Path:
    return policy_path.parent / "overrides" / f"{env}.yaml"


def load_policy(
    policy_path: Path, env: str = "", environ: Mapping[str, str] | None = None
) -> Policy:
    data = read_yaml(policy_path)
    if env:
        data = deep_merge(data, read_yaml(override_path(policy_path, env)))
    data = deep_merge(data, env_overrides(os.environ if environ is None else environ))
    return Policy.from_mapping(data)
