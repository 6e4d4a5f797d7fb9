"""Stage C runs of the fake agent (tests/support/fake_agent) for command tests: the agent
registered and its CLI first on the PATH, and a run that writes every output format."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from activation.commands.main import main
from activation.trials.agents import REGISTRY
from tests.support.fake_agent import write_shim

FORMATS = ("json", "junit", "markdown", "html")


def fake_agent_on_path(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Register the fake agent and put its `fake-agent` shim, in `folder`, first on PATH."""
    monkeypatch.setitem(REGISTRY, "fake", "tests.support.fake_agent")
    folder.mkdir()
    write_shim(folder)
    monkeypatch.setenv("PATH", f"{folder}:{os.environ['PATH']}")


def behave_in_every_format(folder: Path, *flags: str) -> tuple[int, dict[str, Path]]:
    """`activation behavior --agent fake`, 3 trials an arm, every output written in `folder`:
    the exit code and each format's file."""
    paths = {name: folder / f"report.{name}" for name in FORMATS}
    outputs = [flag for name, path in paths.items() for flag in (f"--{name}", str(path))]
    code = main(["behavior", "--agent", "fake", "--trials", "3", "--max-trials", "3",
                 "--full-record", *outputs, *flags])  # fmt: skip
    return code, paths
