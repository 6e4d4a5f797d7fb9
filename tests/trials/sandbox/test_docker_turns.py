"""A case's later prompts and its MCP server with each run in a container (`--sandbox
docker`, a user's `auto` where the daemon has the image), through Claude Code, the default
agent, at its stand-in: each turn is a new container, and the session the next one resumes
lives in the run's mounted home; the MCP server the CLI starts runs inside the container."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.commands import test_turns as turns
from tests.trials.mcp import test_real_mcp as mcp
from tests.trials.sandbox.test_image_build import agent_image
from tests.trials.sandbox.test_real_docker import docker_image, in_docker

__all__ = ["agent_image", "docker_image", "in_docker"]


@pytest.mark.parametrize("real_agent", ["claude-code"])
def test_a_case_of_two_prompts_resumes_its_session_in_a_new_container(
    in_docker: None,
    real_agent: str,
    agent_cli: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The turns scenario, every assertion of it, each turn in a container of its own: the
    second prompt reaches the stand-in with the whole first turn before it, and the
    `turn: 2` grader passes on the read that prompt asked for."""
    turns.test_a_case_of_two_prompts_runs_its_second_in_the_agents_own_session(
        real_agent, agent_cli, None, tmp_path, monkeypatch
    )


@pytest.mark.parametrize("built", [False, True], ids=["mounted-node", "built-image"])
@pytest.mark.parametrize("real_agent", ["claude-code"])
def test_an_mcp_server_runs_in_the_container_and_its_tool_call_is_graded(
    in_docker: None,
    built: bool,
    real_agent: str,
    agent_cli: Path,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The MCP scenario, every assertion of it, the agent and the shipped invoices server it
    starts in the trial's container: `tool_used` on invoices.lookup_invoice passes and the
    server's fixed answer reached the stand-in. In the test image the host's Node is
    mounted; in the image `activation sandbox build` makes (`built`), which holds the CLI
    and a Node of its own at another path, nothing of the host's is, and the server runs
    on the image's Node."""
    if built:
        monkeypatch.setenv("ACTIVATION_IMAGE", request.getfixturevalue("agent_image"))
    mcp.test_an_mcp_tool_call_is_graded_by_tool_used_on_every_agent(
        real_agent, agent_cli, None, tmp_path, monkeypatch
    )
