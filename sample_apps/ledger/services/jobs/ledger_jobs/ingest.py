"""Read raw transaction rows from CSV."""

from __future__ import annotations

import csv
from pathlib import Path

COLUMNS = ("txn_id", "booked_on", "customer_id", "segment", "currency", "amount", "kind")


def read_transactions(path: Path) -> list[dict[str, str]]:
    """Every data row as a dict of the expected columns (missing cells become "")."""
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise ValueError(f"{path}: missing columns {missing}")
        return [{c: (row.get(c) or "") for c in COLUMNS} for row in reader]
