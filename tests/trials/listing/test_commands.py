"""Claude Code's described commands: read beside a set's skills (plugin `commands/*.md`, a
project's `.claude/commands/*.md`), at a git ref too, listed where and as the pinned CLI
lists them (test_fidelity.py proves the lines against the CLI), and by no other agent."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from activation._models import Skill
from activation.commands.main import main
from activation.inputs.load import resolve_target, resolve_variant
from activation.trials.agent.plugin_copy import make_set_copy, set_folders
from activation.trials.agents.claude_code.listing import render
from activation.trials.listing.menu import listed_skill, lists
from activation.trials.listing.model import ListedSkill

PR = "---\ndescription: Open a pull request for this branch.\n---\nDo it.\n"


def write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text, encoding="utf-8")


def plugin_repo(root: Path) -> None:
    write(
        root,
        {
            "plugins/kit/.claude-plugin/plugin.json": '{"name": "kit"}',
            "plugins/kit/skills/research/SKILL.md": (
                "---\nname: research\ndescription: Research a topic.\n---\nBody.\n"
            ),
            "plugins/kit/commands/ghpr.md": PR,
            "plugins/kit/commands/plain.md": "No frontmatter.\n",
            "plugins/kit/commands/blank.md": "---\ndescription: '  '\n---\nDo.\n",
            "plugins/kit/commands/notes.txt": PR,
            "plugins/kit/commands/nested/deep.md": PR,
        },
    )


def project_repo(root: Path, skills: str) -> None:
    """A project skill `tdd` in `skills` beside a described `.claude/commands/deploy.md`."""
    write(
        root,
        {
            f"{skills}/tdd/SKILL.md": "---\nname: tdd\ndescription: Test first.\n---\nB.\n",
            ".claude/commands/deploy.md": "---\ndescription: Deploy the app.\n---\nDo.\n",
        },
    )


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_a_plugins_described_commands_are_members_of_its_set(tmp_path: Path) -> None:
    plugin_repo(tmp_path)
    target = resolve_target(tmp_path, "plugins/kit/skills/research", tmp_path)
    variant = resolve_variant("plugins/kit/skills/research/SKILL.md", target, tmp_path)
    assert [(s.name, s.description, s.source, s.path) for s in variant.siblings] == [
        (
            "kit:ghpr",
            "Open a pull request for this branch.",
            "plugin",
            "plugins/kit/commands/ghpr.md",
        )
    ]
    assert variant.siblings[0].text == PR
    assert set_folders(target, variant, tmp_path / "copy") == (
        ("kit:research", tmp_path / "copy" / "skills" / "research"),
    )


def test_a_projects_commands_join_its_claude_skills_set_at_a_git_ref_too(tmp_path: Path) -> None:
    project_repo(tmp_path, ".claude/skills")
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    (tmp_path / ".claude/commands/deploy.md").write_text("---\ndescription: Ship it.\n---\nDo.\n")
    target = resolve_target(tmp_path, ".claude/skills/tdd", tmp_path)
    working = resolve_variant(".claude/skills/tdd/SKILL.md", target, tmp_path)
    committed = resolve_variant("git:HEAD", target, tmp_path)
    assert [(s.name, s.description) for s in working.siblings] == [("deploy", "Ship it.")]
    assert [(s.name, s.description, s.path) for s in committed.siblings] == [
        ("deploy", "Deploy the app.", ".claude/commands/deploy.md")
    ]


def test_an_agents_skills_set_has_no_commands(tmp_path: Path) -> None:
    project_repo(tmp_path, ".agents/skills")
    target = resolve_target(tmp_path, ".agents/skills/tdd", tmp_path)
    assert resolve_variant(".agents/skills/tdd/SKILL.md", target, tmp_path).siblings == ()


def entry(id: str, source: str, *, command: bool = False, description: str = "D.") -> ListedSkill:
    return ListedSkill(id, id.rsplit(":", 1)[-1], source, description, command=command)  # type: ignore[arg-type]


def test_commands_are_listed_after_a_projects_skills_and_before_every_plugins_skills() -> None:
    skills = [
        entry("kit:aaa", "plugin"),
        entry("kit:mmm", "plugin", description="A skill."),
        entry("kit:zzz", "plugin", command=True),
        entry("kit:mmm", "plugin", command=True, description="A command."),
        entry("two:cmd", "plugin", command=True),
        entry("two:skill", "plugin"),
        entry("pclash", "project", command=True, description="A command."),
        entry("aa0", "project", command=True),
        entry("pclash", "project", description="A skill."),
        entry("user-skill", "user"),
    ]
    listing = render(skills, None, ["kit", "two"], builtins=())
    assert listing.ids == (
        "user-skill", "pclash", "aa0", "kit:mmm", "kit:zzz", "two:cmd", "kit:aaa", "two:skill"
    )  # fmt: skip
    assert listing.entry("kit:mmm").line == "- kit:mmm: A command."  # type: ignore[union-attr]
    assert listing.entry("pclash").line == "- pclash: A skill."  # type: ignore[union-attr]


def test_a_project_command_without_text_falls_back_to_custom_command() -> None:
    blank = ListedSkill("empty", "empty", "project", command=True)
    assert render([blank], None, builtins=()).entry("empty").line == "- empty: Custom command"  # type: ignore[union-attr]


def test_only_claude_code_lists_commands() -> None:
    skills = [entry("kit:aaa", "plugin"), entry("kit:ghpr", "plugin", command=True)]
    assert lists("claude-code", skills) == skills
    assert [s.id for s in lists("codex", skills)] == ["kit:aaa"]


def test_a_case_may_expect_a_command_and_the_mock_model_routes_to_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plugin_repo(tmp_path)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init")
    cases = tmp_path / "cases.json"
    prompt = {"id": "pr", "prompt": "open a pull request for this branch", "why": "a PR"}
    cases.write_text(
        json.dumps({"skill": "kit:research", "cases": [{**prompt, "expect": "kit:ghpr"}]})
    )
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "run.json"
    argv = ["--model", "mock", "--cases", str(cases), "--json", str(out)]
    assert main([*argv, "--skill-path", "plugins/kit/skills/research"]) == 0
    case = json.loads(out.read_text())["cases"][0]
    assert (case["expect"], case["status"]) == (["kit:ghpr"], "PASS")
    assert case["candidate"]["routes"] == {"kit:ghpr": 3}


def test_a_copy_of_a_project_set_with_commands_holds_its_skills(tmp_path: Path) -> None:
    project_repo(tmp_path, ".claude/skills")
    target = resolve_target(tmp_path, ".claude/skills/tdd", tmp_path)
    variant = resolve_variant(".claude/skills/tdd/SKILL.md", target, tmp_path)
    copy = make_set_copy(target, variant, tmp_path / "copy")
    assert sorted(p.relative_to(copy).as_posix() for p in copy.rglob("*") if p.is_file()) == [
        "tdd/SKILL.md"
    ]


def test_a_root_skill_is_listed_in_a_folder_of_its_name() -> None:
    """Its SKILL.md is the repo's own (`SKILL.md`): it is installed as `<name>/`, so the
    listings that show a path (Codex's `r1/<folder>/SKILL.md`) name that folder."""
    text = "---\nname: app-review\ndescription: Review an app.\n---\nSteps.\n"
    skill = Skill("app-review", "Review an app.", path="SKILL.md", text=text)
    assert listed_skill(skill).folder == "app-review"
    assert listed_skill(replace(skill, path="skills/review/SKILL.md")).folder == "review"
