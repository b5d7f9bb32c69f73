"""Median full-pipeline time per app, cold (empty caches) and warm, with the time per stage.

Cold runs build the wheelhouse and venvs from nothing in a private cache folder; warm runs reuse them.
Usage: python bench/pipeline.py [--warm-runs N]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from fault_library.apps import all_apps, copy_app
from validation.caches import Caches
from validation.pipeline import run_pipeline


def timed_run(app: str, caches: Caches) -> tuple[float, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(tmp) / app
        copy_app(app, ws)
        t0 = time.perf_counter()
        result = run_pipeline(ws, caches)
        elapsed = time.perf_counter() - t0
    assert result.passed, f"{app}: clean pipeline failed at {result.failed_stage}"
    return elapsed, {s.name: s.duration_s for s in result.stages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--warm-runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="faultsmith-bench-") as tmp:
        caches = Caches(Path(tmp))
        for app in all_apps():
            cold, cold_stages = timed_run(app, caches)
            warm_runs = [timed_run(app, caches) for _ in range(args.warm_runs)]
            warm = statistics.median(t for t, _ in warm_runs)
            per_stage = {s: statistics.median(r[s] for _, r in warm_runs) for s in cold_stages}
            print(
                f"{app}: cold {cold:.2f}s  warm median {warm:.2f}s over {args.warm_runs} runs "
                f"(cold/warm {cold / warm:.1f}x)"
            )
            print("  cold stages: " + "  ".join(f"{s} {t:.2f}" for s, t in cold_stages.items()))
            print("  warm stages: " + "  ".join(f"{s} {t:.2f}" for s, t in per_stage.items()))


if __name__ == "__main__":
    main()
