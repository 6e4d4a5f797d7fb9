"""The agents this tool knows: one package each (see record.py) and one line each here.

Adding an agent is a new package under trials/agents/ and one line in `REGISTRY`; nothing
outside an agent's package names an agent. Light on purpose: `--help` reads the records,
and an agent's heavy parts are imported only when a run asks for them.
"""

from __future__ import annotations

from activation._errors import InputError
from activation._registry import registered
from activation.trials.agents.record import Agent

REGISTRY: dict[str, str] = {
    "claude-code": "activation.trials.agents.claude_code",
    "opencode": "activation.trials.agents.opencode",
    "codex": "activation.trials.agents.codex",
    "copilot": "activation.trials.agents.copilot",
    "gemini": "activation.trials.agents.gemini",
}
"""Agent name -> its package, which holds `AGENT`."""


def known() -> tuple[str, ...]:
    return tuple(REGISTRY)


def agent_named(name: str) -> Agent:
    """The record of `name`; InputError for an agent this tool does not know."""
    unknown = InputError(f"unknown agent {name!r}: one of {', '.join(REGISTRY)}")
    agent: Agent = registered(REGISTRY, name, "AGENT", unknown)
    return agent


def every() -> tuple[Agent, ...]:
    return tuple(agent_named(name) for name in REGISTRY)
