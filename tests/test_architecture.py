"""The architecture rules of DESIGN.md, checked on every test run (so in CI too)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
HEAVY = ("anthropic", "scipy", "numpy", "git", "httpx2", "jinja2")


def test_the_static_checks_are_steps_of_ci_not_tests() -> None:
    """ruff, import-linter and mypy run in `.ci/run` after the install, each failing CI on
    its own (their configuration is in pyproject.toml)."""
    steps = (REPO / ".ci" / "run").read_text()
    for command in (
        ".venv/bin/ruff check .",
        ".venv/bin/ruff format --check .",
        ".venv/bin/lint-imports",
        ".venv/bin/mypy",
        ".venv/bin/pytest",
    ):
        assert f"\n{command}" in steps, command
    assert "set -euo pipefail" in steps


def heavy_modules_after(python: str, code: str, cwd: Path) -> list[str]:
    """Which heavy libraries a fresh interpreter (`python`) has loaded after running `code`."""
    probe = (
        f"{code}\nimport sys\n"
        f"print('loaded:', *(m for m in {HEAVY!r} if m in sys.modules), file=sys.__stderr__)"
    )
    completed = subprocess.run(
        [python, "-c", probe], cwd=cwd, capture_output=True, text=True, check=False
    )
    return completed.stderr.strip().splitlines()[-1].split()[1:]


def test_importing_activation_imports_nothing_heavy(fresh_python: str, tmp_path: Path) -> None:
    assert heavy_modules_after(fresh_python, "import activation", tmp_path) == []
    assert heavy_modules_after(fresh_python, "import activation; activation.Case", tmp_path) == []


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["-V"],
        ["--no-such-flag"],
        ["lint", "--help"],
        ["detect", "-"],
        ["report", "--help"],
        ["diff", "--help"],
    ],
    ids=["help", "version", "V", "bad-flag", "lint-help", "detect", "report", "diff"],
)
def test_quick_commands_import_nothing_heavy(
    argv: list[str], fresh_python: str, tmp_path: Path
) -> None:
    code = (
        "import contextlib, io\n"
        "from activation.commands.main import main\n"
        "quiet = io.StringIO()\n"
        "with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):\n"
        f"    main({argv!r})"
    )
    assert heavy_modules_after(fresh_python, code, tmp_path) == []


def test_reading_every_providers_model_imports_no_sdk(fresh_python: str, tmp_path: Path) -> None:
    """A provider is one module, record and client together: its SDK comes with the client
    only, so reading a model of any provider (a dry run, a plan) loads none."""
    code = (
        "from activation.trials.providers import PROVIDER_MODULES, provider_named\n"
        "for name in PROVIDER_MODULES:\n"
        "    provider_named(name).notice()\n"
        "import sys\n"
        "print('sdk:', *(m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules),"
        " file=sys.__stderr__)"
    )
    assert heavy_modules_after(fresh_python, code, tmp_path) == []
    completed = subprocess.run(
        [fresh_python, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert completed.stderr.strip().splitlines()[-1] == "sdk:"


@pytest.mark.parametrize(
    ("backend", "max_trials", "statuses", "heavy"),
    [
        ("AnswersAtOnce", 3, ["PASS"] * 4, []),
        ("AllAtOnce", 9, ["REGRESSED", "UNSTABLE", "PASS", "PASS"], ["scipy", "numpy"]),
    ],
    ids=["variants-agree", "variants-differ"],
)
def test_a_run_imports_scipy_only_once_its_variants_differ(
    backend: str, max_trials: int, statuses: list[str], heavy: list[str], fresh_python: str
) -> None:
    """scipy (0.7 CPU-s to import, most of a small Stage B run's own CPU) serves the exact
    test only: a run whose every case's variants agree, as most small runs, never loads
    it; one whose variants differ does, and judges with it."""
    code = (
        "from activation._models import RunSpec\n"
        "from activation.trials.engine import execute\n"
        "from activation.trials.simulate import simulated_inputs, typical\n"
        f"from tests.trials.test_engine import {backend}\n"
        f"spec = RunSpec(trials=3, max_trials={max_trials})\n"
        f"outcome = execute(spec, simulated_inputs(typical(4)), {backend}())\n"
        f"assert [v.status.value for v in outcome.verdicts] == {statuses!r}\n"
    )
    assert heavy_modules_after(fresh_python, code, REPO) == heavy
