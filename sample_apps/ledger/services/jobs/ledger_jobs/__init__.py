"""Batch ledger pipeline: ingest transactions, aggregate them under a policy, store a signed report."""
