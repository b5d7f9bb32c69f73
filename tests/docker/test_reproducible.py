"""A broken task image built twice from scratch holds the same files (paths, modes, owners, bytes)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from fault_library.apps import all_apps, app_dir
from fault_library.registry import all_faults
from fault_library.workspace import Workspace
from validation.caches import Caches
from validation.docker.reproducible import check_reproducible

pytestmark = pytest.mark.xdist_group("docker")


def test_broken_image_is_reproducible(clean_copy, caches: Caches, base_image: str, engine: Any) -> None:
    manifest = all_apps()["webshop"]
    fault = all_faults()["core.env_var_mapping"]
    broken = clean_copy("webshop", "broken")
    fault.inject(
        Workspace(broken, manifest), fault.sample_params(Workspace(app_dir("webshop"), manifest), random.Random(3))
    )
    found = check_reproducible(broken, caches, "webshop", {n: s.dockerfile for n, s in manifest.services.items()})
    assert [r.service for r in found] == sorted(manifest.services)
    for r in found:
        assert r.identical, f"{r.service}: {r.digests}"
        assert r.entries > 1000
