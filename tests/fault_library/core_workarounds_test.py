"""Known-bad repairs of the core faults: silencing hadolint does not repair a reordered Dockerfile."""

from __future__ import annotations

import random

import pytest

from fault_library.apps import all_apps, app_dir
from fault_library.registry import all_faults
from fault_library.workspace import Workspace
from validation.caches import Caches
from validation.pipeline import run_pipeline
from validation.probe import LocalProbe


def _seed_for(fault, app: str, kind: str) -> int:
    manifest = all_apps()[app]
    return next(
        s for s in range(50) if fault.sample_params(Workspace(app_dir(app), manifest), random.Random(s)).kind == kind
    )


@pytest.mark.parametrize("app", ["webshop", "ledger"])
@pytest.mark.parametrize("kind", ["workdir_late", "before_from"])
def test_ignoring_the_hadolint_rule_fails_the_check(app, kind, clean_copy, caches: Caches, tmp_path):
    fault, manifest = all_faults()["core.dockerfile_layer_order"], all_apps()[app]
    params = fault.sample_params(Workspace(app_dir(app), manifest), random.Random(_seed_for(fault, app, kind)))
    ws = Workspace(clean_copy(app), manifest)
    fault.inject(ws, params)
    (repair,) = fault.workarounds(ws, params)
    ws.apply(repair.edits)
    result = run_pipeline(ws.root, caches)
    lint = next(s for s in result.stages if s.name == "lint")
    assert not any(params.rule in line for line in lint.error_lines), lint.error_lines
    outcome = fault.check(ws, params, random.Random(0), LocalProbe.build(ws, caches, tmp_path))
    assert outcome is not None and not outcome.passed, outcome


def test_both_reorderings_are_drawn():
    fault = all_faults()["core.dockerfile_layer_order"]
    for app in ("webshop", "ledger"):
        manifest = all_apps()[app]
        kinds = {fault.sample_params(Workspace(app_dir(app), manifest), random.Random(s)).kind for s in range(20)}
        assert kinds == {"workdir_late", "before_from"}
