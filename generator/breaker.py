"""A circuit breaker per endpoint: after N consecutive endpoint failures it opens, and the designer falls back at
once instead of waiting out another deadline; after a cool-down it half-opens and lets one probe through."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

State = Literal["closed", "open", "half_open"]


class CircuitBreaker:
    def __init__(self, failures_to_open: int, cooldown_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.failures_to_open, self.cooldown_s, self.clock = failures_to_open, cooldown_s, clock
        self.failures = 0
        self.opened_at: float | None = None
        self.probing = False
        self._lock = threading.Lock()

    @property
    def state(self) -> State:
        if self.opened_at is None:
            return "closed"
        return "half_open" if self.clock() - self.opened_at >= self.cooldown_s else "open"

    def allow(self) -> bool:
        """May a request go out now? In half-open state only one probe at a time."""
        with self._lock:
            state = self.state
            if state == "closed":
                return True
            if state == "half_open" and not self.probing:
                self.probing = True
                return True
            return False

    def retry_in(self) -> float:
        return 0.0 if self.opened_at is None else max(0.0, self.opened_at + self.cooldown_s - self.clock())

    def success(self) -> None:
        with self._lock:
            self.failures, self.opened_at, self.probing = 0, None, False

    def failure(self) -> None:
        with self._lock:
            self.failures += 1
            if self.probing or self.failures >= self.failures_to_open:
                self.opened_at = self.clock()
            self.probing = False


_BREAKERS: dict[tuple[str, str], CircuitBreaker] = {}
_LOCK = threading.Lock()


def breaker_for(base_url: str, model: str, failures_to_open: int, cooldown_s: float) -> CircuitBreaker:
    """The process-wide breaker of one endpoint and model (a batch shares it across scenarios)."""
    with _LOCK:
        found = _BREAKERS.get((base_url, model))
        if found is None or (found.failures_to_open, found.cooldown_s) != (failures_to_open, cooldown_s):
            found = _BREAKERS[(base_url, model)] = CircuitBreaker(failures_to_open, cooldown_s)
        return found


def reset_breakers() -> None:
    with _LOCK:
        _BREAKERS.clear()
