"""Agent runs under bubblewrap, through the real pinned CLIs at their stand-ins."""

from __future__ import annotations

from pathlib import Path

import pytest

from activation.commands.main import main
from activation.trials.agent.sandbox import SOCKETS
from tests.support import messages_api
from tests.support.cli import Spawn, read_report
from tests.support.real_agents import REAL_AGENTS
from tests.support.skill_repo import (
    DISTRACTORS,
    REFERENCE,
    SKILL_PATH,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)
from tests.trials.agents import test_conformance as conformance


def test_stage_b_in_bwrap_reads_the_same_as_on_the_host(
    real_agent: str,
    agent_cli: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The conformance suite's Stage B scenario, every assertion of it, with each run under
    bubblewrap: the same statuses, loads and errors; the report says where runs happened."""
    monkeypatch.setenv("ACTIVATION_SANDBOX", "bwrap")
    conformance.test_a_real_run_reads_each_agents_own_loads(
        real_agent, agent_cli, skill_repo, tmp_path, monkeypatch, capsys
    )
    assert read_report(tmp_path / "report.json")["agent"]["sandbox"] == "bwrap"


KEY_NONCE = "planted-ssh-key-5d1e9a0c7b"
REPO_NONCE = "planted-repo-secret-3c8f2b61"


def outputs(*roots: Path, leaving: tuple[Path, ...]) -> dict[Path, bytes]:
    """Every file under `roots` but the planted ones: reports, transcripts, run records."""
    return {
        path: path.read_bytes()
        for root in roots
        for path in root.rglob("*")
        if path.is_file() and path not in leaving
    }


@pytest.mark.parametrize("sandbox", ["bwrap", "host"])
def test_a_scripted_agent_reads_the_users_home_and_repo_only_on_the_host(
    sandbox: str,
    claude: Path,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The stand-in makes Claude Code read a key planted in the user's home and a file of
    the user's repository by their absolute paths. Under bwrap neither exists for the agent:
    each read fails, and no nonce is in any request the stand-in got, any output or any
    transcript. On the host (the control) both come back whole, as the issue measured."""
    repo = skill_repo(conformance.BASELINE, files=REFERENCE, candidate=conformance.CANDIDATE)
    home = tmp_path / "user-home"
    key = home / ".ssh" / "id_rsa"
    key.parent.mkdir(parents=True)
    key.write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{KEY_NONCE}\n", encoding="utf-8")
    private = repo.root / "private.txt"
    private.write_text(REPO_NONCE, encoding="utf-8")
    monkeypatch.setenv("HOME", str(home))
    write_distractors(tmp_path / "distractors", DISTRACTORS)
    write_cases(tmp_path / "cases.json", [case("plain", conformance.PLAIN, True)])
    monkeypatch.chdir(repo.root)
    reads = [str(key), str(private)]

    def answer(request: messages_api.FakeRequest) -> messages_api.Reply:
        if request.is_main_loop and request.turn < len(reads):
            return messages_api.ToolUse("Read", {"file_path": reads[request.turn]})
        return messages_api.Text("Done.")

    report = tmp_path / "report.json"
    with messages_api.FakeMessagesAPI(answer) as api:
        for variable, value in REAL_AGENTS["claude-code"].variables(api.base_url, "sk-ant-x-42"
                                                                    ).items():  # fmt: skip
            monkeypatch.setenv(variable, value)
        code = main([
            "--real", "--claude", str(claude), "--sandbox", sandbox, "--cases",
            str(tmp_path / "cases.json"), "--distractors", str(tmp_path / "distractors"),
            "--skill-path", SKILL_PATH, "--only", "plain", "--trials", "1", "--max-trials", "1",
            "--timeout", "120", "--json", str(report), "--full-record",
        ])  # fmt: skip
        requests = [conformance.sent(request) for request in api.requests]
        results = [r.tool_results for r in api.requests if r.is_main_loop and r.turn == 2]
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert read_report(report)["agent"]["sandbox"] == sandbox
    assert len(results) == 2  # both variants' runs read both files and went on
    said = "\n".join(str(block["content"]) for blocks in results for block in blocks)
    written = [captured.out, captured.err, *requests]
    written += [data.decode("utf-8", "replace") for data in outputs(
        tmp_path, repo.root, leaving=(key, private)).values()]  # fmt: skip
    leaked = [nonce for nonce in (KEY_NONCE, REPO_NONCE) if any(nonce in t for t in written)]
    if sandbox == "host":
        assert leaked == [KEY_NONCE, REPO_NONCE]
        assert KEY_NONCE in said and REPO_NONCE in said
    else:
        assert leaked == []
        assert said.count("File does not exist") == 4, said


def test_sigterm_leaves_no_sandbox_process_socket_or_folder_behind(
    agent_cli: Path,
    real_agent: str,
    skill_repo: SkillRepos,
    tmp_path: Path,
    spawn_activation: Spawn,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The conformance suite's SIGTERM during `--real`, every run under bwrap: no bwrap,
    relay or agent process is left, no run folder, and no egress socket folder."""
    before = set(Path(SOCKETS).glob("activation-egress-*"))
    monkeypatch.setenv("ACTIVATION_SANDBOX", "bwrap")
    conformance.test_sigterm_kills_every_run_removes_the_copies_and_keeps_a_partial_report(
        real_agent, agent_cli, skill_repo, tmp_path, spawn_activation
    )
    assert set(Path(SOCKETS).glob("activation-egress-*")) <= before
    assert read_report(tmp_path / "partial.json")["agent"]["sandbox"] == "bwrap"
