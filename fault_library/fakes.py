"""Seeded fake data for fault parameters: realistic names, never the global RNG."""

from __future__ import annotations

import random
from functools import cache

from faker import Faker


@cache
def _faker() -> Faker:
    return Faker("en_US")


def faker_for(rng: random.Random) -> Faker:
    """A Faker whose draws are fixed by `rng` (one shared instance, re-seeded: creating one is slow)."""
    fake = _faker()
    fake.seed_instance(rng.getrandbits(64))
    return fake


def branch_name(rng: random.Random) -> str:
    fake = faker_for(rng)
    kind = rng.choice(["feature", "fix", "hotfix", "chore"])
    return f"{kind}/{fake.user_name().replace('.', '-')}-{fake.word()}"
