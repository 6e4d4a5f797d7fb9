"""Scenario suites (`tests/scenarios/<skill>/scenarios.yaml`, as microsoft/skills keeps them):
found and named, never read.

Each file lists `scenarios` (name, prompt, `expected_patterns`, `forbidden_patterns`, tags,
a `mock_response`), beside an `acceptance-criteria.md`; their harness asks a model for code
and greps the code text of its reply with those patterns. This tool grades the files the
agent leaves, so read here a scenario would measure something else under its author's name:
the folder is named instead, and a change to its skill is "not tested", with why. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

FOLDER = "tests/scenarios"
REASON = (
    "scenarios (scenarios.yaml: expected_patterns and forbidden_patterns): their "
    "patterns grade the code text of the agent's reply, and this tool grades the files the "
    "agent leaves"
)
FILES = ("scenarios.yaml", "scenarios.yml")
_SUITE_FILE = re.compile(rf"^({FOLDER}/[^/]+)/scenarios\.ya?ml$")


def suites(paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The scenario folders among repo-relative POSIX paths (`tests/scenarios/<skill>`), each
    with its files (relative to it): a folder that holds a `scenarios.yaml`."""
    given = list(paths)
    folders = sorted({match.group(1) for path in given if (match := _SUITE_FILE.match(path))})
    return {
        folder: tuple(
            sorted(p.removeprefix(f"{folder}/") for p in given if p.startswith(f"{folder}/"))
        )
        for folder in folders
    }


def folder_of(skill_name: str) -> str:
    """Where the scenario suite of the skill of folder name `skill_name` is."""
    return f"{FOLDER}/{skill_name}"


def shown(folders: Sequence[str]) -> str:
    """The scenario folders in one line (142 of them are one line, not 142)."""
    names = [PurePosixPath(folder).name for folder in folders]
    more = f" and {len(names) - 4} more" if len(names) > 4 else ""
    return f"{FOLDER}/ holds {REASON} ({', '.join(names[:4])}{more}): not read"
