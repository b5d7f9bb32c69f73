"""Stage results reused across pipeline runs whose inputs did not change (within one checklist).

A stage is a deterministic function of the files it reads and the manifest; its outcome is keyed by
exactly those. build and migrate are not memoized: they leave products (venvs, a database) that later
stages use, and both are cheap on a warm cache anyway.
"""

from __future__ import annotations

import hashlib
import threading
from pathlib import Path

from schemas.manifest import AppManifest
from validation.stages.base import StageOutcome

_SKIP = {"__pycache__", ".pytest_cache", ".venv"}
MEMOIZED = ("checkout", "lint", "test", "deploy", "iac")


class StageMemo:
    def __init__(self) -> None:
        self._outcomes: dict[str, StageOutcome] = {}
        self._lock = threading.Lock()
        self.hits = 0

    def key(self, stage: str, workspace: Path, manifest: AppManifest) -> str | None:
        if stage not in MEMOIZED:
            return None
        ignore_terraform = stage == "test"  # the test suites never read Terraform
        only_terraform = stage == "iac"
        tf = manifest.terraform.dir.rstrip("/") + "/"
        digest = hashlib.sha256(f"{stage}\0{manifest.model_dump_json()}\0".encode())
        for path in sorted(workspace.rglob("*")):
            rel = path.relative_to(workspace).as_posix()
            if not path.is_file() or _SKIP.intersection(path.relative_to(workspace).parts):
                continue
            in_tf = rel.startswith(tf)
            if (ignore_terraform and in_tf) or (only_terraform and not in_tf):
                continue
            digest.update(rel.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
        return digest.hexdigest()

    def get(self, key: str | None) -> StageOutcome | None:
        if key is None:
            return None
        with self._lock:
            found = self._outcomes.get(key)
            self.hits += found is not None
            return found

    def put(self, key: str | None, outcome: StageOutcome) -> None:
        if key is not None:
            with self._lock:
                self._outcomes[key] = outcome
