"""A fresh machine passes, and it stays true: every program the suite runs is in the one table
of tests/support/machine.py, and the source that table names for it really provides it (the
base image, `.ci/run`, the project's install, or the tests' own npm installs)."""

from __future__ import annotations

import ast
import shutil
import sys
from pathlib import Path

import pytest

from activation.trials.agent import sandbox
from activation.trials.agents import every
from activation.trials.agents.opencode import adapter as opencode
from tests.support import opencode_cli
from tests.support.machine import (
    BASE_IMAGE,
    CI_RUN,
    PROGRAMS,
    PYPROJECT,
    CiInstalls,
    Program,
    Source,
    ci_installs,
    declared_test_extras,
    entry_points,
)
from tests.support.needs import unavailable
from tests.support.npm_cli import REPO
from tests.support.opencode_cli import required_ripgrep

TESTS = Path(__file__).resolve().parent
NAMES = {program.name for program in PROGRAMS}
RUNNERS = {"run", "Popen", "check_output", "check_call", "call", "open_process"}
"""What `subprocess` and `anyio` start a process with."""
CLUES = ("which(", "subprocess.", "open_process(", "/usr/bin/", "PinnedCli(")
"""A source that names a program has one of these (the rest need no parsing)."""


def literal(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def module_of(function: ast.expr) -> str:
    """`subprocess` for `subprocess.run`."""
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
        return function.value.id
    return ""


def programs_named_in(source: str) -> set[str]:
    """The programs a test source names literally: `shutil.which("x")`, a subprocess started
    as `["x", ...]`, a `Path("/usr/bin/x")`, and a `PinnedCli(...)`'s command."""
    found: set[str] = set()
    if not any(clue in source for clue in CLUES):
        return found
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args:
            continue
        name = (
            node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        )
        first = node.args[0]
        if name == "which" and (value := literal(first)):
            found.add(value)
        elif name in RUNNERS and module_of(node.func) in {"subprocess", "anyio"}:
            if isinstance(first, ast.List) and first.elts and (value := literal(first.elts[0])):
                found.add(value)
        elif name == "Path" and (value := literal(first)) and value.startswith("/usr/bin/"):
            found.add(Path(value).name)
        elif name == "PinnedCli" and len(node.args) > 4 and (value := literal(node.args[4])):
            found.add(value)
    return found


def test_the_scan_finds_each_way_a_test_names_a_program() -> None:
    source = (
        "import shutil, subprocess\n"
        "shutil.which('npm')\n"
        "subprocess.run(['bash', '-c', 'true'])\n"
        "subprocess.Popen([str(path), '--version'])\n"
        "run(['--cases', 'cases.json'])\n"
        "CHROMIUM = Path('/usr/bin/chromium')\n"
        "CLI = PinnedCli('T', 'pkg', '1.0', folder, 'tool', megabytes=1)\n"
    )
    assert programs_named_in(source) == {"npm", "bash", "chromium", "tool"}


def test_every_program_the_suite_runs_is_in_the_table() -> None:
    named: dict[str, set[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        if path != Path(__file__).resolve():
            for program in programs_named_in(path.read_text(encoding="utf-8")):
                named.setdefault(program, set()).add(str(path.relative_to(REPO)))
    named.setdefault(opencode.RIPGREP, set()).add("activation's OpenCode preflight")
    named.setdefault(sandbox.BWRAP, set()).add("activation's bwrap sandbox")
    assert {"bash", "npm", "chromium", "rg", "claude", "opencode", "codex"} <= set(named)
    missing = {program: sorted(where) for program, where in named.items() if program not in NAMES}
    assert missing == {}, "add each to PROGRAMS in tests/support/machine.py, with its source"
    assert len(NAMES) == len(PROGRAMS), "one row per program"


def test_ci_installs_every_system_package_the_table_needs_and_no_other() -> None:
    installs = ci_installs(CI_RUN.read_text(encoding="utf-8"))
    needed = {p.package for p in PROGRAMS if p.source is Source.SYSTEM_PACKAGE}
    assert (
        sorted(installs.system_packages)
        == sorted(needed)
        == ["bubblewrap", "chromium", "debootstrap", "docker.io", "ripgrep"]
    )


def test_every_other_program_is_in_the_base_image_or_installed_with_the_project() -> None:
    pyproject = PYPROJECT.read_text(encoding="utf-8")
    by_source: dict[Source, set[str]] = {}
    for program in PROGRAMS:
        by_source.setdefault(program.source, set()).add(program.name)
    assert by_source[Source.BASE_IMAGE] <= BASE_IMAGE
    extras = {p.package for p in PROGRAMS if p.source is Source.TEST_EXTRAS}
    assert extras <= set(declared_test_extras(pyproject))
    assert by_source[Source.PROJECT] <= set(entry_points(pyproject))
    assert ".venv/bin/pip install -c constraints.txt -e '.[test]'\n" in CI_RUN.read_text()


def test_the_tests_install_each_pinned_cli_and_ci_installs_only_those() -> None:
    """The tests install the pinned CLIs into git-ignored folders; an npm install in
    `.ci/run` is one of them, at the same version and folder (an early, loud registry
    failure), never an extra program."""
    pinned = [program.cli for program in PROGRAMS if program.source is Source.PINNED_CLI]
    commands = [cli.command if cli else None for cli in pinned]
    assert commands == [agent.command for agent in every()]
    ignored = (REPO / ".gitignore").read_text(encoding="utf-8").splitlines()
    for cli in pinned:
        assert cli is not None
        assert cli.folder.relative_to(REPO).parts[0] in ignored  # a folder, or a link to one
    installs = ci_installs(CI_RUN.read_text(encoding="utf-8"))
    folders = {cli.spec: cli.folder.relative_to(REPO).as_posix() for cli in pinned if cli}
    assert installs.npm == (("@anthropic-ai/claude-code@2.1.332", ".claude-cli"),)
    for spec, prefix in installs.npm:
        assert folders[spec] == prefix


def test_reading_ci_run() -> None:
    script = (
        "set -euo pipefail\n"
        "SYSTEM_PACKAGES=(chromium ripgrep)\n"
        "npm install --no-audit --prefix .tools pkg@1.2.3  # early\n"
        "echo npm install is not a step\n"
    )
    assert ci_installs(script) == CiInstalls(("chromium", "ripgrep"), (("pkg@1.2.3", ".tools"),))


def found(program: Program) -> bool:
    if program.source in {Source.TEST_EXTRAS, Source.PROJECT}:
        return (Path(sys.executable).parent / program.name).is_file()
    return shutil.which(program.name) is not None


@pytest.mark.parametrize(
    "program",
    [p for p in PROGRAMS if p.source is not Source.PINNED_CLI],
    ids=lambda program: program.name,
)
def test_the_program_is_on_this_machine(program: Program) -> None:
    """What `.ci/run` leaves behind: missing here, the tests that need it skip (outside CI);
    the pinned CLIs are installed, or skipped, by their own fixtures."""
    if not found(program):
        unavailable(f"{program.name} ({program.used_for})", f"it comes from {program.source.value}")
    assert found(program)


def test_without_ripgrep_an_opencode_test_skips_with_the_reason_and_fails_in_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(opencode_cli, "PATH", str(tmp_path))
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception) as skipped:
        required_ripgrep()
    assert str(skipped.value) == (
        "ripgrep (`rg`), which OpenCode needs on PATH is not available: "
        f"no `rg` in {tmp_path} (apt-get install ripgrep)"
    )
    monkeypatch.setenv("CI", "1")
    with pytest.raises(pytest.fail.Exception) as failed:
        required_ripgrep()
    assert str(failed.value) == (
        "CI must have ripgrep (`rg`), which OpenCode needs on PATH: "
        f"no `rg` in {tmp_path} (apt-get install ripgrep)"
    )
    (tmp_path / "rg").write_text("#!/bin/sh\n")
    (tmp_path / "rg").chmod(0o755)
    assert required_ripgrep() == tmp_path / "rg"
