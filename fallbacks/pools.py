"""Precomputed pools the composer draws from: parameter variants per fault and app, and story people.

Sampling a fault's parameters reads and parses the app's files; doing it once per (fault, app, variant)
instead of once per scenario is what lets the fallback compose thousands of scenarios a second. Pools
are themselves seeded, so composition stays byte-for-byte deterministic.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

from fault_library.apps import app_view
from fault_library.decoys import all_decoys
from fault_library.fakes import faker_for
from fault_library.registry import get_fault

VARIANTS = 48
PEOPLE = 400


@cache
def fault_variants(fault_id: str, app: str) -> tuple[dict[str, Any], ...]:
    """Distinct parameter sets of a fault on an app, in a fixed order."""
    fault, ws = get_fault(fault_id), app_view(app)
    found: dict[str, dict[str, Any]] = {}
    for i in range(VARIANTS):
        params = fault.sample_params(ws, random.Random(f"variant:{fault_id}:{app}:{i}")).model_dump(mode="json")
        found.setdefault(repr(sorted(params.items())), params)
    return tuple(found.values())


@cache
def decoy_variants(kind: str, app: str) -> tuple[dict[str, Any], ...]:
    decoy, ws = all_decoys()[kind], app_view(app)
    return tuple(
        decoy.sample_params(ws, random.Random(f"decoy:{kind}:{app}:{i}")).model_dump(mode="json")
        for i in range(VARIANTS)
    )


@cache
def people() -> dict[str, tuple[str, ...]]:
    """Names, companies and commit messages for incident stories."""
    fake = faker_for(random.Random("faultsmith:people"))
    return {
        "names": tuple(fake.name() for _ in range(PEOPLE)),
        "companies": tuple(fake.company() for _ in range(PEOPLE // 2)),
        "commits": tuple(fake.sentence(nb_words=6).rstrip(".") for _ in range(PEOPLE // 2)),
    }


def warm() -> None:
    """Build every pool now (a service does this at start-up, so the first reset is as fast as the rest)."""
    from fault_library.apps import all_apps
    from fault_library.registry import all_faults

    people()
    for app, manifest in all_apps().items():
        for fault_id, fault in all_faults().items():
            if fault.applicable(manifest):
                fault_variants(fault_id, app)
        for kind, decoy in all_decoys().items():
            if decoy.applicable(manifest):
                decoy_variants(kind, app)
