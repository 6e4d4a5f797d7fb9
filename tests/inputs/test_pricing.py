"""The price table, the price override, costs against hand-computed figures, durations."""

from __future__ import annotations

import pytest

from activation._errors import InputError
from activation._models import Prices, Pricing, Usage
from activation.inputs.durations import parse_duration
from activation.inputs.load import load_pricing
from activation.inputs.pricing import parse_pricing, with_override


def test_the_bundled_table_prices_the_default_model() -> None:
    pricing = load_pricing()
    assert pricing.date == "2026-11-30"
    assert pricing.for_model("claude-sonnet-5-5") == Prices(2.0, 10.0, 2.5, 0.2)
    assert pricing.for_model("claude-opus-5-5") == Prices(4.0, 20.0, 5.0, 0.2)
    assert pricing.for_model("openai:gpt-5.5") == Prices(5.0, 30.0, 5.0, 0.5)
    assert pricing.for_model("openai:gpt-5.3-codex") == Prices(1.75, 14.0, 1.75, 0.175)
    assert pricing.for_model("gpt-5.5") is None  # OpenAI's ids carry their provider's prefix
    assert pricing.for_model("claude-nonesuch") is None
    assert pricing.for_model(None) is None


def test_costs_are_tokens_times_prices() -> None:
    usage = Usage(1, input_tokens=1200, output_tokens=80, cache_write_tokens=1000,
                  cache_read_tokens=20000)  # fmt: skip
    sonnet = Prices(2.0, 10.0, 2.5, 0.2)
    # 1200 x 2 + 80 x 10 + 1000 x 2.5 + 20000 x 0.2 = 2400 + 800 + 2500 + 4000 = 9700 per 1e6
    assert sonnet.cost(usage) == pytest.approx(0.0097)
    assert sonnet.cost(usage, 0.5) == pytest.approx(0.00485)


def test_an_unknown_cost_stays_unknown_in_a_sum() -> None:
    known = Usage(1, 10, 1, 0.5)
    assert (known + known).cost_usd == 1.0
    assert (known + Usage(1, 10, 1, None)).cost_usd is None
    assert (Usage(1, 10, 1, None) + known).requests == 2


def test_the_override_wins_and_needs_both_prices() -> None:
    pricing = with_override(load_pricing(), 3.0, 15.0)
    assert pricing.for_model("anything") == Prices(3.0, 15.0, 3.75, 0.3)
    assert pricing.for_model("claude-sonnet-5-5") == Prices(3.0, 15.0, 3.75, 0.3)
    assert with_override(load_pricing(), None, None).override is None
    with pytest.raises(InputError, match="--price-in and --price-out go together"):
        with_override(load_pricing(), 3.0, None)


def test_a_damaged_table_is_an_input_error() -> None:
    table = 'date = "d"\n[models.m]\ninput = 1\noutput = 2\ncache_write = 3\ncache_read = 4\n'
    assert parse_pricing(table, "t") == Pricing("d", {"m": Prices(1, 2, 3, 4)})
    with pytest.raises(InputError, match=r"^t: a damaged price table"):
        parse_pricing('date = "d"\n[models.m]\ninput = 1\n', "t")
    with pytest.raises(InputError, match=r"^t: a damaged price table"):
        parse_pricing("date = ", "t")


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("14d", 14 * 86400), ("12h", 43200), ("30m", 1800), ("45s", 45), ("1d12h", 129600),
     ("2w", 1209600), ("1.5h", 5400), (" 7D ", 7 * 86400)],
)  # fmt: skip
def test_durations(text: str, seconds: float) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "7", "d", "7 days", "-1d", "7x", "1d-2h"])
def test_bad_durations(text: str) -> None:
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration(text)
