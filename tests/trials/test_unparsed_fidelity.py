"""Siblings Claude Code parses otherwise than a strict YAML parser: Stage A's menu for a set
holding them is byte for byte the listing of the pinned CLI's first request, when Stage B's
backend runs the CLI on the same inputs (its copies hold each such SKILL.md as it is)."""

from __future__ import annotations

from pathlib import Path

from activation._models import Inputs
from activation.inputs.load import load_inputs
from tests.trials.listing.test_unparsed import SKILLS
from tests.trials.test_listing_fidelity import CASES, check

DEPLOY = "---\nname: deploy\ndescription: Deploy the app to staging or production.\n---\n"


def inputs_of(tmp_path: Path, skills: str) -> Inputs:
    repo = tmp_path / "repo"
    for folder, text in {"deploy": DEPLOY, **SKILLS}.items():
        (repo / skills / folder).mkdir(parents=True)
        (repo / skills / folder / "SKILL.md").write_text(text)
    cases = tmp_path / "cases.json"
    cases.write_text(CASES)
    path = f"{skills}/deploy/SKILL.md"
    return load_inputs(repo, repo=repo, skill_path=path, cases=cases, baseline=path)


def test_project_skills_that_do_not_parse_are_listed_as_the_cli_lists_them(
    claude: Path, tmp_path: Path
) -> None:
    sent = check(claude, inputs_of(tmp_path, ".claude/skills"), tmp_path)
    for line in ("- auditor: Content Auditor", "- lenient: Audit content.",
                 "- lst: Heading of lst", "- nofm: Heading of nofm", "- num: 12345"):  # fmt: skip
        assert f"{line}\n" in sent


def test_a_plugins_skills_that_do_not_parse_are_left_out_as_the_cli_leaves_them(
    claude: Path, tmp_path: Path
) -> None:
    sent = check(claude, inputs_of(tmp_path, "plugins/kit/skills"), tmp_path)
    assert "- kit:lenient: Audit content.\n" in sent and "- kit:num: 12345\n" in sent
    for gone in ("kit:auditor", "kit:lst", "kit:nofm"):
        assert gone not in sent
