CREATE INDEX idx_report_runs_created_at ON report_runs (created_at);
CREATE INDEX idx_transactions_booked_on ON transactions (booked_on);
CREATE INDEX idx_transactions_segment ON transactions (run_id, segment);
