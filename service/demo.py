"""`make demo`: the main job on embedded defaults — a clean app's pipeline, then a broken one's."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

from rich.console import Console

from fault_library.apps import all_apps, app_dir, copy_app
from fault_library.registry import all_faults
from fault_library.workspace import Workspace
from service.cli import print_pipeline
from service.settings import Settings
from validation.pipeline import run_pipeline

DEMO_APP = "webshop"
DEMO_FAULTS = ("database.migration_syntax", "core.dependency_clash")
DEMO_SEED = 7


def main() -> None:
    console = Console(highlight=False)
    caches = Settings().caches()
    manifest = all_apps()[DEMO_APP]
    with tempfile.TemporaryDirectory(prefix="faultsmith-demo-") as tmp:
        clean = Path(tmp) / "clean"
        copy_app(DEMO_APP, clean)
        console.rule(f"clean {DEMO_APP}")
        print_pipeline(run_pipeline(clean, caches))
        for fault_id in DEMO_FAULTS:
            fault = all_faults()[fault_id]
            broken = Path(tmp) / fault_id
            copy_app(DEMO_APP, broken)
            params = fault.sample_params(Workspace(app_dir(DEMO_APP), manifest), random.Random(DEMO_SEED))
            mutation = fault.inject(Workspace(broken, manifest), params)
            console.rule(f"{DEMO_APP} with {fault_id} (seed {DEMO_SEED})")
            console.print(mutation.diff, markup=False)
            print_pipeline(run_pipeline(broken, caches))


if __name__ == "__main__":
    main()
