-- Accepted, canonicalised input rows of each run; amounts as decimal text in their own currency.
CREATE TABLE transactions (
    run_id INTEGER NOT NULL REFERENCES report_runs (id),
    txn_id TEXT NOT NULL,
    booked_on TEXT NOT NULL,
    customer_id TEXT NOT NULL,
    segment TEXT NOT NULL,
    currency TEXT NOT NULL,
    amount TEXT NOT NULL,
    kind TEXT NOT NULL CHECK (kind IN ('sale', 'refund')),
    PRIMARY KEY (run_id, txn_id)
);
