"""Variety of each fault: distinct mutation diffs over 20 seeds, per app it applies to.

Goal (issue 3): at least 10 of 20 distinct for most faults; those below are listed at the end.
Usage: python bench/variety.py [--seeds N]
"""

from __future__ import annotations

import argparse
import random
import tempfile
import time
from pathlib import Path

from fault_library.apps import all_apps, app_dir, copy_app
from fault_library.registry import all_faults
from fault_library.workspace import Workspace


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    below: list[str] = []
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="faultsmith-variety-") as tmp:
        for app, manifest in all_apps().items():
            clean = Workspace(app_dir(app), manifest)
            for fault in all_faults().values():
                if not fault.applicable(manifest):
                    continue
                diffs, files = set(), set()
                for seed in range(args.seeds):
                    ws = Workspace(copy_app(app, Path(tmp) / f"{app}-{fault.id}-{seed}"), manifest)
                    mutation = fault.inject(ws, fault.sample_params(clean, random.Random(seed)))
                    diffs.add(mutation.diff)
                    files.update(mutation.touched_paths())
                line = f"{fault.id:42} {app:8} {len(diffs):3}/{args.seeds} distinct diffs, {len(files)} files"
                print(line)
                if len(diffs) * 2 < args.seeds:
                    below.append(line)
    print(f"\n{len(below)} fault/app pairs below {args.seeds // 2} distinct ({time.perf_counter() - t0:.1f}s):")
    print("\n".join(below) or "  none")


if __name__ == "__main__":
    main()
