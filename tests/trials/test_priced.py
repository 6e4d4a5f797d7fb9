"""A trial's tokens priced for the dry run and the ceiling, with and without a cached
listing."""

from __future__ import annotations

import pytest

from activation._models import Prices, Pricing, RunSpec
from activation.trials.simulate import simulated_inputs, typical
from activation.trials.stage import priced

PRICES = Prices(input=2.0, output=10.0, cache_write=2.5, cache_read=0.2)
SPEC = RunSpec(trials=3, max_trials=10, pricing=Pricing("2026-11-30", override=PRICES))
GIVEN = "the prices given (--price-in and --price-out)"
INPUTS = simulated_inputs(typical(4))  # 4 cases: 24 first-round trials, 80 at worst


def test_without_a_cached_prefix_every_trial_costs_the_same() -> None:
    estimate = priced(SPEC, INPUTS, "counted", 1_000, 100, 1.0)
    per_trial = (1_000 * 2.0 + 100 * 10.0) / 1_000_000
    assert estimate.per_trial == pytest.approx(per_trial)
    assert estimate.first_round == pytest.approx(24 * per_trial)
    assert estimate.worst_case == pytest.approx(80 * per_trial)
    assert estimate.basis == GIVEN  # the override prices, not the table's


def test_a_cached_prefix_is_written_once_per_prefix_and_read_by_every_trial() -> None:
    estimate = priced(SPEC, INPUTS, "counted", 1_000, 100, 1.0, cached=800, prefixes=3)
    read = (200 * 2.0 + 800 * 0.2 + 100 * 10.0) / 1_000_000
    written = 3 * 800 * (2.5 - 0.2) / 1_000_000
    assert estimate.per_trial == pytest.approx((200 * 2.0 + 800 * 2.5 + 100 * 10.0) / 1e6)
    assert estimate.first_round == pytest.approx(24 * read + written)
    assert estimate.worst_case == pytest.approx(80 * read + written)
    assert estimate.basis == f"{GIVEN}; the listing cached, 3 prefix(es) written once"


def test_the_batch_discount_halves_every_figure() -> None:
    full = priced(SPEC, INPUTS, "counted", 1_000, 100, 1.0, cached=800, prefixes=3)
    half = priced(SPEC, INPUTS, "counted", 1_000, 100, 0.5, cached=800, prefixes=3)
    assert full.first_round is not None and full.per_trial is not None
    assert half.first_round == pytest.approx(full.first_round / 2)
    assert half.per_trial == pytest.approx(full.per_trial / 2)
    assert half.basis.startswith(f"{GIVEN}, at the batch discount (half)")
