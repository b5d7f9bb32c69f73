"""The main job end to end: compose, materialize, prove, emit — for each app and tier."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("app", ["webshop", "ledger"])
@pytest.mark.parametrize("difficulty", ["0.2", "0.5", "0.9"])
def test_generate_emits_a_proven_bundle(app: str, difficulty: str, tmp_path: Path) -> None:
    out = tmp_path / "out"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "service",
            "generate",
            "--seed",
            "0",
            "--app",
            app,
            "--difficulty",
            difficulty,
            "--out",
            str(out),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=1800,
    )
    doc = json.loads(done.stdout)
    failed = [c for c in doc["report"]["checks"] if not c["passed"]]
    assert done.returncode == 0 and not failed, failed
    bundle = Path(doc["bundle"])
    assert bundle.parent == out and (bundle / "tests" / "test.sh").is_file()
    assert (out / f"{bundle.name}.report.json").is_file()
    assert sorted(p.name for p in out.iterdir()) == sorted([bundle.name, f"{bundle.name}.report.json"])
    assert "fallback" in done.stderr  # says once, plainly, which composer ran
