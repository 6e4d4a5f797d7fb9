"""A case's MCP server end to end, through each agent's real pinned CLI under bubblewrap (or
the sandbox a caller puts in ACTIVATION_SANDBOX: tests/trials/sandbox/test_docker_turns.py):
`activation behavior` on examples/behavior/mcp gives the agent the shipped scripted
`invoices` server in its own configuration; the model at the agent's stand-in calls the
server's `lookup_invoice` tool by whatever name the agent offers it under; the trajectory
names the call `invoices.lookup_invoice` and the `tool_used` grader passes on it; the tool's
fixed answer came back to the model. One trial per arm, no control arm."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest

from activation.commands.main import main
from activation.trials.agents import agent_named
from tests.support import gemini_api, messages_api, responses_api
from tests.support.cli import read_report
from tests.support.real_agents import REAL_AGENTS
from tests.support.skill_repo import commit_all
from tests.trials.agents.test_conformance import PROVIDER_VARIABLES, asked_sandbox

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "behavior" / "mcp"
ANSWER = "INV-1042: Ada Lovelace, EUR 1,234.50, overdue, due 2026-03-31"
"""What the shipped server's lookup_invoice answers for INV-1042."""
ASKED = {"invoice_id": "INV-1042"}
DEFERRED = re.compile(r"Deferred tool namespaces:[^<]*- (mcp__invoices)\b")


def called(request: Any, name: str) -> Any:
    """The stand-in's reply that calls the tool `name` with `ASKED`, in its API's form."""
    if isinstance(request, gemini_api.GeminiRequest):
        return gemini_api.Call(name, ASKED)
    if isinstance(request, responses_api.ResponsesRequest):
        return responses_api.Tool(name, ASKED)
    return messages_api.ToolUse(name, ASKED)


def said(request: Any, text: str) -> Any:
    if isinstance(request, gemini_api.GeminiRequest):
        return gemini_api.Text(text)
    if isinstance(request, responses_api.ResponsesRequest):
        return responses_api.Text(text)
    return messages_api.Text(text)


def lookup_tool(request: Any) -> str | None:
    """The name the agent offers the invoices server's lookup_invoice under: the one offered
    tool whose name ends so, or, where the agent defers the server's tools (Codex's code
    mode lists `Deferred tool namespaces: - mcp__invoices`, each tool still callable on its
    `tools`), the namespace's tool."""
    offered = [name for name in request.tool_names if name.endswith("lookup_invoice")]
    if offered:
        (name,) = offered
        return name
    deferred = DEFERRED.search(orjson.dumps(request.body).decode())
    return None if deferred is None else f"{deferred.group(1)}__lookup_invoice"


def looks_up(request: Any) -> Any:
    """The model: on its first turn, the invoices server's lookup_invoice under the name
    the agent offers it; then it is done."""
    name = lookup_tool(request)
    if name is not None and request.turn == 0:
        return called(request, name)
    return said(request, "INV-1042 is overdue: EUR 1,234.50.")


def test_an_mcp_tool_call_is_graded_by_tool_used_on_every_agent(
    real_agent: str,
    agent_cli: Path,
    under_bwrap: None,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    row = REAL_AGENTS[real_agent]
    for variable in PROVIDER_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)
    commit_all(repo, "invoices and its eval").close()
    monkeypatch.chdir(repo)
    saved = tmp_path / "behavior.json"
    with row.api(looks_up) as api:
        for variable, value in row.variables(api.base_url, row.key).items():
            monkeypatch.setenv(variable, value)
        code = main(["behavior", "--agent", real_agent, f"--{agent_named(real_agent).command}",
                     str(agent_cli), *row.model, "--suite", "evals", "--no-control",
                     "--trials", "1", "--max-trials", "1", "--timeout", "120", "--json",
                     str(saved), "--full-record", "--no-canary"])  # fmt: skip
        bodies = [orjson.dumps(request.body).decode() for request in api.requests]
    report = read_report(saved)
    assert report["agent"]["sandbox"] == asked_sandbox()
    (case,) = report["cases"]
    trials = case["trials"]
    assert code == 0
    assert [(trial["variant"], trial["correct"]) for trial in trials] == [
        ("baseline", True), ("candidate", True)
    ]  # fmt: skip
    for trial in trials:
        assert {g["grader"]: g["outcome"] for g in trial["grades"]} == {
            "Looked INV-1042 up with the invoices server's lookup_invoice": "passed",
            "Lists no invoices to find one": "passed",
        }
        names = [call["name"] for call in trial["trajectory"]["tool_calls"]]
        assert names.count("invoices.lookup_invoice") == 1
    assert sum(ANSWER in body for body in bodies) >= 2  # each arm's model got the answer
