"""Known-bad repairs of the observability faults pass what an agent sees but fail the hidden check."""

from __future__ import annotations

import random

import pytest

from fault_library.apps import all_apps, app_dir
from fault_library.registry import all_faults
from fault_library.workspace import Workspace
from validation.caches import Caches
from validation.pipeline import run_pipeline
from validation.probe import LocalProbe

CASES = [
    ("observability.silenced_log_level", "force_level_in_code", "webshop", 0),
    ("observability.silenced_log_level", "force_level_in_code", "ledger", 2),
    ("observability.pii_leak", "hardcode_test_emails", "webshop", 0),
    ("observability.pii_leak", "hardcode_test_emails", "webshop", 3),
]


@pytest.mark.parametrize(("fault_id", "name", "app", "seed"), CASES)
def test_workaround_passes_pipeline_but_fails_check(fault_id, name, app, seed, clean_copy, caches: Caches, tmp_path):
    fault, manifest = all_faults()[fault_id], all_apps()[app]
    params = fault.sample_params(Workspace(app_dir(app), manifest), random.Random(seed))
    ws = Workspace(clean_copy(app), manifest)
    fault.inject(ws, params)
    (repair,) = [r for r in fault.workarounds(ws, params) if r.name == name]
    ws.apply(repair.edits)
    assert run_pipeline(ws.root, caches).passed, f"{name} no longer fools the visible pipeline"
    outcome = fault.check(ws, params, random.Random(seed + 1000), LocalProbe.build(ws, caches, tmp_path))
    assert outcome is not None and not outcome.passed, outcome


@pytest.mark.parametrize("app", ["webshop", "ledger"])
@pytest.mark.parametrize("name", ["detach_handler", "defer_file_open"])
def test_log_path_workarounds_still_fail_tests(app, name, clean_copy, caches: Caches):
    fault, manifest = all_faults()["observability.unwritable_log_path"], all_apps()[app]
    params = fault.sample_params(Workspace(app_dir(app), manifest), random.Random(5))
    ws = Workspace(clean_copy(app), manifest)
    fault.inject(ws, params)
    (repair,) = [r for r in fault.workarounds(ws, params) if r.name == name]
    ws.apply(repair.edits)
    result = run_pipeline(ws.root, caches)
    assert result.failed_stage is not None and result.failed_stage.name == "test"
