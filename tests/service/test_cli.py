"""The CLI, run as users run it: a subprocess, JSON on stdout, one-line errors with non-zero exits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest


def faultsmith(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "service", *args], capture_output=True, text=True, timeout=300)


def test_apps_list_json() -> None:
    done = faultsmith("apps", "list", "--json")
    assert done.returncode == 0, done.stderr
    apps = json.loads(done.stdout)
    assert {a["name"] for a in apps} >= {"webshop", "ledger"}


def test_faults_list_json() -> None:
    done = faultsmith("faults", "list", "--json")
    assert done.returncode == 0, done.stderr
    faults = json.loads(done.stdout)
    assert len(faults) >= 8
    assert len({f["category"] for f in faults}) >= 4
    for f in faults:
        assert f["apps"], f"{f['id']} applies to no app"
        assert f["params_schema"]["type"] == "object"
        assert set(f["backends"]) <= {"local", "docker"}
    by_id = {f["id"]: f for f in faults}
    assert "readonly database" in by_id["core.wrong_container_user"]["docker"]["signature"]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["pipeline", "run", "--app", "nope"], "unknown app 'nope'; available apps: ledger, webshop"),
        (
            ["inject", "--app", "webshop", "--fault", "core.nope", "--seed", "1", "--out", "X"],
            "unknown fault 'core.nope'",
        ),
        (["pipeline", "run", "--workspace", "."], "is not an app workspace"),
    ],
)
def test_bad_input_is_one_clear_line(args: list[str], expected: str, tmp_path: Path) -> None:
    args = [str(tmp_path / "out") if a == "X" else a for a in args]
    args = [str(tmp_path) if a == "." else a for a in args]
    done = faultsmith(*args)
    assert done.returncode == 2
    assert expected in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert done.stdout == ""


def test_inject_writes_a_broken_workspace(tmp_path: Path) -> None:
    out = tmp_path / "broken"
    done = faultsmith(
        "inject",
        "--app",
        "webshop",
        "--fault",
        "database.migration_syntax",
        "--seed",
        "3",
        "--out",
        str(out),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["diff"].startswith("--- a/") and (out / "faultsmith.toml").is_file()
    assert not list(tmp_path.glob(".*partial"))
