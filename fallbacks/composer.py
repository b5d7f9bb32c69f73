"""The deterministic composer: (seed, app, difficulty, pinned faults) -> a full incident Scenario.

Same inputs and catalog, same bytes. It draws a chain of faults in strictly later pipeline stages (so
each cascade stays hidden until its predecessors are fixed), params on disjoint lines, a red herring for
hard incidents, and a symptoms-only story.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping, Sequence
from functools import cache

from fallbacks.pools import decoy_variants, fault_variants
from fallbacks.story import story
from fallbacks.symptoms import TRIAGE
from fault_library.apps import all_apps, app_view
from fault_library.catalog import app_hash, catalog_version
from fault_library.composition import ScenarioError, plan
from fault_library.decoys import all_decoys
from fault_library.fault import Fault
from fault_library.leaks import forbidden_terms, leaks
from fault_library.registry import all_faults, get_fault
from fault_library.workspace import Workspace
from schemas.errors import InputError, UnknownAppError
from schemas.manifest import STAGES
from schemas.scenario import FaultInstance, Provenance, RedHerring, Scenario, Tier, tier_for

COMPOSER_VERSION = "fallback-1"
FAULTS_PER_TIER: dict[Tier, int] = {"easy": 1, "medium": 2, "hard": 3}
RED_HERRING_FROM = 0.65
ATTEMPTS = 64
STORY_ATTEMPTS = 8


def compose(
    seed: int,
    app: str | None = None,
    difficulty: float = 0.5,
    pinned: Sequence[str] = (),
    count: int | None = None,
    fallback_reason: str | None = None,
) -> Scenario:
    if not 0.0 <= difficulty <= 1.0:
        raise InputError(f"difficulty must be within [0, 1], got {difficulty}")
    rng = random.Random(f"faultsmith:{seed}:{app}:{difficulty!r}:{','.join(pinned)}:{count}")
    apps = all_apps()
    if app is not None and app not in apps:
        raise UnknownAppError(app, apps)
    name = app or rng.choice(sorted(apps))
    ws = app_view(name)
    tier = tier_for(difficulty)
    n = count if count is not None else max(FAULTS_PER_TIER[tier], len(pinned))
    if not 1 <= n <= 3 or len(pinned) > n:
        raise InputError(f"an incident has 1 to 3 faults (asked for {n} with {len(pinned)} pinned)")
    pins = [get_fault(f) for f in pinned]
    for _ in range(ATTEMPTS):
        chain = _chain(ws, pins, n, rng)
        if chain is None:
            continue
        instances = [
            FaultInstance(fault_id=f.id, params=rng.choice(fault_variants(f.id, name)), order=i, stage=f.stage)
            for i, f in enumerate(chain, 1)
        ]
        herring = _red_herring(ws, instances, rng) if difficulty >= RED_HERRING_FROM and n > 1 else None
        scenario = _scenario(seed, name, difficulty, tier, instances, herring, rng, fallback_reason)
        try:
            the_plan = plan(scenario, ws)
        except ScenarioError:
            continue  # overlapping edits or a decoy on a faulty file: draw again
        terms = forbidden_terms(
            [f.fault_id for f in instances], the_plan.touched(), [v for f in instances for v in f.params.values()]
        )
        for _ in range(STORY_ATTEMPTS):  # a story that happens to name the diagnosis is redrawn
            if not leaks(f"{scenario.alert}\n{scenario.narrative}", terms):
                return scenario
            scenario = _scenario(seed, name, difficulty, tier, instances, herring, rng, fallback_reason)
    raise InputError(f"could not compose a valid {n}-fault incident on {name} with pins {list(pinned)}")


def _chain(ws: Workspace, pins: list[Fault], n: int, rng: random.Random) -> list[Fault] | None:
    """n applicable faults with strictly increasing stages, including every pinned one."""
    candidates = applicable_faults(ws.manifest.name)
    for pin in pins:
        if pin not in candidates:
            raise InputError(f"pinned fault {pin.id} does not apply to app {ws.manifest.name!r}")
    chosen = {f.stage: f for f in pins}
    if len(chosen) < len(pins):
        raise InputError("pinned faults must fail at different stages to form a cascade")
    free = [s for s in STAGES if s not in chosen and any(f.stage == s for f in candidates)]
    if len(free) < n - len(chosen):
        return None
    for stage in rng.sample(free, n - len(chosen)):
        chosen[stage] = rng.choice([f for f in candidates if f.stage == stage])
    return [chosen[s] for s in STAGES if s in chosen]


@cache
def applicable_faults(app: str) -> list[Fault]:
    """Applicability is a pure function of the app: decide it once per process."""
    manifest = all_apps()[app]
    return [f for f in all_faults().values() if f.applicable(manifest)]


def _red_herring(ws: Workspace, faults: list[FaultInstance], rng: random.Random) -> RedHerring | None:
    root = faults[0]
    decoys = [d for d in all_decoys().values() if d.applicable(ws.manifest)]
    mimicking = [d for d in decoys if root.stage in d.mimics_stages] or decoys
    if not mimicking:
        return None
    chosen = rng.choice(mimicking)
    params = rng.choice(decoy_variants(chosen.kind, ws.manifest.name))
    return RedHerring(kind=chosen.kind, params=params, mimics=root.fault_id)


def _scenario(
    seed: int,
    app: str,
    difficulty: float,
    tier: Tier,
    faults: list[FaultInstance],
    herring: RedHerring | None,
    rng: random.Random,
    fallback_reason: str | None,
) -> Scenario:
    registry = all_faults()
    prose = story(rng, app, faults[0].stage)
    body = {
        "seed": seed,
        "app": app,
        "difficulty": difficulty,
        "tier": tier,
        "root_cause": faults[0],
        "cascades": faults[1:],
        "red_herring": herring,
        **prose,
        "triage_steps": [
            "Run the pipeline from a clean state and note the first failing stage.",
            *dict.fromkeys(TRIAGE[f.stage] for f in faults),
            "After each repair, run the whole pipeline again: later stages only run once earlier ones pass.",
        ],
        "hypothesis_keywords": sorted({w for f in faults for w in f.fault_id.split(".")[1].split("_") if len(w) > 3}),
        "fix_sequence": [f"{f.order}. [{f.stage}] {registry[f.fault_id].summary}" for f in faults],
        "verification_path": "Every pipeline stage passes on the verifier's own pipeline definition, and each "
        "fault's hidden behavioural check passes with values drawn at grade time.",
        "provenance": Provenance(
            composer="fallback",
            composer_version=COMPOSER_VERSION,
            catalog_version=catalog_version(),
            app_hash=app_hash(app),
            fallback_reason=fallback_reason,
        ),
    }
    content = {k: v for k, v in body.items() if k != "provenance"}  # the same incident, whichever path
    digest = hashlib.sha256(json.dumps(_jsonable(content), sort_keys=True).encode()).hexdigest()[:12]
    return Scenario(id=f"{app}-{tier}-{digest}", **body)


def _jsonable(body: Mapping[str, object]) -> object:
    return json.loads(json.dumps(body, default=lambda o: o.model_dump(mode="json")))
