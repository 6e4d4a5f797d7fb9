"""Stage A in another agent's listing (`--agent`), end to end: the CLI, the real SDK over
HTTP to the local stand-in. The model gets OpenCode's or Codex's own listing of the skills
and the question in that agent's terms, answers with the names that listing shows, and the
run maps them back to the skills' ids. That each listing is the agent's own, byte for byte,
the fidelity tests check against the real CLIs (tests/trials/agents/fidelity_cases.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation.trials.agents import agent_named
from tests.support.cli import BASELINE, CANDIDATE, by_id, run
from tests.support.messages_api import Answer, FakeMessagesAPI, FakeRequest
from tests.support.skill_repo import SkillRepo, case

CASES = [
    case("refund", "refund order 1234", True),
    case("charts", "plot monthly revenue", False),
]


def by_name(request: FakeRequest) -> Answer:
    """Answers as the agent's listing names skills: the bare frontmatter names."""
    return Answer(["refunds"] if "refund" in request.prompt else ["charts"])


def system_of(request: FakeRequest) -> str:
    (block,) = request.body["system"]
    return str(block["text"])


def test_opencode_lists_the_skills_as_its_xml_and_is_answered_by_name(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI
) -> None:
    fake_api.script = by_name
    code, report = run(tmp_path, CASES, "--agent", "opencode", "--max-trials", "3")
    assert code == 0
    assert report["coding_agent"] == "opencode"
    assert by_id(report)["refund"]["baseline"]["routes"] == {"billing:refunds": 3}
    assert by_id(report)["charts"]["candidate"]["routes"] == {"charts": 3}
    for request in fake_api.message_requests:
        system = system_of(request)
        assert system.startswith(agent_named("opencode").instructions)
        listing = system.removeprefix(agent_named("opencode").instructions)
        assert listing.startswith(
            "Skills provide specialized instructions and workflows for specific tasks.\n"
            "Use the skill tool to load a skill when a task matches its description.\n"
            "<available_skills>\n  <skill>\n"
        )
        assert listing.endswith("  </skill>\n</available_skills>")
        location = repo.root / ".agents" / "skills" / "refunds" / "SKILL.md"
        blocks = [
            f"    <name>refunds</name>\n    <description>{text}</description>\n"
            f"    <location>{location}</location>\n"
            for text in (BASELINE, CANDIDATE)
        ]
        assert sum(block in listing for block in blocks) == 1  # its variant's description
        assert "<name>customize-opencode</name>" in listing  # its built-in skill
        names = request.body["output_config"]["format"]["schema"]["properties"]["skills"]
        assert "refunds" in names["items"]["enum"]
        assert "billing:refunds" not in names["items"]["enum"]


def test_codex_lists_the_skills_under_their_root_and_is_answered_by_name(
    tmp_path: Path, repo: SkillRepo, fake_api: FakeMessagesAPI, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_api.script = by_name
    code, report = run(tmp_path, CASES, "--agent", "codex", "--max-trials", "3")
    out = capsys.readouterr().out
    assert code == 0
    assert report["coding_agent"] == "codex"
    assert by_id(report)["refund"]["candidate"]["routes"] == {"billing:refunds": 3}
    assert "Stage A in Codex's listing, model claude-sonnet-5-5" in out
    root = repo.root / ".agents" / "skills"
    for request in fake_api.message_requests:
        listing = system_of(request).removeprefix(agent_named("codex").instructions)
        assert listing.startswith("<skills_instructions>\n## Skills\n")
        assert listing.endswith("\n</skills_instructions>")
        roots = [line for line in listing.split("\n") if line.endswith(f"` = `{root}`")]
        assert len(roots) == 1  # the project's root, next to Codex's own for its bundled skills
        alias = roots[0].removeprefix("- `").split("`", 1)[0]
        assert (
            f"- refunds: {BASELINE} (file: {alias}/refunds/SKILL.md)" in listing
            or f"- refunds: {CANDIDATE} (file: {alias}/refunds/SKILL.md)" in listing
        )
        assert "- skill-creator: " in listing  # a bundled skill, listed first


@pytest.mark.parametrize(
    ("agent", "title", "package"),
    [("opencode", "OpenCode", "opencode-ai@1.18.33"), ("codex", "Codex", "@openai/codex@0.171.0")],
)
def test_stage_b_runs_the_agents_own_cli_and_says_how_to_install_it(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
    agent: str,
    title: str,
    package: str,
) -> None:
    if agent == "opencode":
        request.getfixturevalue("ripgrep")  # OpenCode's preflight asks for it first
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-openai-key")
    missing = tmp_path / f"no-{agent}"
    code, report = run(
        tmp_path, CASES, "--real", "--agent", agent, f"--{agent}", str(missing), "--only", "refund"
    )
    assert code == 2
    assert report["error"] == (
        f"cannot find the {title} CLI '{missing}': install it with `npm install -g {package}` "
        f"(or into a folder with `npm install --prefix DIR {package}`) and pass --{agent} PATH "
        "if it is not on PATH"
    )
    assert fake_api.requests == []


@pytest.mark.parametrize(
    ("agent", "own"),
    [
        ("opencode", "1 of OpenCode's own ("),
        ("codex", "4 of Codex's own ("),
        ("claude-code", "of Claude Code's own ("),
    ],
)
def test_the_dry_run_names_the_agent_whose_listing_it_shows(
    tmp_path: Path,
    repo: SkillRepo,
    fake_api: FakeMessagesAPI,
    capsys: pytest.CaptureFixture[str],
    agent: str,
    own: str,
) -> None:
    code, _report = run(tmp_path, CASES, "--dry-run", "--agent", agent)
    out = " ".join(capsys.readouterr().out.split())
    assert code == 0
    assert own in out
    assert fake_api.message_requests == []
    if agent == "opencode":  # OpenCode's listing has no budget: no huge number of columns
        assert "characters, no budget), in" in out
        assert "9,223,372,036,854,775,807" not in out
    if agent != "claude-code":
        assert "Claude Code" not in out
