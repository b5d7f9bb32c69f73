"""Pure aggregation functions; every rule they apply comes from the policy."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from decimal import ROUND_HALF_EVEN, Decimal

from ledger_jobs.policy import Policy, Window
from ledger_jobs.models import Transaction


def canonical_currency(raw: str, aliases: Mapping[str, str]) -> str:
    """Canonical code for an input spelling: surrounding spaces and case are ignored,
    aliases are looked up first, anything else is returned upper-cased as is."""
    key = raw.strip().upper()
    folded = {alias.strip().upper(): code for alias, code in aliases.items()}
    return folded.get(key, key)


def in_window(day: date, window: Window) -> bool:
    """Both the start and the end day belong to the window."""
    return window.start <= day <= window.end


def to_reporting(amount: Decimal, currency: str, fx_rates: Mapping[str, Decimal]) -> Decimal:
    """Amount in the reporting currency, unrounded."""
    return amount * fx_rates[currency]


def round_half_even(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_EVEN)


def pooled_rate(numerators: Sequence[Decimal], denominators: Sequence[Decimal]) -> Decimal | None:
    """sum(numerators) / sum(denominators); None when the pooled denominator is 0."""
    total = sum(denominators, Decimal(0))
    if total == 0:
        return None
    return sum(numerators, Decimal(0)) / total


def mean_rate(numerators: Sequence[Decimal], denominators: Sequence[Decimal]) -> Decimal | None:
    """Unweighted mean of the per-segment rates, skipping segments with a 0 denominator."""
    rates = [n / d for n, d in zip(numerators, denominators, strict=True) if d != 0]
    if not rates:
        return None
    return sum(rates, Decimal(0)) / len(rates)


def combined_rate(
    numerators: Sequence[Decimal], denominators: Sequence[Decimal], method: str
) -> Decimal | None:
    if method == "pooled":
        return pooled_rate(numerators, denominators)
    if method == "mean":
        return mean_rate(numerators, denominators)
    raise ValueError(f"unknown rate_method {method!r}")


def growth_score(current: Decimal, previous: Decimal, base: Decimal) -> Decimal | None:
    """log(current / previous) in the given base; None unless both are positive."""
    if current <= 0 or previous <= 0:
        return None
    return (current / previous).ln() / base.ln()


@dataclass(frozen=True)
class SegmentTotals:
    sales: Decimal = Decimal(0)
    refunds: Decimal = Decimal(0)
    transactions: int = 0

    @property
    def net(self) -> Decimal:
        return self.sales - self.refunds


def counted(txn: Transaction, policy: Policy) -> bool:
    """Whether a valid transaction enters the totals: refunds only if include_refunds,
    and only rows whose converted amount is at least min_amount."""
    if txn.kind == "refund" and not policy.include_refunds:
        return False
    return to_reporting(txn.amount, txn.currency, policy.fx_rates) >= policy.min_amount


def segment_totals(txns: Iterable[Transaction], policy: Policy) -> dict[str, SegmentTotals]:
    """Unrounded sales, refunds and row count per segment, in the reporting currency."""
    totals: dict[str, SegmentTotals] = {}
    for txn in txns:
        if not counted(txn, policy):
            continue
        amount = to_reporting(txn.amount, txn.currency, policy.fx_rates)
        seg = totals.get(txn.segment, SegmentTotals())
        if txn.kind == "refund":
            seg = SegmentTotals(seg.sales, seg.refunds + amount, seg.transactions + 1)
        else:
            seg = SegmentTotals(seg.sales + amount, seg.refunds, seg.transactions + 1)
        totals[txn.segment] = seg
    return dict(sorted(totals.items()))


def _text(value: Decimal | None, places: int) -> str | None:
    return None if value is None else str(round_half_even(value, places))


def summarise(txns: Iterable[Transaction], policy: Policy, rejected: int = 0) -> dict:
    """The report: rounded per-segment figures and overall totals (decimals as strings)."""
    per_segment = segment_totals(txns, policy)
    segments = {}
    for name, seg in per_segment.items():
        baseline = policy.baseline_net.get(name)
        segments[name] = {
            "sales": _text(seg.sales, policy.rounding),
            "refunds": _text(seg.refunds, policy.rounding),
            "net": _text(seg.net, policy.rounding),
            "refund_rate": _text(pooled_rate([seg.refunds], [seg.sales]), policy.rate_rounding),
            "growth": _text(
                None if baseline is None else growth_score(seg.net, baseline, policy.growth_log_base),
                policy.rate_rounding,
            ),
            "transactions": seg.transactions,
        }
    sales = sum((s.sales for s in per_segment.values()), Decimal(0))
    refunds = sum((s.refunds for s in per_segment.values()), Decimal(0))
    baseline_total = sum(policy.baseline_net.values(), Decimal(0))
    rate = combined_rate(
        [s.refunds for s in per_segment.values()],
        [s.sales for s in per_segment.values()],
        policy.rate_method,
    )
    totals = {
        "currency": policy.reporting_currency,
        "sales": _text(sales, policy.rounding),
        "refunds": _text(refunds, policy.rounding),
        "net": _text(sales - refunds, policy.rounding),
        "refund_rate": _text(rate, policy.rate_rounding),
        "growth": _text(growth_score(sales - refunds, baseline_total, policy.growth_log_base),
                        policy.rate_rounding),
        "transactions": sum(s.transactions for s in per_segment.values()),
        "rejected": rejected,
    }
    return {"totals": totals, "segments": segments}
