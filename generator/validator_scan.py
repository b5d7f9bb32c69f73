"""instructor's check for async validators, once per response model instead of seven times per call.

Before every request instructor walks the response model's whole type tree (every class's attributes along
its MRO) to refuse async validators it cannot run: about 3 ms per call on our incident model, a third of the
designer's own overhead. The answer depends only on the class, and we build one class per offered catalog,
so a model that passed once is not walked again; anything else still goes through instructor's own check.
If a future instructor moves the check, this does nothing and calls stay correct, only slower.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import Any


def install() -> None:
    try:
        from instructor.v2.core import patch
        from instructor.v2.validation import async_validators
    except ImportError:
        return
    original = getattr(async_validators, "reject_async_validators", None)
    if original is None or getattr(original, "_faultsmith_once", False):
        return
    once = _once_per_class(original)
    setattr(async_validators, "reject_async_validators", once)  # noqa: B010  (read at call time by most of instructor)
    if getattr(patch, "reject_async_validators", None) is original:
        setattr(patch, "reject_async_validators", once)  # noqa: B010  (imported by name there)


def _once_per_class(check: Callable[[Any], None]) -> Callable[[Any], None]:
    passed: weakref.WeakSet[type] = weakref.WeakSet()
    lock = threading.Lock()

    def once(response_model: Any) -> None:
        if not isinstance(response_model, type):
            check(response_model)
            return
        with lock:
            if response_model in passed:
                return
        check(response_model)  # raises for a model with async validators: never remembered
        with lock:
            passed.add(response_model)

    once._faultsmith_once = True  # type: ignore[attr-defined]
    return once
