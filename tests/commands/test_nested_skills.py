"""A SKILL.md inside another skill's folder (a sub-document, as carta's
`carta-issuance/issuance-config/SKILL.md`): Claude Code, Gemini CLI and Copilot CLI stop at a
skill's folder, so every command reads it as a file of the skill around it, and says so;
Codex and OpenCode list it as a skill of its own, and so do their listings here (a sibling,
never a measured skill)."""

from __future__ import annotations

from pathlib import Path, PurePath

import git
import pytest

from activation.commands.main import main
from activation.inputs.changes import skills_in
from activation.inputs.load import find_skill_files, nested_skill_files
from activation.inputs.target import nested_in_skill

SKILLS = "plugins/cap/skills"
NESTED = f"{SKILLS}/issuance/issuance-config/SKILL.md"
NOTICE = (
    f"warning: 1 SKILL.md inside another skill's folder: {NESTED} (Claude Code, Gemini CLI "
    "and GitHub Copilot CLI read them as that skill's files; Codex and OpenCode list each as "
    "a skill of its own, and so do this tool's listings for them)"
)


def skill(name: str, description: str, body: str = "") -> str:
    return f"---\nname: {name}\ndescription: {description}\n---\n# {name}\n{body}"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    files = {
        "plugins/cap/.claude-plugin/plugin.json": '{"name": "cap"}',
        f"{SKILLS}/issuance/SKILL.md": skill(
            "issuance",
            "Use when issuing shares to a stakeholder.",
            "\nFor the settings, read [issuance-config/SKILL.md](issuance-config/SKILL.md).\n",
        ),
        NESTED: skill("issuance-config", "Use when configuring an issuance."),
        f"{SKILLS}/grants/SKILL.md": skill("grants", "Use when granting options."),
        "cases.json": '{"skill": "cap:issuance", "cases": ['
        '{"id": "issue", "prompt": "Issue 100 shares to Ana", "should_activate": true, '
        '"why": "names an issuance"}, '
        '{"id": "weather", "prompt": "What is the weather?", "should_activate": false, '
        '"why": "off topic"}]}',
    }
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    repository = git.Repo.init(root)
    repository.index.add(list(files))
    repository.index.commit("skills")
    monkeypatch.chdir(root)
    return root


def test_the_pure_rule_maps_each_nested_file_to_the_outermost_skill() -> None:
    found = [
        PurePath("SKILL.md"),
        PurePath("skills/a/SKILL.md"),
        PurePath("skills/a/b/SKILL.md"),
        PurePath("skills/a/b/c/SKILL.md"),
        PurePath("skills/ab/SKILL.md"),
    ]
    assert nested_in_skill(found) == {
        PurePath("skills/a/b/SKILL.md"): PurePath("skills/a/SKILL.md"),
        PurePath("skills/a/b/c/SKILL.md"): PurePath("skills/a/SKILL.md"),
    }


def test_discovery_on_disk_and_in_git_finds_two_skills(repo: Path) -> None:
    assert find_skill_files(repo) == [
        PurePath(f"{SKILLS}/grants/SKILL.md"),
        PurePath(f"{SKILLS}/issuance/SKILL.md"),
    ]
    assert nested_skill_files(repo) == {PurePath(NESTED): PurePath(f"{SKILLS}/issuance/SKILL.md")}
    paths = (*map(str, find_skill_files(repo)), NESTED)
    tree = {path: (repo / path).read_bytes() for path in paths}
    assert sorted(skills_in(tree)) == [f"{SKILLS}/grants/SKILL.md", f"{SKILLS}/issuance/SKILL.md"]


def test_lint_checks_it_as_a_file_of_its_skill_and_says_so(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"warning  -      {NESTED}: inside the folder of skill issuance "
        f"({SKILLS}/issuance/SKILL.md), so checked as its file, not as a skill: Claude Code, "
        "Gemini CLI and GitHub Copilot CLI do not list it; Codex and OpenCode list it as a "
        "skill of its own",
        "warning  issue  cases.json: positive without a twin: name a negative that shares its "
        "vocabulary",
        f"lint: checked 2 skills in {SKILLS}/ (frontmatter, the files each refers to, what 5 "
        "agents list) and 1 case file (cases.json): 0 errors, 2 warnings",
    ]


def test_visibility_and_the_run_leave_it_out_in_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["visibility", "--agent", "claude-code", "--no-listing"]) == 0
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [NOTICE]
    assert "issuance-config" not in captured.out
    assert "  cap:issuance: listed whole" in captured.out
    assert main(["--model", "mock", "--cases", "cases.json", "--max-trials", "3"]) == 0
    assert NOTICE in capsys.readouterr().err.splitlines()


def test_editing_it_changes_the_skill_around_it(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with (repo / NESTED).open("a") as file:
        file.write("\nSet the vesting start too.\n")
    assert main(["changed", "--base", "git:HEAD", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert f"cap:issuance ({SKILLS}/issuance/SKILL.md): modified, body or references" in out
    assert "issuance-config" not in out


def nested_siblings(repo: Path, spec: str) -> list[tuple[str, str | None, str]]:
    from activation.inputs.load import resolve_target, resolve_variant

    target = resolve_target(None, f"{SKILLS}/grants/SKILL.md", repo)
    variant = resolve_variant(spec, target, repo)
    return [(s.name, s.description, s.nested) for s in variant.siblings]


def test_both_readers_carry_it_as_a_nested_sibling(repo: Path) -> None:
    expected = [
        ("cap:issuance", "Use when issuing shares to a stakeholder.", ""),
        (
            "cap:issuance-issuance-config",
            "Use when configuring an issuance.",
            "issuance/issuance-config",
        ),
    ]
    assert nested_siblings(repo, "git:HEAD") == expected
    assert nested_siblings(repo, f"{SKILLS}/grants/SKILL.md") == expected
    (repo / NESTED).write_text(skill("issuance-config", "Use when setting up an issuance."))
    assert nested_siblings(repo, f"{SKILLS}/grants/SKILL.md")[1][1] == (
        "Use when setting up an issuance."
    )
    assert nested_siblings(repo, "git:HEAD") == expected


def test_codex_and_opencode_list_it_as_a_sibling_the_others_do_not(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["visibility", "--agent", "codex,opencode,gemini,copilot"]) == 0
    out = capsys.readouterr().out
    assert out.count("  cap:issuance-issuance-config: listed whole") == 2
    assert (
        "- issuance-config: Use when configuring an issuance. "
        "(file: r1/issuance/issuance-config/SKILL.md)" in out
    )
    assert (
        f"<location>{repo / '.agents/skills/issuance/issuance-config/SKILL.md'}</location>" in out
    )
    gemini, copilot = out.split("== Gemini CLI")[1].split("== GitHub Copilot CLI")
    assert "issuance-config" not in gemini
    assert "issuance-config" not in copilot


def test_skill_path_to_it_is_refused_in_one_line(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["visibility", "--skill-path", NESTED]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"activation visibility: error: --skill-path {NESTED}: inside the folder of skill "
        f"issuance, so a file of that skill, never a measured skill (pass --skill-path "
        f"{SKILLS}/issuance/SKILL.md; Codex and OpenCode list it beside it, as this tool does)"
    ]
