"""Turn raw CSV rows into typed transactions, rejecting what the policy does not accept."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from decimal import Decimal, InvalidOperation

from ledger_jobs.aggregate import canonical_currency, in_window
from ledger_jobs.models import Transaction
from ledger_jobs.policy import Policy

KINDS = ("sale", "refund")
REQUIRED = ("txn_id", "booked_on", "customer_id", "segment", "currency", "amount", "kind")
FIRST_DATA_LINE = 2  # line 1 is the CSV header


@dataclass(frozen=True)
class Rejection:
    line: int
    txn_id: str
    reason: str


@dataclass(frozen=True)
class ValidationResult:
    accepted: tuple[Transaction, ...]
    rejected: tuple[Rejection, ...]

    @property
    def ok(self) -> bool:
        return not self.rejected


class RowError(ValueError):
    pass


def parse_row(row: Mapping[str, str], policy: Policy) -> Transaction:
    values = {key: (row.get(key) or "").strip() for key in REQUIRED}
    empty = [key for key, value in values.items() if not value]
    if empty:
        raise RowError(f"missing {', '.join(empty)}")
    try:
        booked_on = date.fromisoformat(values["booked_on"])
    except ValueError:
        raise RowError(f"bad date {values['booked_on']!r}") from None
    if not in_window(booked_on, policy.window):
        raise RowError(f"date {booked_on} outside reporting window")
    currency = canonical_currency(values["currency"], policy.currency_aliases)
    if currency not in policy.fx_rates:
        raise RowError(f"unknown currency {values['currency']!r}")
    try:
        amount = Decimal(values["amount"])
    except InvalidOperation:
        raise RowError(f"bad amount {values['amount']!r}") from None
    if not amount.is_finite():
        raise RowError(f"bad amount {values['amount']!r}")
    if amount < 0:
        raise RowError(f"negative amount {amount}")
    kind = values["kind"].lower()
    if kind not in KINDS:
        raise RowError(f"unknown kind {values['kind']!r}")
    return Transaction(
        txn_id=values["txn_id"],
        booked_on=booked_on,
        customer_id=values["customer_id"],
        segment=values["segment"].lower(),
        currency=currency,
        amount=amount,
        kind=kind,
    )


def validate_batch(rows: Iterable[Mapping[str, str]], policy: Policy) -> ValidationResult:
    """Accept each well-formed, in-policy row once (the first occurrence of a txn_id wins)."""
    accepted: list[Transaction] = []
    rejected: list[Rejection] = []
    seen: set[str] = set()
    for line, row in enumerate(rows, start=FIRST_DATA_LINE):
        txn_id = (row.get("txn_id") or "").strip()
        try:
            txn = parse_row(row, policy)
        except RowError as exc:
            rejected.append(Rejection(line, txn_id, str(exc)))
            continue
        if txn.txn_id in seen:
            rejected.append(Rejection(line, txn_id, "duplicate txn_id"))
            continue
        seen.add(txn.txn_id)
        accepted.append(txn)
    return ValidationResult(tuple(accepted), tuple(rejected))
