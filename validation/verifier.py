"""The hidden verifier: grades an agent's workspace against a task bundle's build-time record.

1. copy the workspace aside (the agent's files are never changed);
2. gate on an attempted repair: a workspace identical to the broken state scores 0;
3. restore protected files (tests, pipeline and linter definitions) from copies whose digests were
   recorded at build time, and drop new files that change how tests run (conftest.py, sitecustomize, .pth);
4. run the verifier's own pipeline definition;
5. run each fault's hidden behavioural check with values drawn from a grade-time seed.
Reward 1 only if every check passes. Timeouts are subprocess timeouts; no signals.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import tempfile
from pathlib import Path

from fault_library.registry import get_fault
from fault_library.workspace import Workspace, load_manifest
from schemas.errors import InputError
from schemas.report import CheckEntry, TaskManifest, VerifierResult
from schemas.scenario import Scenario
from validation.backends import runner
from validation.caches import Caches
from validation.memo import StageMemo
from validation.probe import LocalProbe

IGNORED_PARTS = {"__pycache__", ".pytest_cache", ".venv", ".mypy_cache", ".ruff_cache", ".git"}
HOOK_NAMES = {"conftest.py", "sitecustomize.py", "usercustomize.py"}


class VerifierData:
    """What the verifier reads from a bundle's tests/ folder (accepts the bundle root too)."""

    def __init__(self, task: Path) -> None:
        tests = task / "tests" if (task / "tests" / "task_manifest.json").is_file() else task
        if not (tests / "task_manifest.json").is_file():
            raise InputError(f"{task} is not a task bundle: no tests/task_manifest.json")
        self.tests = tests
        self.manifest = TaskManifest.model_validate_json((tests / "task_manifest.json").read_text("utf-8"))
        self.scenario = Scenario.model_validate_json((tests / "scenario.json").read_text("utf-8"))


def verify(
    task: Path,
    workspace: Path,
    caches: Caches,
    grade_seed: int | None = None,
    memo: StageMemo | None = None,
    backend: str = "local",
) -> VerifierResult:
    data = VerifierData(task)
    seed = grade_seed if grade_seed is not None else random.SystemRandom().randrange(2**31)
    if not workspace.is_dir():
        raise InputError(f"workspace {workspace} is not a directory")
    checks: list[CheckEntry] = []
    with tempfile.TemporaryDirectory(prefix="faultsmith-verify-", dir=caches.tmp) as tmp:
        scratch = Path(tmp) / "ws"
        shutil.copytree(workspace, scratch, ignore=shutil.ignore_patterns(*IGNORED_PARTS), symlinks=True)
        attempted = _attempted_repair(scratch, data.manifest)
        checks.append(attempted)
        if not attempted.passed:
            return VerifierResult(reward=0.0, checks=checks, grade_seed=seed)
        checks.append(_restore_protected(scratch, data))
        manifest = load_manifest(scratch)
        result = runner(backend)(scratch, caches, manifest=manifest, memo=memo)
        failed = result.failed_stage
        checks.append(
            CheckEntry(
                name="pipeline",
                passed=result.passed,
                evidence="every stage passed"
                if failed is None
                else f"{failed.name} failed: "
                + " | ".join(failed.error_lines[:5] or failed.log_excerpt.splitlines()[-5:]),
            )
        )
        if result.passed:
            checks += _hidden_checks(Workspace(scratch, manifest), data.scenario, seed, caches, Path(tmp))
    reward = 1.0 if all(c.passed for c in checks) else 0.0
    return VerifierResult(reward=reward, checks=checks, grade_seed=seed)


def _digests(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and not IGNORED_PARTS.intersection(p.relative_to(root).parts)
    }


def _attempted_repair(ws: Path, manifest: TaskManifest) -> CheckEntry:
    now = {k: v for k, v in _digests(ws).items() if k not in manifest.protected}
    changed = sorted(k for k in now.keys() | manifest.repairable.keys() if now.get(k) != manifest.repairable.get(k))
    if not changed:
        return CheckEntry(
            name="attempted_repair", passed=False, evidence="no repairable file differs from the broken state"
        )
    return CheckEntry(name="attempted_repair", passed=True, evidence=f"{len(changed)} file(s) changed")


def _restore_protected(ws: Path, data: VerifierData) -> CheckEntry:
    restored = 0
    for rel, digest in sorted(data.manifest.protected.items()):
        source = data.tests / "protected" / rel
        if hashlib.sha256(source.read_bytes()).hexdigest() != digest:
            raise InputError(f"the verifier's copy of {rel} does not match its build-time digest")
        target = ws / rel
        if not target.is_file() or target.read_bytes() != source.read_bytes():
            restored += 1
        target.parent.mkdir(parents=True, exist_ok=True)
        target.unlink(missing_ok=True)
        shutil.copyfile(source, target)
    known = data.manifest.protected.keys() | data.manifest.repairable.keys()
    dropped = [rel for rel in _digests(ws) if rel not in known and _is_hook(rel)]
    for rel in dropped:
        (ws / rel).unlink()
    evidence = f"restored {restored} of {len(data.manifest.protected)} protected files"
    return CheckEntry(
        name="protected_files", passed=True, evidence=evidence + (f"; dropped {dropped}" if dropped else "")
    )


def _is_hook(rel: str) -> bool:
    name = rel.rsplit("/", 1)[-1]
    return name in HOOK_NAMES or name.endswith(".pth")


def _hidden_checks(ws: Workspace, scenario: Scenario, seed: int, caches: Caches, tmp: Path) -> list[CheckEntry]:
    entries = []
    probe: LocalProbe | None = None
    for inst in scenario.faults:
        fault = get_fault(inst.fault_id)
        params = fault.Params.model_validate(inst.params)
        probe = probe or LocalProbe.build(ws, caches, tmp)
        outcome = fault.check(ws, params, random.Random(f"{seed}:{inst.order}"), probe)
        if outcome is not None:
            entries.append(
                CheckEntry(name=f"hidden_check_{inst.order}", passed=outcome.passed, evidence=outcome.evidence)
            )
    return entries


def dumps(result: VerifierResult) -> str:
    return json.dumps(result.model_dump(mode="json"), indent=2, sort_keys=True)
