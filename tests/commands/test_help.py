"""The command line itself: `--help` grouped by purpose with every default from `_config`,
each subcommand's help with an example, and a bad flag still one line and exit 2."""

from __future__ import annotations

import re

import pytest

from activation import _config
from activation.commands import main as entry
from activation.commands.main import main

SUBCOMMANDS = (
    "lint", "detect", "calibrate", "report", "diff", "merge", "cache", "schema", "sandbox",
)  # fmt: skip


def help_text(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    assert main([*argv, "--help"]) == 0
    return " ".join(capsys.readouterr().out.split())  # unwrapped, whatever the width


def test_the_main_help_is_grouped_and_shows_every_default(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    headings = [line.rstrip(":") for line in out.splitlines() if re.match(r"^\S.*:$", line)]
    assert headings == [
        "Options",
        "Inputs",
        "Trials",
        "Cost and cache",
        "Outputs",
        "Stage B (--real)",
    ]
    text = " ".join(out.split())
    for shown in (
        f"({_config.TRIALS})",
        f"({_config.MAX_TRIALS})",
        f"Stage A: {_config.MODEL}",
        f"({_config.SEED})",
        f"({_config.ALPHA})",
        f"(Stage A: auto: from {_config.CONCURRENCY}, up to {_config.MAX_CONCURRENCY}, "
        f"Stage B: {_config.AGENT_CONCURRENCY})",
        "(claude)",
        f"({_config.MAX_TURNS})",
        f"({_config.TIMEOUT:g})",
        f"({_config.BASELINE})",
        f"({_config.SKILL_PATH},",
        f"{_config.CONFIG_FILE} (or [tool.activation] in {_config.PYPROJECT})",
        f"{_config.ENV_PREFIX}<KEY>",
    ):
        assert shown in text, shown
    for flag in ("--junit PATH", "--markdown PATH", "--html PATH", "--no-summary"):
        assert flag in text
    assert f"Subcommands: {', '.join(entry.SUBCOMMANDS)}" in " ".join(text.split())
    assert "the offline mock model: activation example billing billing-demo." in text


@pytest.mark.parametrize("command", SUBCOMMANDS)
def test_each_subcommand_help_has_an_example(
    command: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert f"Example: activation {command} " in help_text([command], capsys)


def test_a_bad_flag_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--junit"]) == 2
    captured = capsys.readouterr()
    assert captured.err == (
        "activation: error: argument --junit: expected one argument (see activation --help)\n"
    )
    assert main(["diff", "only-one.json"]) == 2
    assert capsys.readouterr().err == (
        "activation diff: error: the following arguments are required: NEW "
        "(see activation diff --help)\n"
    )
