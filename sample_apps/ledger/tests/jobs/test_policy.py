from datetime import date
from decimal import Decimal

import pytest
from ledger_jobs.policy import deep_merge, env_overrides, load_policy


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_base_policy(base_policy):
    assert base_policy.reporting_currency == "USD"
    assert base_policy.window.start == date(2024, 3, 1)
    assert base_policy.window.end == date(2024, 3, 31)
    assert base_policy.rate_method == "pooled"
    assert base_policy.min_amount == Decimal("5")
    assert base_policy.include_refunds is True
    assert base_policy.growth_log_base == Decimal("10")
    assert base_policy.fx_rates["EUR"] == Decimal("1.08")
    assert base_policy.rounding == 2


def test_production_override_zero_min_amount_is_honoured(app_root):
    policy = load_policy(app_root / "config" / "policy.yaml", "production", environ={})
    assert policy.min_amount == Decimal("0")
    assert policy.include_refunds is True


def test_staging_override_false_and_nested_window(app_root):
    policy = load_policy(app_root / "config" / "policy.yaml", "staging", environ={})
    assert policy.include_refunds is False
    assert policy.min_amount == Decimal("0")
    assert policy.window.start == date(2024, 3, 1)  # kept from the base
    assert policy.window.end == date(2024, 3, 15)


def test_deep_merge_keeps_explicit_falsy_values():
    base = {"min_amount": 5, "include_refunds": True, "label": "x", "w": {"start": 1, "end": 2}, "k": 7}
    merged = deep_merge(base, {"min_amount": 0, "include_refunds": False, "label": "", "w": {"end": 0},
                               "k": None})
    assert merged == {"min_amount": 0, "include_refunds": False, "label": "", "w": {"start": 1, "end": 0},
                      "k": 7}
    assert base["min_amount"] == 5  # inputs are not mutated


def test_env_overrides_are_yaml_typed_and_nested():
    environ = {
        "LEDGER_POLICY__MIN_AMOUNT": "0",
        "LEDGER_POLICY__INCLUDE_REFUNDS": "false",
        "LEDGER_POLICY__REPORTING_WINDOW__END": "2024-03-20",
        "UNRELATED": "1",
    }
    assert env_overrides(environ) == {
        "min_amount": 0,
        "include_refunds": False,
        "reporting_window": {"end": date(2024, 3, 20)},
    }


def test_layers_apply_in_order(tmp_path):
    policy_path = write(tmp_path / "policy.yaml", (
        "reporting_currency: USD\nfx_rates: {USD: 1}\nreporting_window: {start: 2024-01-01, end: 2024-01-31}\n"
        "rate_method: pooled\nmin_amount: 5\ninclude_refunds: true\ngrowth_log_base: 10\n"
        "rounding: 2\nrate_rounding: 4\n"
    ))
    write(tmp_path / "overrides" / "qa.yaml", "min_amount: 1\ninclude_refunds: false\nrate_method: mean\n")
    policy = load_policy(policy_path, "qa", environ={"LEDGER_POLICY__MIN_AMOUNT": "0"})
    assert policy.min_amount == Decimal("0")  # env beats the override file
    assert policy.include_refunds is False  # override file beats the base
    assert policy.rate_method == "mean"
    assert load_policy(policy_path, "", environ={}).min_amount == Decimal("5")


def test_missing_override_file_is_an_error(app_root):
    with pytest.raises(FileNotFoundError):
        load_policy(app_root / "config" / "policy.yaml", "nowhere", environ={})


@pytest.mark.parametrize(
    "environ",
    [
        {"LEDGER_POLICY__RATE_METHOD": "median"},
        {"LEDGER_POLICY__REPORTING_WINDOW__END": "2024-02-01"},
        {"LEDGER_POLICY__GROWTH_LOG_BASE": "1"},
        {"LEDGER_POLICY__MIN_AMOUNT": "-1"},
        {"LEDGER_POLICY__INCLUDE_REFUNDS": "maybe"},
    ],
)
def test_invalid_policies_are_refused(app_root, environ):
    with pytest.raises(ValueError):
        load_policy(app_root / "config" / "policy.yaml", "", environ=environ)
