"""Stage B end to end on Codex: `activation --real --agent codex` drives the real pinned
CLI against its local stand-in (the Responses API), on a plugin that is not auth0, with the
model scripted per case and per description: a look at the skills that is not a load, the
marked copy a load returns, and a matrix of two agents' cells. A load, prose, a failed load,
another skill's load, an API error and SIGTERM in the middle of a run, on every agent:
tests/trials/agents/test_conformance.py; OpenCode's read of a skill's file that is not a
load, and its load of the marked copy: tests/trials/agent/test_opencode.py.

The user's HOME holds planted configs and skills, and the temp folder a planted skill above
the run folders: none may reach a run."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from activation.commands.main import main
from tests.support.agent_harness import ABOVE, LEAKY, plant_user_config
from tests.support.cli import read_report
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Text, ToolUse
from tests.support.responses_api import Error as ResponsesError
from tests.support.responses_api import FakeResponsesAPI, ResponsesRequest, Shell
from tests.support.responses_api import Text as ResponsesText
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SKILL_ID,
    SKILL_PATH,
    case,
    write_cases,
    write_distractors,
)

BASELINE = "Use when issuing refunds, handling chargebacks, or answering Stripe disputes."
CANDIDATE = "Use when issuing refunds."
CHARTS = "---\nname: charts\ndescription: Use when plotting charts.\n---\n# Charts\n"
KEYS = {"codex": "sk-test-e2e-codex-SECRET", "claude-code": "sk-ant-test-e2e-claude-code-SECRET"}
CASES = [
    {**case("dispute", "a stripe dispute came in, refund it", True), "spot_check": True},
    case("plain", "refund order 1234", True),
    case("failed", "undo the refund", True),
    case("look", "which skills do you have?", False),
    case("other", "plot refunds per month", False),
    case("broken", "refund the duplicate charge", True),
]
BEHAVIOUR = {
    # prompt: (what the model does with the baseline description, with the candidate)
    "a stripe dispute came in, refund it": ("load", "prose"),
    "refund order 1234": ("load", "load"),
    "undo the refund": ("failed", "failed"),
    "which skills do you have?": ("look", "look"),
    "plot refunds per month": ("other", "other"),
    "refund the duplicate charge": ("load", "api_error"),
}


def codex_script(request: ResponsesRequest) -> Any:
    """Codex's loop, by prompt and by the description it lists."""
    listing = request.listing or ""
    (description,) = re.findall(r"^- refunds: (.*) \(file: r\d+/refunds/SKILL\.md\)$", listing,
                                re.MULTILINE)  # fmt: skip
    behaviour = BEHAVIOUR[request.prompt][description != BASELINE]
    if behaviour == "api_error":
        return ResponsesError(400, message="scripted bad request")
    if request.turn > 0 or behaviour == "prose":
        return ResponsesText("I'll use the billing:refunds skill for this. Done.")
    command = {
        "load": "cat .agents/skills/refunds/SKILL.md",
        "failed": "cat .agents/skills/refund/SKILL.md",
        "look": "ls .agents/skills && grep -h '^description' .agents/skills/*/SKILL.md",
        "other": "cat .agents/skills/charts/SKILL.md",
    }[behaviour]
    return Shell(command)


@dataclass
class CodexRun:
    cli: Path
    api: FakeResponsesAPI
    tmp_path: Path

    def flags(self, *more: str) -> list[str]:
        return [
            "--real", "--agent", "codex", "--codex", str(self.cli),
            "--cases", str(self.tmp_path / "cases.json"),
            "--distractors", str(self.tmp_path / "distractors"),
            "--skill-path", SKILL_PATH, "--timeout", "90", *more,
        ]  # fmt: skip

    def main(self, *more: str) -> tuple[int, dict[str, Any]]:
        report = self.tmp_path / "report.json"
        report.unlink(missing_ok=True)
        code = main([*self.flags(*more), "--json", str(report), "--full-record"])
        return code, read_report(report) if report.exists() else {}

    @property
    def listings(self) -> list[str]:
        """The listing of every agent-loop request the stand-in got."""
        return [r.listing or "" for r in self.api.requests if r.is_responses]


@pytest.fixture
def codex_run(
    codex_cli: Path, skill_repo: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[CodexRun]:
    files = {**REFERENCE, "plugins/payments/skills/charts/SKILL.md": CHARTS}
    repo = skill_repo(BASELINE, files=files, candidate=CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    write_cases(tmp_path / "cases.json", CASES)
    scratch = tmp_path / "scratch"
    (scratch / ".agents" / "skills" / ABOVE).mkdir(parents=True)
    (scratch / ".agents" / "skills" / ABOVE / "SKILL.md").write_text(
        f"---\nname: {ABOVE}\ndescription: Planted above the run folders.\n---\n"
    )
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    monkeypatch.chdir(repo.root)
    home = tmp_path / "real-home"
    plant_user_config(home)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("CODEX_HOME", str(home / ".codex"))
    before = {p: p.read_bytes() for p in repo.root.rglob("*") if p.is_file() and ".git" not in
              p.parts and ".activation" not in p.parts}  # fmt: skip
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["codex"])
    with FakeResponsesAPI(codex_script) as api:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{api.base_url}/v1")
        yield CodexRun(codex_cli, api, tmp_path)
    assert [path.name for path in scratch.iterdir()] == [".agents"]  # copies, runs: gone
    after = {p: p.read_bytes() for p in repo.root.rglob("*") if p.is_file() and ".git" not in
             p.parts and ".activation" not in p.parts}  # fmt: skip
    assert after == before  # the user's working tree is untouched


def statuses(report: dict[str, Any]) -> dict[str, str]:
    return {entry["id"]: entry["status"] for entry in report["cases"]}


def test_a_look_at_the_skills_is_no_load_and_a_load_returns_the_marked_copy(
    codex_run: CodexRun, capsys: pytest.CaptureFixture[str]
) -> None:
    """What is Codex's own in a real run (the rest, on every agent:
    tests/trials/agents/test_conformance.py): a listing of the skills folder and a grep of
    the descriptions is not a load; a load is read from the target's SKILL.md coming back
    with the run's nonce; and its transcripts are not Claude Code's."""
    code, report = codex_run.main("--trials", "1", "--max-trials", "1", "--concurrency", "2",
                                  "--only", "plain,look")  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert statuses(report) == {"plain": "PASS", "look": "PASS"}
    cases = {entry["id"]: entry for entry in report["cases"]}
    plain = cases["plain"]["trials"][0]
    assert plain["reading"] == "activated"
    assert "returned the target's SKILL.md, nonce included" in plain["evidence"]
    assert plain["evidence"].endswith("run stopped early at that point")
    assert {tuple(t["chose"]) for t in cases["look"]["trials"]} == {()}
    assert KEYS["codex"] not in captured.out + captured.err
    assert main(["detect", plain["transcript"], "--skill", "billing:refunds"]) == 2
    capsys.readouterr()
    listings = codex_run.listings
    assert listings and all(LEAKY not in text and ABOVE not in text for text in listings)
    assert any(BASELINE in text for text in listings) and any(
        CANDIDATE in text for text in listings
    )


def claude_script(request: FakeRequest) -> Any:
    """Claude Code's loop (it offers `Skill`), by prompt and by the description it lists."""
    if not request.is_main_loop:
        return Text("a title")
    behaviour = BEHAVIOUR[request.prompt][request.menu[SKILL_ID] != BASELINE]
    if request.turn > 0:
        return Text("Done.")
    return ToolUse("Skill", {"skill": {"load": SKILL_ID, "other": "billing:charts"}[behaviour]})


def test_stage_b_cells_run_both_agents_in_one_matrix(
    skill_repo: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    claude: Path,
    codex_cli: Path,
) -> None:
    """`--real --agent claude-code,codex`: one run, a cell per agent CLI, each against its
    own API (the Messages API, the Responses API), judged together. Claude Code rather than
    OpenCode: a run of it starts in a second, OpenCode's in four."""
    files = {**REFERENCE, "plugins/payments/skills/charts/SKILL.md": CHARTS}
    repo = skill_repo(BASELINE, files=files, candidate=CANDIDATE)
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    write_cases(tmp_path / "cases.json", CASES)
    monkeypatch.chdir(repo.root)
    monkeypatch.setenv("CLAUDE_CODE_MAX_RETRIES", "0")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEYS["claude-code"])
    monkeypatch.setenv("OPENAI_API_KEY", KEYS["codex"])
    report = tmp_path / "matrix.json"
    with FakeMessagesAPI(claude_script) as messages, FakeResponsesAPI(codex_script) as responses:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", messages.base_url)
        monkeypatch.setenv("OPENAI_BASE_URL", f"{responses.base_url}/v1")
        code = main([
            "--real", "--agent", "claude-code,codex", "--claude", str(claude),
            "--codex", str(codex_cli), "--cases", str(tmp_path / "cases.json"),
            "--distractors", str(tmp_path / "distractors"), "--skill-path", SKILL_PATH,
            "--only", "plain,other", "--trials", "1", "--max-trials", "1",
            "--concurrency", "2", "--timeout", "90", "--json", str(report),
        ])  # fmt: skip
        assert messages.message_requests and responses.requests
    data = read_report(report)
    assert code == 0
    assert data["schema"] == "activation-matrix/1"
    assert [(cell["stage"], cell["coding_agent"], cell["model"]) for cell in data["cells"]] == [
        ("B", "claude-code", None),
        ("B", "codex", None),
    ]
    assert [statuses(cell) for cell in data["cells"]] == [{"plain": "PASS", "other": "PASS"}] * 2
    assert [a["cases"] for a in data["agreement"]] == [2, 2]
