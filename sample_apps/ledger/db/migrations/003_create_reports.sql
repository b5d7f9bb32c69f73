-- Per-segment figures of each run, rounded as the policy says, in the reporting currency.
CREATE TABLE reports (
    run_id INTEGER NOT NULL REFERENCES report_runs (id),
    segment TEXT NOT NULL,
    sales TEXT NOT NULL,
    refunds TEXT NOT NULL,
    net TEXT NOT NULL,
    refund_rate TEXT,
    growth TEXT,
    transactions INTEGER NOT NULL,
    PRIMARY KEY (run_id, segment)
);
