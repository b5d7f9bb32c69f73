"""One batch run: policy -> ingest -> validate -> aggregate -> report."""

from __future__ import annotations

import logging
from contextlib import closing

from ledger_jobs.aggregate import summarise
from ledger_jobs.ingest import read_transactions
from ledger_jobs.policy import load_policy
from ledger_jobs.report import build_summary, connect, write_report
from ledger_jobs.settings import Settings
from ledger_jobs.validate import validate_batch

log = logging.getLogger("ledger_jobs.batch")


def run(settings: Settings) -> tuple[int, dict]:
    policy = load_policy(settings.policy_path, settings.policy_env)
    log.info(
        "policy loaded",
        extra={"phase": "policy", "policy_env": settings.policy_env or "base",
               "window_start": policy.window.start, "window_end": policy.window.end,
               "rate_method": policy.rate_method, "min_amount": policy.min_amount,
               "include_refunds": policy.include_refunds},
    )
    rows = read_transactions(settings.input_path)
    log.info("ingest done", extra={"phase": "ingest", "rows": len(rows), "input": str(settings.input_path)})

    result = validate_batch(rows, policy)
    for rejection in result.rejected:
        log.warning(
            "row rejected",
            extra={"phase": "validate", "line": rejection.line, "txn_id": rejection.txn_id,
                   "reason": rejection.reason},
        )
    log.info("validate done", extra={"phase": "validate", "accepted": len(result.accepted),
                                     "rejected": len(result.rejected)})

    report = summarise(result.accepted, policy, rejected=len(result.rejected))
    log.info("aggregate done", extra={"phase": "aggregate", "segments": len(report["segments"]),
                                      "transactions": report["totals"]["transactions"]})

    summary = build_summary(report, policy, settings.policy_env, accepted=len(result.accepted))
    with closing(connect(settings.database)) as conn:
        run_id = write_report(conn, summary, result.accepted, settings.secret)
    log.info("report stored", extra={"phase": "report", "run_id": run_id, "net": summary["totals"]["net"],
                                     "segments": len(summary["segments"])})
    return run_id, summary
