"""Siblings the agents parse otherwise than a strict YAML parser: Stage A's menu for a set
holding them is byte for byte the listing of the pinned Claude Code CLI's first request,
when Stage B's backend runs the CLI on the same inputs (its copies hold each such SKILL.md
as it is), and OpenCode's listing is the pinned OpenCode CLI's (after its second try)."""

from __future__ import annotations

from pathlib import Path

from activation._models import Inputs, Skill
from activation.inputs.load import load_inputs
from activation.trials.agents.opencode.listing import render
from activation.trials.listing.menu import listed_skill
from tests.support.opencode_cli import first_system
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


def test_opencode_lists_them_after_its_own_second_try_as_the_cli_does(
    opencode_cli: Path, tmp_path: Path
) -> None:
    scratch = tmp_path.resolve()
    project = scratch / "proj"
    found = []
    for folder, text in {"deploy": DEPLOY, **SKILLS}.items():
        path = project / ".agents/skills" / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(text)
        found.append(listed_skill(Skill(folder, None, source="project", path=str(path), text=text)))
    system = first_system(opencode_cli, scratch, project)
    shown = render(found, lambda skill: str(project / ".agents/skills" / skill.folder / "SKILL.md"))
    assert system[0]["text"].endswith("</env>\n" + shown.text)
    assert list(shown.ids) == ["auditor", "customize-opencode", "deploy", "lenient"]
