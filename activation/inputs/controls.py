"""`calibrate`'s default controls for a skill of the user's own: its real SKILL.md with a
description broken on purpose, one axis each, written for the skill measured (the bundled
controls are the bundled suite's, written for auth0).

The narrow control fires on almost no positive case (the skill only when named), so a suite
that cannot show its positives REGRESSED against it is blind on recall; the broad control
claims any request in any field, so a suite whose negatives do not REGRESS against it is
blind on false positives. Neither borrows the skill's topic words: a control must not lean
on the vocabulary the cases share with the real description.
"""

from __future__ import annotations

from dataclasses import replace

from activation._models import Variant
from activation.inputs.frontmatter import with_description

NARROW = (
    'Use only when the user explicitly asks for the {name} skill by name, for example "use '
    'the {name} skill". Do not use it for any other request, including work on what it '
    "covers that does not name this skill."
)
BROAD = (
    "Use for any request at all, in any field: writing, reviewing, debugging, testing or "
    "refactoring code in any language or framework; documents, content, data, research, "
    "analysis, planning, design, operations, and every other question or task a user brings."
)


def derived_control(real: Variant, name: str, control: str) -> Variant:
    """The `control` ("narrow" or "broad") for the skill `name`: its real SKILL.md and set
    with the control's description."""
    description = (NARROW if control == "narrow" else BROAD).format(name=name)
    spec = f"the {control} control for {name}"
    return replace(
        real,
        spec=spec,
        description=description,
        text=with_description(real.text, description, real.source),
        source=spec,
    )
