"""A validated transaction."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from decimal import Decimal


@dataclass(frozen=True)
class Transaction:
    txn_id: str
    booked_on: date
    customer_id: str
    segment: str
    currency: str  # canonical code
    amount: Decimal  # >= 0, in `currency`
    kind: str  # "sale" | "refund"
