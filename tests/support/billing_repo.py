"""The billing example (examples/billing) as its author keeps it: three overlapping skills,
refunds' cases and disputes' (the same routing cases, named for disputes), committed on
`main`; and the edit that makes refunds take disputes' prompts."""

from __future__ import annotations

import shutil
from pathlib import Path

import orjson

from tests.support.skill_repo import commit_all

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "billing"
EDIT = "edits/refunds-takes-disputes.md"
REFUNDS = "plugins/billing/skills/refunds/SKILL.md"
STOLEN = ("chargeback-evidence", "bank-dispute", "bank-chargeback")
"""The disputes cases the widened refunds description takes (the mock model sees it)."""


def billing_repo(root: Path) -> Path:
    shutil.copytree(EXAMPLE, root)
    cases = orjson.loads((root / "cases.json").read_bytes())
    (root / "disputes.cases.json").write_bytes(orjson.dumps({**cases, "skill": "billing:disputes"}))
    commit_all(root, "billing plugin").close()
    return root
