"""A sibling SKILL.md the agents parse differently (a frontmatter that is not valid YAML, a
description that is not text): what each agent lists of it, as each agent's own source
and the pinned CLIs say (Copilot CLI measured: it skips every such file)."""

from __future__ import annotations

from pathlib import Path

import git
import pytest

from activation.commands.main import main
from activation.inputs.frontmatter import listing_problem, read_listed
from activation.trials.agents.gemini.listing import simple_fields
from activation.trials.agents.opencode.listing import sanitized

GOOD = "---\nname: good\ndescription: Use for good things.\n---\n\n# Good\n"
SKILLS = {
    # Claude Code's retry quotes `a: b` and reads it; the strict parsers refuse it.
    "lenient": "---\nname: lenient\ndescription: Audit content.\ncompatibility: a: b\n---\n\n"
    "# Lenient Auditor\n",
    # Claude Code's retry quotes the `|` too and fails: it reads no field (seo's layout).
    "auditor": "---\nname: auditor\ndescription: |\n  Audit content.\ncompatibility: Needs "
    "Python. Optional: KEY\n---\n\n# Content Auditor\n\nBody.\n",
    "num": "---\nname: num\ndescription: 12345\n---\n\n# Heading of num\n",
    "lst": "---\nname: lst\ndescription:\n  - one\n  - two\n---\n\n# Heading of lst\n",
    "nofm": "# Heading of nofm\n\nBody.\n",
}


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for folder, text in {"good": GOOD, **SKILLS}.items():
        path = tmp_path / ".claude/skills" / folder / "SKILL.md"
        path.parent.mkdir(parents=True)
        path.write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_each_agent_lists_or_skips_each_such_sibling_as_its_parser_does(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["visibility", "--repo", str(repo), "--skill-path", ".claude/skills/good"]
    assert main([*argv, "--no-listing"]) == 0
    captured = capsys.readouterr()
    where = ".claude/skills"
    assert captured.err.splitlines() == [
        f"warning: {where}/auditor/SKILL.md:5: the frontmatter is not valid YAML (mapping "
        "values are not allowed here): Claude Code 2.1.332 lists it as 'Content Auditor' (its "
        "body's first line); OpenCode 1.18.33 lists it as 'Audit content.'; Codex 0.171.0 and "
        "GitHub Copilot CLI 1.0.102 skip it; Gemini CLI 0.61.0 lists it as '| Audit content.'",
        f"warning: {where}/lst/SKILL.md: the frontmatter's 'description' is not text (a YAML "
        "list): Claude Code 2.1.332 lists it as 'Heading of lst' (its body's first line); "
        "OpenCode 1.18.33, Codex 0.171.0 and GitHub Copilot CLI 1.0.102 skip it; Gemini CLI "
        "0.61.0 lists it as '- one - two'",
        f"warning: {where}/nofm/SKILL.md: no YAML frontmatter (the file must start with '---'): "
        "Claude Code 2.1.332 lists it as 'Heading of nofm' (its body's first line); OpenCode "
        "1.18.33, Codex 0.171.0, GitHub Copilot CLI 1.0.102 and Gemini CLI 0.61.0 skip it",
        f"warning: {where}/num/SKILL.md: the frontmatter's 'description' is not text (a YAML "
        "int): Claude Code 2.1.332, Codex 0.171.0 and Gemini CLI 0.61.0 list it as '12345'; "
        "OpenCode 1.18.33 and GitHub Copilot CLI 1.0.102 skip it",
    ]
    out = captured.out
    assert "  lenient: listed whole\n" in out.split("== OpenCode")[0]  # Claude Code
    codex = out.split("== Codex")[1].split("==")[0]
    assert "  lenient: not listed: its frontmatter is not valid YAML (Codex skips the file)\n" in (
        codex
    )
    assert "  nofm: not listed: no YAML frontmatter (Codex skips the file)\n" in codex
    copilot = out.split("== GitHub Copilot CLI")[1].split("==")[0]
    assert (
        "  num: not listed: a description that is not text (Copilot CLI skips the file)\n"
        in copilot
    )
    assert "  lenient: not listed: its frontmatter is not valid YAML (Copilot CLI skips" in copilot


def test_claude_codes_listing_names_them_as_the_cli_does(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["visibility", "--repo", str(repo), "--skill-path", ".claude/skills/good"]
    assert main([*argv, "--agent", "claude-code"]) == 0
    out = capsys.readouterr().out
    entries = [line.strip() for line in out.splitlines() if line.startswith("    - ")][:6]
    assert entries == [
        "- auditor: Content Auditor",
        "- good: Use for good things.",
        "- lenient: Audit content.",
        "- lst: Heading of lst",
        "- nofm: Heading of nofm",
        "- num: 12345",
    ]


def test_a_plugin_skill_that_does_not_parse_is_not_listed_by_claude_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    git.Repo.init(tmp_path)
    (tmp_path / ".claude-plugin").mkdir()
    (tmp_path / ".claude-plugin/plugin.json").write_text('{"name": "kit"}')
    for folder, text in {"good": GOOD, "auditor": SKILLS["auditor"]}.items():
        (tmp_path / "skills" / folder).mkdir(parents=True)
        (tmp_path / "skills" / folder / "SKILL.md").write_text(text)
    monkeypatch.chdir(tmp_path)
    argv = ["visibility", "--skill-path", "skills/good", "--agent", "claude-code", "--no-listing"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == (
        "warning: skills/auditor/SKILL.md:5: the frontmatter is not valid YAML (mapping values "
        "are not allowed here): Claude Code 2.1.332 skips it\n"
    )
    assert (
        "  kit:auditor: not listed: skills/auditor/SKILL.md:5: the frontmatter is not valid "
        "YAML (mapping values are not allowed here): Claude Code reads no field of it, and "
        "lists a plugin skill only with a description or a when_to_use\n"
    ) in captured.out


def test_read_listed_keeps_what_does_not_parse_with_the_reason() -> None:
    broken = read_listed(SKILLS["auditor"], "a/SKILL.md")
    assert broken.frontmatter == {}
    assert broken.broken == (
        "a/SKILL.md:5: the frontmatter is not valid YAML (mapping values are not allowed here)"
    )
    assert broken.body == "\n# Content Auditor\n\nBody.\n"
    lenient = read_listed(SKILLS["lenient"], "b/SKILL.md")
    assert lenient.broken is None and lenient.frontmatter["compatibility"] == "a: b"
    assert lenient.yaml_error == (
        "b/SKILL.md:4: the frontmatter is not valid YAML (mapping values are not allowed here)"
    )
    none = read_listed(SKILLS["nofm"], "c/SKILL.md")
    assert (none.frontmatter_text, none.body) == (None, SKILLS["nofm"])
    assert listing_problem(read_listed(SKILLS["num"], "d"), "d") == (
        "d: the frontmatter's 'description' is not text (a YAML int)"
    )
    assert listing_problem(read_listed(GOOD, "e"), "e") is None


def test_opencodes_second_try_makes_a_colon_value_a_block() -> None:
    assert sanitized("name: x\ndescription: |\n  Keep.\ncompat: a: b\n# c: d\nk-e: f: g") == (
        "name: x\ndescription: |\n  Keep.\ncompat: |-\n  a: b\n# c: d\nk-e: f: g"
    )


def test_geminis_fallback_reads_name_and_description_lines() -> None:
    assert simple_fields("name: x\ndescription: |\n  Two\n  lines.\nother: 1") == (
        "x",
        "| Two lines.",
    )
    assert simple_fields("description: only") == (None, "only")
