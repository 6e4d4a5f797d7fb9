"""Durations as people type them (`14d`, `12h`, `30m`, `45s`), for `--cache-ttl` and
`cache clear --older-than`."""

from __future__ import annotations

import re

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_DURATION = re.compile(r"(\d+(?:\.\d+)?)([smhdw])")


def parse_duration(text: str) -> float:
    """Seconds in a duration like `7d` or `1d12h`; ValueError for anything else."""
    compact = text.strip().lower().replace(" ", "")
    parts = _DURATION.findall(compact)
    if not compact or "".join(number + unit for number, unit in parts) != compact:
        raise ValueError(f"not a duration: {text!r} (use e.g. 14d, 12h, 30m)")
    return sum(float(number) * UNITS[unit] for number, unit in parts)
