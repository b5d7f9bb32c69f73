from datetime import date
from decimal import Decimal

import pytest
from ledger_jobs.validate import validate_batch

GOOD = {"txn_id": "T1", "booked_on": "2024-03-31", "customer_id": "C-1", "segment": " Retail ",
        "currency": "EUR€", "amount": "12.50", "kind": "Sale"}


def test_good_row_is_canonicalised(base_policy):
    result = validate_batch([GOOD], base_policy)
    assert result.ok
    (txn,) = result.accepted
    assert (txn.segment, txn.currency, txn.amount, txn.kind) == ("retail", "EUR", Decimal("12.50"), "sale")
    assert txn.booked_on == date(2024, 3, 31)


@pytest.mark.parametrize(
    ("field", "value", "reason"),
    [
        ("amount", "-0.01", "negative amount"),
        ("amount", "12,50", "bad amount"),
        ("amount", "NaN", "bad amount"),
        ("currency", "CHF", "unknown currency"),
        ("currency", "US", "unknown currency"),
        ("booked_on", "2024-04-01", "outside reporting window"),
        ("booked_on", "2024-02-29", "outside reporting window"),
        ("booked_on", "31/03/2024", "bad date"),
        ("kind", "chargeback", "unknown kind"),
        ("customer_id", "  ", "missing customer_id"),
    ],
)
def test_bad_rows_are_rejected(base_policy, field, value, reason):
    result = validate_batch([GOOD, {**GOOD, "txn_id": "T2", field: value}], base_policy)
    assert [t.txn_id for t in result.accepted] == ["T1"]
    (rejection,) = result.rejected
    assert rejection.line == 3 and rejection.txn_id == "T2"
    assert reason in rejection.reason


def test_zero_amount_is_valid(base_policy):
    assert validate_batch([{**GOOD, "amount": "0"}], base_policy).ok


def test_duplicate_txn_id_keeps_the_first(base_policy):
    result = validate_batch([GOOD, {**GOOD, "amount": "99"}], base_policy)
    assert [t.amount for t in result.accepted] == [Decimal("12.50")]
    assert [r.reason for r in result.rejected] == ["duplicate txn_id"]
