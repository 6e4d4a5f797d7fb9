"""The sibling control: which sibling's territory it claims, and the SKILL.md it makes."""

from __future__ import annotations

from pathlib import Path

from activation._models import Case, Inputs, Skill, Target, Variant
from activation.inputs.frontmatter import split_document
from activation.inputs.sibling_control import homed_sibling, sibling_control

TEXT = "---\nname: refunds\ndescription: >\n  Issue refunds.\nmetadata:\n  x: 1\n---\n# Body\n"
SIBLINGS = (
    Skill("billing:disputes", "Answer chargebacks."),
    Skill("billing:invoices", "Send invoices."),
    Skill("billing:hidden", "Never listed.", listed=False),
)
REAL = Variant("git:HEAD", "Issue refunds.", TEXT, "SKILL.md at HEAD", siblings=SIBLINGS)


def inputs(*expects: tuple[str, ...] | None) -> Inputs:
    cases = tuple(
        Case(f"c{i}", f"prompt {i}", False, "w", expect=expect) for i, expect in enumerate(expects)
    )
    target = Target(Path("/r"), Path("SKILL.md"), Path("/r"), "billing", "refunds")
    return Inputs(target, cases, (), REAL, REAL)


def test_the_sibling_most_cases_expect_is_claimed() -> None:
    found = homed_sibling(
        inputs(("billing:invoices",), ("billing:disputes",), ("billing:invoices",)), REAL
    )
    assert found is SIBLINGS[1]
    tie = homed_sibling(inputs(("billing:invoices",), ("billing:disputes",)), REAL)
    assert tie is SIBLINGS[0]  # a tie goes to the first in the set's order
    assert homed_sibling(inputs(None, ("billing:refunds",), ()), REAL) is None
    assert homed_sibling(inputs(("billing:hidden",)), REAL) is None  # not listed: no control


def test_the_control_appends_the_siblings_description_and_keeps_the_rest() -> None:
    made = sibling_control(inputs(("billing:disputes",)), REAL)
    assert made is not None
    sibling, control = made
    assert sibling is SIBLINGS[0]
    claimed = "Issue refunds. Also use it for what billing:disputes covers: Answer chargebacks."
    assert control.description == claimed
    assert control.spec == "the sibling control (claims billing:disputes)"
    assert control.siblings == SIBLINGS
    document = split_document(control.text, "control")
    assert document.description == claimed
    assert document.frontmatter == {"name": "refunds", "description": claimed, "metadata": {"x": 1}}
    assert document.body == "# Body\n"
