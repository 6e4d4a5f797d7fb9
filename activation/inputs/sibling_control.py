"""`calibrate`'s sibling control: the real description, claiming a sibling skill's territory.

A suite that can gate routing must catch an edit that takes a sibling's prompts. The control
appends the description of the sibling with the most cases expecting it to the measured
skill's own, so its cases' prompts have a reason to go to the target instead.
"""

from __future__ import annotations

from dataclasses import replace

from activation._models import Inputs, Skill, Variant
from activation.inputs.frontmatter import with_description

CLAIM = "Also use it for what {sibling} covers: {territory}"
"""The sentence the control adds to the real description."""


def homed_sibling(inputs: Inputs, real: Variant) -> Skill | None:
    """The listed sibling the most cases expect (the first such in the set's order); None
    when no case expects a sibling."""
    counts = {
        sibling.name: sum(sibling.name in (case.expect or ()) for case in inputs.cases)
        for sibling in real.siblings
        if sibling.listed and sibling.description
    }
    best = max(counts.values(), default=0)
    if not best:
        return None
    return next(s for s in real.siblings if counts.get(s.name) == best)


def sibling_control(inputs: Inputs, real: Variant) -> tuple[Skill, Variant] | None:
    """The sibling whose territory the control claims, and the control itself."""
    sibling = homed_sibling(inputs, real)
    if sibling is None:
        return None
    claim = CLAIM.format(sibling=sibling.name, territory=(sibling.description or "").strip())
    description = f"{real.description.rstrip()} {claim}"
    control = replace(
        real,
        spec=f"the sibling control (claims {sibling.name})",
        description=description,
        text=with_description(real.text, description, real.source),
        source=f"{real.source} + {sibling.name}'s description",
    )
    return sibling, control
