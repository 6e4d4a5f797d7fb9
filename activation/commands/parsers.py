"""Every command's flags, in one light module.

The settings file and `ACTIVATION_*` variables take their keys from these definitions (see
config.py), so a flag added here is configurable with no other change; and `lint` can tell a
key of another command from a typo without importing the heavier commands.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from activation._config import BASELINE, SUMMARY_ENV
from activation.commands.arguments import (
    CASES,
    CONFIG_EPILOG,
    REPORT_OUTPUTS,
    RUN_EPILOG,
    RUN_SECTIONS,
    TARGET,
    Flag,
    Section,
    parser,
    switch,
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
CALIBRATE_DESCRIPTION = (
    "Run the suite against a narrow control, a broad control and the real description "
    "itself; exit 0 only when both controls are caught and A/A is quiet. "
    "Example: activation calibrate --trials 5 --record"
)
LINT_DESCRIPTION = (
    "Static checks on a case matrix and a skill description; no model call. "
    "Example: activation lint --cases my-cases.json --strict"
)
LINT_EPILOG = (
    "The bundled suite's policy (--strict): every positive has a negative twin, and all "
    "four groups are used. " + CONFIG_EPILOG
)
REPORT_DESCRIPTION = (
    "Render a saved JSON report again, in any format, without a model call; with no "
    "format flag it prints the terminal view. Exit 0 once rendered (the saved run's own "
    "exit code is in the report), 2 when FILE is not a report. "
    "Example: activation report report.json --html report.html --junit junit.xml"
)
DIFF_DESCRIPTION = (
    "Compare two saved runs of the same suite (main last week and main today, or two "
    "models): per case the counts and statuses side by side, what moved, and the figures "
    "per variant. Exit 1 when a case that passed in OLD (PASS or IMPROVED) is REGRESSED "
    "or FAIL in NEW, else 0; 2 when a file is not a report. "
    "Example: activation diff last-week.json today.json"
)
MERGE_DESCRIPTION = (
    "Merge the JSON reports of a run's shards (--shard I/N) into the report of the whole "
    "run: every verdict and the false-discovery step recomputed across all cases. Exit 1 "
    "when a case regressed, 3 when shards are missing or a case errored, 2 when the "
    "reports are not shards of one run. "
    "Example: activation merge shard-*.json --json report.json --junit junit.xml"
)

RECORDS = Path("calibration/records")
NARROW = BUNDLED_CONTROLS / "narrow" / "SKILL.md"
BROAD = BUNDLED_CONTROLS / "broad" / "SKILL.md"
BUNDLED = "the bundled one, written for auth0"
SPEC = "git:<ref> or a SKILL.md path"
ONLY = Flag("--only", "IDS", "comma-separated case ids", parse_only)
NO_SUMMARY = switch("--no-summary", f"do not append the Markdown summary to ${SUMMARY_ENV}")
DEBUG = switch("--debug", "show the traceback of a crash")

RUN_INPUTS = (
    Flag("--baseline", "SPEC", SPEC, default=BASELINE),
    Flag("--candidate", "SPEC", SPEC, shown="the working-tree SKILL.md"),
    ONLY,
)
RUN_OPTIONS = (
    switch("--dry-run", "validate, plan and show every setting with its source; no model call"),
    DEBUG,
)
RUN: tuple[Section, ...] = (
    *RUN_SECTIONS,
    ("inputs", RUN_INPUTS),
    ("outputs", (*REPORT_OUTPUTS, NO_SUMMARY)),
    (None, RUN_OPTIONS),
)
CALIBRATE_INPUTS = (
    Flag("--baseline", "SPEC", "the real description: " + SPEC, shown="the working tree"),
    Flag("--narrow", "PATH", "the narrow control's SKILL.md", Path, NARROW, shown=BUNDLED),
    Flag("--broad", "PATH", "the broad control's SKILL.md", Path, BROAD, shown=BUNDLED),
    ONLY,
)
CALIBRATE_OUTPUTS = (
    Flag("--record", "DIR", "add a dated JSON and Markdown entry", Path, nargs="?", const=RECORDS),
)
CALIBRATE: tuple[Section, ...] = (
    *RUN_SECTIONS,
    ("inputs", CALIBRATE_INPUTS),
    ("outputs", CALIBRATE_OUTPUTS),
    (None, (DEBUG,)),
)
LINT_INPUTS = (
    CASES,
    *TARGET,
    Flag("--candidate", "SPEC", "description to lint: " + SPEC, shown="the working tree"),
)
STRICT = switch("--strict", "hold the cases to the bundled suite's policy (always on for it)")
LINT: tuple[Section, ...] = (("inputs", LINT_INPUTS), (None, (STRICT, DEBUG)))
REPORT: tuple[Section, ...] = (
    (None, (Flag("file", "FILE", "a report written with --json", Path),)),
    ("outputs", REPORT_OUTPUTS),
    (None, (DEBUG,)),
)
DIFF_REPORTS = (
    Flag("old", "OLD", "the earlier report (--json)", Path),
    Flag("new", "NEW", "the later report (--json)", Path),
)
DIFF: tuple[Section, ...] = ((None, (*DIFF_REPORTS, DEBUG)),)
MERGE_OUTPUTS = (Flag("--json", "PATH", "write the merged JSON report", Path), *REPORT_OUTPUTS)
MERGE: tuple[Section, ...] = (
    (None, (Flag("reports", "REPORT", "shard reports", Path, nargs="+"),)),
    ("outputs", (*MERGE_OUTPUTS, NO_SUMMARY)),
    (None, (DEBUG,)),
)


def run_parser() -> argparse.ArgumentParser:
    return parser("activation", RUN_DESCRIPTION, RUN_EPILOG, RUN)


def calibrate_parser() -> argparse.ArgumentParser:
    return parser("activation calibrate", CALIBRATE_DESCRIPTION, RUN_EPILOG, CALIBRATE)


def lint_parser() -> argparse.ArgumentParser:
    return parser("activation lint", LINT_DESCRIPTION, LINT_EPILOG, LINT)


def report_parser() -> argparse.ArgumentParser:
    return parser("activation report", REPORT_DESCRIPTION, sections=REPORT)


def diff_parser() -> argparse.ArgumentParser:
    return parser("activation diff", DIFF_DESCRIPTION, sections=DIFF)


def merge_parser() -> argparse.ArgumentParser:
    return parser("activation merge", MERGE_DESCRIPTION, sections=MERGE)


CONFIGURED = {"run": run_parser, "calibrate": calibrate_parser, "lint": lint_parser}
"""The commands that read the settings file and the environment."""
