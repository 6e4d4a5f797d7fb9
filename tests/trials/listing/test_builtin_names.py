"""A user's skill named like one of the agent's built-in skills, on every agent.

Each agent does its own thing, read in its source (or measured, for Copilot CLI's native
runtime): Claude Code, OpenCode, Gemini CLI and Copilot CLI list (and load) the user's skill
in the built-in's stead; Codex lists both, told apart by their SKILL.md paths. Before, Codex
gave both entries one id and every Codex run, dry runs included, stopped with exit 4.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from activation.trials.agents import known
from tests.commands.test_visibility import write_skill
from tests.support.skill_repo import SkillRepo, SkillRepos, case, write_cases

MINE = "Mine, not the built-in. Use when the user asks for the house checklist."

BUILTIN_NAMED: dict[str, tuple[str, str, int]] = {
    "claude-code": (
        "code-review",
        "replaces Claude Code's built-in code-review (the first skill of one id is listed "
        "and loaded)",
        1,
    ),
    "codex": (
        "skill-creator",
        "listed beside Codex's built-in skill-creator of the same name (Codex keeps both and "
        "tells them apart by their file's path; a Stage A answer of that name counts for this "
        "skill)",
        2,
    ),
    "copilot": (
        "github-pr-media",
        "replaces Copilot CLI's built-in github-pr-media (only the project's skill is listed "
        "and loaded)",
        1,
    ),
    "gemini": (
        "skill-creator",
        "replaces Gemini CLI's built-in skill-creator, in its place (a skill found later "
        "replaces one of the same name: SkillManager.addSkillsWithPrecedence)",
        1,
    ),
    "opencode": (
        "customize-opencode",
        "replaces OpenCode's built-in customize-opencode (one skill per name: the later one is "
        "listed and loaded)",
        1,
    ),
}
"""Agent -> (a built-in's name, what `visibility` says of a user's skill of that name, how
many entries of that name the agent lists)."""


def test_every_agent_has_a_row() -> None:
    assert sorted(BUILTIN_NAMED) == sorted(known())


@pytest.fixture
def repo(skill_repo: SkillRepos, monkeypatch: pytest.MonkeyPatch) -> SkillRepo:
    made = skill_repo(
        "Use when the user asks for alpha reports.",
        plugin_dir=".agents", plugin_name=None, skill_name="alpha",
    )  # fmt: skip
    for name, _said, _count in BUILTIN_NAMED.values():
        if not (made.root / ".agents" / "skills" / name).exists():
            write_skill(made.root / ".agents" / "skills" / name, name, MINE)
    made.commit("skills named like the agents' built-ins")
    monkeypatch.chdir(made.root)
    return made


def shown_names(agent: str, text: str, name: str) -> int:
    """How many entries of `name` the listing text holds, in the agent's own format."""
    if agent == "codex":
        return text.count(f"\n- {name}: ")
    if agent == "claude-code":
        return text.count(f"\n- {name}: ")
    return text.count(f"<name>{name}</name>")


@pytest.mark.parametrize("agent", sorted(BUILTIN_NAMED))
def test_visibility_says_what_the_agent_does_with_the_built_in(
    agent: str, repo: SkillRepo, tmp_path: Path
) -> None:
    name, said, count = BUILTIN_NAMED[agent]
    out = tmp_path / "visibility.json"
    code = main(["visibility", "--skill-path", f".agents/skills/{name}/SKILL.md",
                 "--agent", agent, "--json", str(out), "--no-listing"])  # fmt: skip
    assert code == 0
    (view,) = orjson.loads(out.read_bytes())["agents"]
    (listing,) = view["listings"]
    seen: dict[str, Any] = {item["id"]: item for item in listing["skills"]}
    assert seen[name]["state"] == "full"
    assert seen[name]["rule"] == said
    assert seen["alpha"]["rule"] == ""
    text = listing["text"]
    assert shown_names(agent, text, name) == count
    assert MINE in text


def test_codex_runs_a_skill_named_like_its_built_in(
    repo: SkillRepo, capsys: pytest.CaptureFixture[str]
) -> None:
    cases = write_cases(repo.root / "cases.json", [case("new", "write a new skill", True)])
    code = main(["--agent", "codex", "--model", "mock", "--dry-run", "--cases", str(cases),
                 "--skill-path", ".agents/skills/skill-creator/SKILL.md"])  # fmt: skip
    assert code == 0, capsys.readouterr().err
