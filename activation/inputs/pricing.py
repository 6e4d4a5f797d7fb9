"""The price table: one TOML data file shipped with the package, read into `Pricing`.

Pure: `parse_pricing` takes the file's text (inputs/load reads it), so a damaged table is
one clear error and tests can give any table.
"""

from __future__ import annotations

import tomllib

from activation._errors import InputError
from activation._models import Prices, Pricing

FIELDS = ("input", "output", "cache_write", "cache_read")


def parse_pricing(text: str, source: str) -> Pricing:
    """The table's date and per-model prices (US dollars per million tokens)."""
    try:
        data = tomllib.loads(text)
        models = data["models"]
        table = {
            model: Prices(*(float(prices[name]) for name in FIELDS))
            for model, prices in sorted(models.items())
        }
        return Pricing(str(data["date"]), table)
    except (tomllib.TOMLDecodeError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise InputError(f"{source}: a damaged price table ({error})") from None


def with_override(pricing: Pricing, price_in: float | None, price_out: float | None) -> Pricing:
    """`--price-in`/`--price-out` for a model the table does not know (or a changed price).

    Both are needed: half a price would make a cost look known and be wrong. Cache writes
    and reads are priced as the provider prices them, 1.25x and 0.1x the input price.
    """
    if price_in is None and price_out is None:
        return pricing
    if price_in is None or price_out is None:
        raise InputError("--price-in and --price-out go together: give both")
    override = Prices(price_in, price_out, price_in * 1.25, price_in / 10)
    return Pricing(pricing.date, pricing.models, override)


def unknown_price(model: str) -> str:
    return f"no price for {model}: pass --price-in and --price-out (US dollars per million tokens)"
