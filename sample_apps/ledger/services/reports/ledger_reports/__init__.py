"""Read-only HTTP view of the latest signed ledger report."""
