"""Scanning a response model for async validators once per class must not let one through."""

from __future__ import annotations

import pytest
from instructor.v2.validation import async_validators
from pydantic import BaseModel

import generator.client  # noqa: F401  (installs the once-per-class scan)


class Plain(BaseModel):
    name: str


class WithAsyncValidator(BaseModel):
    name: str

    @async_validators.async_field_validator("name")
    async def _check(self, value: str) -> str:
        return value


def test_the_scan_is_installed_and_still_refuses_async_validators() -> None:
    check = async_validators.reject_async_validators
    assert getattr(check, "_faultsmith_once", False)
    check(Plain)
    check(Plain)  # remembered: passes again without a walk
    for _ in range(2):  # a refusal is never remembered
        with pytest.raises(ValueError, match="async validators are not supported"):
            check(WithAsyncValidator)
