"""Every command's flags, in one light module.

The settings file and `ACTIVATION_*` variables take their keys from these definitions (see
config.py), so a flag added here is configurable with no other change; and `lint` can tell a
key of another command from a typo without importing the heavier commands.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from activation._config import BASELINE
from activation.commands.arguments import (
    CONFIG_EPILOG,
    add_report_outputs,
    add_run_arguments,
    add_target_arguments,
    parser,
)
from activation.inputs.cases import parse_only
from activation.inputs.suite import BUNDLED_CONTROLS

RUN_DESCRIPTION = (
    "Compare two versions of a skill description on a labelled case matrix and fail when "
    "the candidate makes the skill fire on fewer right prompts or more wrong ones. "
    "Example: activation --baseline git:origin/main --json report.json --html report.html. "
    "Subcommands: lint, detect, calibrate, report, diff, merge, cache "
    "(activation SUBCOMMAND --help)."
)
RECORDS = Path("calibration/records")


def run_parser() -> argparse.ArgumentParser:
    made = parser("activation", RUN_DESCRIPTION, CONFIG_EPILOG)
    groups = add_run_arguments(made)
    groups.inputs.add_argument(
        "--baseline",
        default=BASELINE,
        metavar="SPEC",
        help=f"git:<ref> or a SKILL.md path ({BASELINE})",
    )
    groups.inputs.add_argument(
        "--candidate",
        metavar="SPEC",
        help="git:<ref> or a SKILL.md path (default: the working-tree SKILL.md)",
    )
    groups.inputs.add_argument(
        "--only", type=parse_only, metavar="IDS", help="comma-separated case ids"
    )
    add_report_outputs(groups.outputs)
    groups.outputs.add_argument(
        "--no-summary",
        action="store_true",
        help="do not append the Markdown summary to $GITHUB_STEP_SUMMARY (appended when set)",
    )
    made.add_argument(
        "--dry-run",
        action="store_true",
        help="validate, plan and show every setting with its source; no model call",
    )
    made.add_argument("--debug", action="store_true", help="show the traceback of a crash")
    return made


def calibrate_parser() -> argparse.ArgumentParser:
    made = parser(
        "activation calibrate",
        "Run the suite against a narrow control, a broad control and the real description "
        "itself; exit 0 only when both controls are caught and A/A is quiet. "
        "Example: activation calibrate --trials 5 --record",
        CONFIG_EPILOG,
    )
    groups = add_run_arguments(made)
    groups.inputs.add_argument(
        "--baseline",
        metavar="SPEC",
        help="the real description: git:<ref> or a path (the working tree)",
    )
    groups.inputs.add_argument(
        "--narrow",
        type=Path,
        metavar="PATH",
        default=BUNDLED_CONTROLS / "narrow" / "SKILL.md",
        help="the narrow control's SKILL.md (the bundled one, written for auth0)",
    )
    groups.inputs.add_argument(
        "--broad",
        type=Path,
        metavar="PATH",
        default=BUNDLED_CONTROLS / "broad" / "SKILL.md",
        help="the broad control's SKILL.md (the bundled one, written for auth0)",
    )
    groups.inputs.add_argument(
        "--only", type=parse_only, metavar="IDS", help="comma-separated case ids"
    )
    groups.outputs.add_argument(
        "--record",
        type=Path,
        nargs="?",
        const=RECORDS,
        metavar="DIR",
        help=f"write a dated JSON and Markdown entry (default DIR: ./{RECORDS})",
    )
    made.add_argument("--debug", action="store_true", help="show the traceback of a crash")
    return made


def lint_parser() -> argparse.ArgumentParser:
    made = parser(
        "activation lint",
        "Static checks on a case matrix and a skill description; no model call. "
        "Example: activation lint --cases my-cases.json --strict",
        CONFIG_EPILOG,
    )
    inputs = made.add_argument_group("inputs")
    inputs.add_argument(
        "--cases", type=Path, metavar="FILE", help="cases file (default: the bundled suite)"
    )
    add_target_arguments(inputs)
    inputs.add_argument(
        "--candidate",
        metavar="SPEC",
        help="description to lint: git:<ref> or a SKILL.md path (default: the working tree)",
    )
    made.add_argument(
        "--strict",
        action="store_true",
        help="hold the cases to the bundled suite's policy: every positive has a negative "
        "twin, all four groups are used (always on for the bundled suite)",
    )
    made.add_argument("--debug", action="store_true", help="show the traceback of a crash")
    return made


def report_parser() -> argparse.ArgumentParser:
    made = parser(
        "activation report",
        "Render a saved JSON report again, in any format, without a model call; with no "
        "format flag it prints the terminal view. Exit 0 once rendered (the saved run's own "
        "exit code is in the report), 2 when FILE is not a report. "
        "Example: activation report report.json --html report.html --junit junit.xml",
    )
    made.add_argument("file", type=Path, metavar="FILE", help="a report written with --json")
    add_report_outputs(made.add_argument_group("outputs"))
    made.add_argument("--debug", action="store_true", help="show the traceback of a crash")
    return made


def diff_parser() -> argparse.ArgumentParser:
    made = parser(
        "activation diff",
        "Compare two saved runs of the same suite (main last week and main today, or two "
        "models): per case the counts and statuses side by side, what moved, and the figures "
        "per variant. Exit 1 when a case that passed in OLD (PASS or IMPROVED) is REGRESSED "
        "or FAIL in NEW, else 0; 2 when a file is not a report. "
        "Example: activation diff last-week.json today.json",
    )
    made.add_argument("old", type=Path, metavar="OLD", help="the earlier report (--json)")
    made.add_argument("new", type=Path, metavar="NEW", help="the later report (--json)")
    made.add_argument("--debug", action="store_true", help="show the traceback of a crash")
    return made


def merge_parser() -> argparse.ArgumentParser:
    made = parser(
        "activation merge",
        "Merge the JSON reports of a run's shards (--shard I/N) into the report of the whole "
        "run: every verdict and the false-discovery step recomputed across all cases. Exit 1 "
        "when a case regressed, 3 when shards are missing or a case errored, 2 when the "
        "reports are not shards of one run. "
        "Example: activation merge shard-*.json --json report.json --junit junit.xml",
    )
    made.add_argument("reports", nargs="+", type=Path, metavar="REPORT", help="shard reports")
    outputs = made.add_argument_group("outputs")
    outputs.add_argument("--json", type=Path, metavar="PATH", help="write the merged JSON report")
    add_report_outputs(outputs)
    outputs.add_argument(
        "--no-summary",
        action="store_true",
        help="do not append the Markdown summary to $GITHUB_STEP_SUMMARY (appended when set)",
    )
    made.add_argument("--debug", action="store_true", help="show the traceback of a crash")
    return made


CONFIGURED = {"run": run_parser, "calibrate": calibrate_parser, "lint": lint_parser}
"""The commands that read the settings file and the environment."""
