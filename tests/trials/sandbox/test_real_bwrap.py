"""A scripted agent's escape from bubblewrap, through the real pinned CLIs at their
stand-ins (the host as the control). Stage B and SIGTERM under bwrap for every agent are the
conformance suite's own runs (tests/trials/agents/test_conformance.py)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from activation.commands.main import main
from activation.trials.agents import agent_named
from tests.support import messages_api, responses_api
from tests.support.cli import read_report
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


@dataclass(frozen=True)
class Escape:
    """How a scripted agent tries to get out: the model's reply on each turn of the agent's
    loop (given the planted key, the repository's file and a port of the host), which
    request holds what the attempts returned (its text), and how a refusal reads and how
    many attempts each run makes."""

    attempt: Callable[[Any, Path, Path, int], Any]
    after: Callable[[Any], str | None]
    refused: str
    attempts: int


def claude_reads(request: Any, key: Path, private: Path, port: int) -> Any:
    """Claude Code's Stage B tools can only read: the key, then the repository's file."""
    reads = [str(key), str(private)]
    if request.is_main_loop and request.turn < len(reads):
        return messages_api.ToolUse("Read", {"file_path": reads[request.turn]})
    return messages_api.Text("Done.")


def codex_shell(request: Any, key: Path, private: Path, port: int) -> Any:
    """Codex runs commands: read both files, write beside the key, then connect to another
    port of the host."""
    if request.is_responses and request.turn == 0:
        return responses_api.Shell(
            f"cat {key}; cat {private}; echo planted >> {key}.pub; "
            f"curl -s -m 5 http://127.0.0.1:{port}/ || echo NO-ROUTE"
        )
    return responses_api.Text("Done.")


ESCAPES = {
    "claude-code": Escape(
        claude_reads,
        lambda r: "\n".join(str(b["content"]) for b in r.tool_results)
        if r.is_main_loop and r.turn == 2 else None,
        "File does not exist",
        2,
    ),
    "codex": Escape(
        codex_shell,
        lambda r: "\n".join(r.tool_outputs) if r.is_responses and r.turn == 1 else None,
        "No such file or directory",
        3,
    ),
}  # fmt: skip


@pytest.mark.parametrize("sandbox", ["bwrap", "host"])
@pytest.mark.parametrize("real_agent", sorted(ESCAPES))
def test_a_scripted_agent_reads_the_users_home_and_repo_only_on_the_host(
    real_agent: str,
    agent_cli: Path,
    sandbox: str,
    skill_repo: SkillRepos,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The stand-in makes the real CLI read a key planted in the user's home and a file of
    the user's repository by their absolute paths (Codex also tries another port of the
    host). Under bwrap neither file exists for the agent and the port is out of reach: no
    nonce is in any request the stand-in got, any output or any transcript. On the host
    (the control) both files come back whole, as the issue measured."""
    row, escape = REAL_AGENTS[real_agent], ESCAPES[real_agent]
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
    report = tmp_path / "report.json"
    with socket.create_server(("127.0.0.1", 0)) as other:
        other.setblocking(False)
        port = other.getsockname()[1]
        with row.api(lambda r: escape.attempt(r, key, private, port)) as api:
            for variable, value in row.variables(api.base_url, row.key).items():
                monkeypatch.setenv(variable, value)
            code = main([
                "--real", "--agent", real_agent, f"--{agent_named(real_agent).command}",
                str(agent_cli), *row.model, "--sandbox", sandbox,
                "--cases", str(tmp_path / "cases.json"),
                "--distractors", str(tmp_path / "distractors"), "--skill-path", SKILL_PATH,
                "--only", "plain", "--trials", "1", "--max-trials", "1", "--timeout", "120",
                "--json", str(report), "--full-record", "--no-canary",
            ])  # fmt: skip
            requests = [conformance.sent(r) for r in api.requests]
            said = [text for r in api.requests if (text := escape.after(r)) is not None]
        with pytest.raises(BlockingIOError):
            other.accept()  # nobody connected
    assert not key.with_suffix(".pub").exists()  # no write outside, on the host either
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert read_report(report)["agent"]["sandbox"] == sandbox
    assert len(said) == 2  # both variants' runs tried and went on
    written = [captured.out, captured.err, *requests]
    written += [data.decode("utf-8", "replace") for data in outputs(
        tmp_path, repo.root, leaving=(key, private)).values()]  # fmt: skip
    leaked = [nonce for nonce in (KEY_NONCE, REPO_NONCE) if any(nonce in t for t in written)]
    if sandbox == "host":
        assert leaked == [KEY_NONCE, REPO_NONCE]
        assert all(KEY_NONCE in text and REPO_NONCE in text for text in said)
    else:
        assert leaked == []
        assert [text.count(escape.refused) for text in said] == [escape.attempts] * 2, said
