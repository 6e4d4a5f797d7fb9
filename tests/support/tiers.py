"""The two test tiers: the full suite, which CI runs, and the fast tier while you work
(`pytest -m "not slow"`, tests/conftest.py). They differ in which tests run (the `slow`
marker) and in how many examples a Hypothesis property tries: every example its test asks
for in the full suite, the `fast` profile's few in the fast tier."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hypothesis import settings

FAST_TIER = "not slow"
"""The `-m` expression of the fast tier, as the README gives it."""
FAST = "fast"
"""The Hypothesis profile the fast tier loads."""
FAST_EXAMPLES = 25
"""Examples per property in the fast tier: enough to catch a property that fails often, and
the full suite still tries each property's whole count before a merge."""


def load_fast_profile() -> None:
    """Hypothesis is imported here, not by every run that loads tests/conftest.py."""
    from hypothesis import settings

    settings.register_profile(FAST, max_examples=FAST_EXAMPLES)
    settings.load_profile(FAST)


def examples(full: int) -> settings:
    """A property's settings: `full` examples, or the fast profile's count when the fast tier
    loaded it; no deadline (a first example pays for imports)."""
    from hypothesis import settings

    if settings.get_current_profile_name() == FAST:
        return settings(deadline=None)
    return settings(max_examples=full, deadline=None)
