from dataclasses import replace
from datetime import date
from decimal import Decimal

import pytest
from ledger_jobs.aggregate import (
    canonical_currency,
    combined_rate,
    growth_score,
    in_window,
    mean_rate,
    pooled_rate,
    round_half_even,
    segment_totals,
    summarise,
)
from ledger_jobs.models import Transaction
from ledger_jobs.policy import Window

D = Decimal


def txn(amount, kind="sale", segment="online", currency="USD", txn_id="T1"):
    return Transaction(txn_id, date(2024, 3, 10), "C-1", segment, currency, D(amount), kind)


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("US$", "USD"), ("us$", "USD"), (" $ ", "USD"), ("EUR€", "EUR"), ("€", "EUR"), ("£", "GBP"),
     ("gbp", "GBP"), (" usd", "USD"), ("CHF", "CHF")],
)
def test_canonical_currency(base_policy, raw, expected):
    assert canonical_currency(raw, base_policy.currency_aliases) == expected


def test_window_end_day_is_inclusive():
    window = Window(date(2024, 3, 1), date(2024, 3, 31))
    assert in_window(date(2024, 3, 31), window)
    assert in_window(date(2024, 3, 1), window)
    assert not in_window(date(2024, 4, 1), window)
    assert not in_window(date(2024, 2, 29), window)


def test_pooled_rate_is_not_the_mean_of_rates():
    refunds, sales = [D(10), D(90)], [D(100), D(300)]
    assert pooled_rate(refunds, sales) == D("0.25")
    assert mean_rate(refunds, sales) == D("0.2")
    assert combined_rate(refunds, sales, "pooled") == D("0.25")
    assert combined_rate(refunds, sales, "mean") == D("0.2")


def test_rates_with_zero_denominators():
    assert pooled_rate([D(0)], [D(0)]) is None
    assert mean_rate([D(1), D(5)], [D(0), D(10)]) == D("0.5")
    with pytest.raises(ValueError):
        combined_rate([D(1)], [D(2)], "median")


def test_growth_score_uses_the_policy_log_base():
    assert round_half_even(growth_score(D(1000), D(10), D(10)), 6) == D(2)
    assert round_half_even(growth_score(D(8), D(1), D(2)), 6) == D(3)
    assert round_half_even(growth_score(D(50), D(100), D(10)), 4) == D("-0.3010")
    assert growth_score(D(0), D(100), D(10)) is None
    assert growth_score(D(100), D(0), D(10)) is None


def test_rounding_is_half_even():
    assert round_half_even(D("2.345"), 2) == D("2.34")
    assert round_half_even(D("2.355"), 2) == D("2.36")
    assert round_half_even(D("8828.965"), 2) == D("8828.96")
    assert round_half_even(D("0.12345"), 4) == D("0.1234")


def test_min_amount_is_inclusive_and_applies_to_converted_amounts(base_policy):
    rows = [txn("5.00", txn_id="a"), txn("4.99", txn_id="b"), txn("4.63", currency="EUR", txn_id="c"),
            txn("4.62", currency="EUR", txn_id="d")]
    totals = segment_totals(rows, base_policy)["online"]
    # 4.63 EUR = 5.0004 USD is kept, 4.62 EUR = 4.9896 USD is not
    assert totals.sales == D("5.00") + D("4.63") * D("1.08")
    assert totals.transactions == 2
    zero = segment_totals(rows, replace(base_policy, min_amount=D(0)))["online"]
    assert zero.transactions == 4


def test_refunds_can_be_excluded(base_policy):
    rows = [txn("100"), txn("30", kind="refund", txn_id="r")]
    with_refunds = segment_totals(rows, base_policy)["online"]
    assert (with_refunds.sales, with_refunds.refunds, with_refunds.net) == (D(100), D(30), D(70))
    without = segment_totals(rows, replace(base_policy, include_refunds=False))["online"]
    assert (without.sales, without.refunds, without.net, without.transactions) == (D(100), D(0), D(100), 1)


def test_amounts_are_summed_unrounded(base_policy):
    rows = [txn("10.05", currency="EUR", txn_id=str(i)) for i in range(3)]  # 10.854 each
    report = summarise(rows, base_policy)
    assert report["totals"]["sales"] == "32.56"  # round(32.562), not 3 * 10.85


def test_summary_rate_follows_rate_method(base_policy):
    rows = [txn("100", segment="a", txn_id="1"), txn("10", "refund", segment="a", txn_id="2"),
            txn("300", segment="b", txn_id="3"), txn("90", "refund", segment="b", txn_id="4")]
    assert summarise(rows, base_policy)["totals"]["refund_rate"] == "0.2500"
    assert summarise(rows, replace(base_policy, rate_method="mean"))["totals"]["refund_rate"] == "0.2000"
    assert summarise(rows, base_policy)["segments"]["b"]["refund_rate"] == "0.3000"
