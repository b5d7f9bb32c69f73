"""An LLM design → a Scenario, and every reason it cannot be one (the words instructor re-asks with).

The rules themselves live in `fault_library.composition` (catalog, params, stages, overlaps, decoy) and
`fault_library.leaks` (symptoms-only text); this module only adds what the request asks for.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from pydantic import ValidationError

from fault_library.apps import app_view
from fault_library.catalog import app_hash, catalog_version
from fault_library.composition import ScenarioError, plan
from fault_library.leaks import forbidden_terms, leaks
from fault_library.registry import all_faults
from generator.response import DesignContext, IncidentDesign
from schemas.scenario import FaultInstance, Provenance, RedHerring, Scenario, tier_for

COMPOSER_VERSION = "llm-1"
VERIFICATION_PATH = (
    "Every pipeline stage passes on the verifier's own pipeline definition, and each fault's hidden behavioural "
    "check passes with values drawn at grade time."
)


def design_problems(design: IncidentDesign, ctx: DesignContext) -> list[str]:
    """Everything wrong with `design` for this request, app and catalog; empty when it is a valid incident."""
    problems: list[str] = []
    ids = [f.fault_id for f in design.faults]
    offered = set(ctx.offered)
    problems += [f"fault {i!r} is not in the catalog offered; use one of its ids" for i in ids if i not in offered]
    missing = [p for p in ctx.request.pinned if p not in ids]
    if missing:
        problems.append(f"the incident must include the requested fault(s) {missing}")
    if ctx.request.count is not None and len(ids) != ctx.request.count:
        problems.append(f"the incident must have exactly {ctx.request.count} fault(s), root cause included")
    if problems:
        return problems
    try:
        scenario = to_scenario(design, ctx, _PROVISIONAL)
    except ValidationError as err:
        return [f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in err.errors()]
    try:
        planned = plan(scenario, app_view(ctx.app))
    except ScenarioError as err:
        return err.problems
    values = [v for pf in planned.faults for v in pf.params.model_dump(mode="json").values()]
    terms = forbidden_terms(ids, sorted(planned.touched()), values)
    for name, text in (("alert", design.alert), ("narrative", design.narrative)):
        problems += [f"the {name} names {t!r}: describe symptoms only, never the cause" for t in leaks(text, terms)]
    return problems


def to_scenario(design: IncidentDesign, ctx: DesignContext, provenance: Provenance) -> Scenario:
    registry = all_faults()
    faults = [
        FaultInstance(fault_id=f.fault_id, params=f.params, order=i, stage=registry[f.fault_id].stage)
        for i, f in enumerate(design.faults, 1)
    ]
    herring = design.red_herring
    tier = tier_for(ctx.request.difficulty)
    body: dict[str, Any] = {
        "seed": ctx.request.seed,
        "app": ctx.app,
        "difficulty": ctx.request.difficulty,
        "tier": tier,
        "root_cause": faults[0],
        "cascades": faults[1:],
        "red_herring": RedHerring(kind=herring.kind, params=herring.params, mimics=faults[0].fault_id)
        if herring
        else None,
        "narrative": design.narrative,
        "alert": design.alert,
        "triage_steps": list(design.triage_steps),
        "hypothesis_keywords": list(design.hypothesis_keywords),
        "fix_sequence": [f"{f.order}. [{f.stage}] {registry[f.fault_id].summary}" for f in faults],
        "verification_path": VERIFICATION_PATH,
    }
    content = json.dumps(body, sort_keys=True, default=lambda o: o.model_dump(mode="json"))
    digest = hashlib.sha256(content.encode()).hexdigest()[:12]
    return Scenario(id=f"{ctx.app}-{tier}-llm-{digest}", provenance=provenance, **body)


def llm_provenance(app: str, llm: dict[str, Any]) -> Provenance:
    return Provenance(
        composer="llm",
        composer_version=COMPOSER_VERSION,
        catalog_version=catalog_version(),
        app_hash=app_hash(app),
        llm=llm,
    )


_PROVISIONAL = Provenance(composer="llm", composer_version=COMPOSER_VERSION, catalog_version="-", app_hash="-")
