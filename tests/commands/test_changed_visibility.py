"""`activation changed` fails a change that hides a skill from an agent, as `activation
visibility --baseline` does, with no model call and whether or not the skill is tested: in a
real git repo of one skills folder (alpha, beta) with no cases at all."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from activation.trials.agents import agent_named
from tests.support.skill_repo import commit_all

ALPHA = ".claude/skills/alpha"
ALPHA_TEXT = "---\nname: alpha\ndescription: Use when brewing alpha tea.\n---\n# Alpha\n"
BETA_TEXT = "---\nname: beta\ndescription: Use when baking beta bread.\n---\n# Beta\n"
POLICY = "policy:\n  allow_implicit_invocation: false\n"
CLAUDE = agent_named("claude-code").label()
CODEX = agent_named("codex").label()
HIDDEN = (
    "listed whole -> not listed: disable-model-invocation: true (the Skill tool refuses the "
    "model too)"
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two skills of `.claude/skills`, committed on main, no cases file."""
    root = tmp_path / "repo"
    for name, text in (("alpha", ALPHA_TEXT), ("beta", BETA_TEXT)):
        folder = root / ".claude" / "skills" / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text)
    commit_all(root, "two skills")
    monkeypatch.chdir(root)
    return root


def changed(tmp_path: Path, *flags: str) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "changed.json"
    argv = ["changed", "--base", "git:main", "--model", "mock", "--json", str(report),
            "--no-summary", "--cache-dir", str(tmp_path / "cache"), *flags]  # fmt: skip
    code = main(argv)
    return code, orjson.loads(report.read_bytes()) if report.exists() else {}


def hide_alpha(repo: Path) -> None:
    path = repo / ALPHA / "SKILL.md"
    path.write_text(
        ALPHA_TEXT.replace("name: alpha\n", "name: alpha\ndisable-model-invocation: true\n")
    )


def findings(report: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        (f["skill"], f["agent"], f["baseline"]["state"], f["candidate"]["state"])
        for f in report["less_visible"]
    ]


def test_a_change_that_hides_a_skill_fails_in_every_output_though_untested_is_allowed(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hide_alpha(repo)
    markdown, junit = tmp_path / "changed.md", tmp_path / "changed.xml"
    code, report = changed(tmp_path, "--allow-untested", "--markdown", str(markdown),
                           "--junit", str(junit))  # fmt: skip
    assert code == 1
    assert findings(report) == [("alpha", CLAUDE, "full", "hidden")]
    assert [skill["kinds"] for skill in report["skills"]] == [["description"]]
    verdict = f"FAILED: the change makes alpha less visible to {CLAUDE} (no model call)."
    out = capsys.readouterr().out
    tail = out[out.index("activation changed: git:main -> the working tree") :].splitlines()
    assert tail == [
        "activation changed: git:main -> the working tree",
        f"alpha ({ALPHA}/SKILL.md): description",
        "  not tested: its description changed and it has no cases file (allowed by "
        "--allow-untested)",
        f"  LESS VISIBLE {CLAUDE}: alpha is less visible in the candidate: {HIDDEN}",
        verdict,
    ]
    text = markdown.read_text()
    assert text.startswith(f"### ❌ activation changed: {verdict}\n")
    assert (
        "| `alpha` | description | nothing | not tested: its description changed and it has no "
        "cases file (allowed by --allow-untested)<br>LESS VISIBLE "
        f"{CLAUDE}: alpha is less visible in the candidate: {HIDDEN} |"
    ) in text
    root = ET.parse(junit).getroot()
    assert (root.get("tests"), root.get("failures")) == ("2", "1")
    suite = root.find("testsuite[@name='less visible']")
    assert suite is not None
    case = suite.find("testcase")
    assert case is not None
    failure = case.find("failure")
    assert failure is not None
    assert (case.get("name"), failure.get("type"), failure.get("message")) == (
        f"alpha [{CLAUDE}]",
        "LESS-VISIBLE",
        f"{CLAUDE}: alpha is less visible in the candidate: {HIDDEN}",
    )


def test_the_dry_run_says_the_run_would_fail(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hide_alpha(repo)
    code, _report = changed(tmp_path, "--allow-untested", "--dry-run")
    assert code == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[lines.index("activation changed: git:main -> the working tree") + 1 :] == [
        f"alpha ({ALPHA}/SKILL.md): modified, description",
        "  not tested: description",
        f"  LESS VISIBLE {CLAUDE}: alpha is less visible in the candidate: {HIDDEN}",
        "would run: nothing",
        f"the run would fail: the change makes alpha less visible to {CLAUDE} (no model call)",
    ]


def test_codex_policy_file_is_a_listing_change_judged_for_the_agents_of_the_run(
    repo: Path, tmp_path: Path
) -> None:
    (repo / ALPHA / "agents").mkdir()
    (repo / ALPHA / "agents" / "openai.yaml").write_text(POLICY)
    code, report = changed(tmp_path, "--allow-untested", "--agent", "codex")
    assert code == 1
    assert findings(report) == [("alpha", CODEX, "full", "hidden")]
    assert report["less_visible"][0]["candidate"]["rule"] == (
        "agents/openai.yaml says policy.allow_implicit_invocation: false"
    )
    assert [skill["kinds"] for skill in report["skills"]] == [["description"]]
    code, report = changed(tmp_path, "--allow-untested")
    assert (code, report["less_visible"]) == (0, [])


def test_a_description_edit_that_hides_nothing_passes_untested_as_before(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = repo / ALPHA / "SKILL.md"
    path.write_text(ALPHA_TEXT.replace("alpha tea", "alpha tea or green tea"))
    code, report = changed(tmp_path, "--allow-untested", "--agent", "claude-code,codex")
    assert (code, report["less_visible"]) == (0, [])
    assert capsys.readouterr().out.splitlines()[-1] == (
        "OK: nothing the change touched calls for a gate."
    )


def test_the_comparison_lists_the_catalog_so_a_missing_one_is_bad_input(
    repo: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    hide_alpha(repo)
    code, report = changed(tmp_path, "--allow-untested", "--catalog", "missing")
    assert (code, report["exit_code"]) == (2, 2)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "activation changed: error: --catalog missing: no such folder"
