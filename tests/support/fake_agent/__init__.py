"""A fake agent, registered only by a test: the proof that an agent is one package and one
registry line (`monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_agent")`).

It lists skills as Agent Skills XML with no budget (`listing`), and Stage B runs its CLI,
a small Python script (`cli.py`) started through a `fake-agent` shim on the PATH
(`write_shim`), which loads every installed project skill whose folder the prompt names
(`adapter`, `stream`).
"""

from __future__ import annotations

import sys
from pathlib import Path

from activation.trials.agents.record import Agent

AGENT = Agent(
    name="fake",
    title="Fake Agent",
    package="fake-agent@1.0.0",
    command="fake-agent",
    providers=("anthropic",),
    load_action="a `load` event",
    instructions="""\
You route the skills of a fake agent. Decide which listed skills it would load for the \
user's request that follows, possibly none, and answer with their names as listed.

""",
    module=__name__,
)

CLI = Path(__file__).with_name("cli.py")


def write_shim(folder: Path) -> Path:
    """A `fake-agent` executable in `folder` that runs the fake CLI with this interpreter
    (put `folder` first on PATH)."""
    shim = folder / AGENT.command
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{CLI}" "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    return shim
