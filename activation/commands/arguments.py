"""Argument parsing shared by every command: one clear line and exit 2 for a bad flag, and
`--help` grouped by purpose (inputs, trials, outputs, Stage B) with rich formatting.

Every default shown in `--help` comes from `_config`, the only place defaults live, and is
printed from the value the flag is given (see `Flag`), so the two cannot drift apart.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from rich.markup import escape
from rich_argparse import RichHelpFormatter

from activation import __version__, _config
from activation._config import (
    ALPHA,
    CACHE_ENV,
    CACHE_TTL,
    CLAUDE,
    CONCURRENCY,
    MAX_TRIALS,
    MAX_TURNS,
    MODEL,
    PLUGINS_DIR,
    SEED,
    SKILL_PATH,
    TIMEOUT,
    TRIALS,
)
from activation._errors import InputError
from activation._models import AgentSettings, RunSpec

CONFIG_EPILOG = escape(
    f"Every option can also be set in {_config.CONFIG_FILE} (or [tool.activation] in "
    f"{_config.PYPROJECT}) at the target repo's root, its key the flag without --, or as "
    f"{_config.ENV_PREFIX}<KEY> (upper case, - as _). The command line wins, then the "
    "environment, then the file, then the defaults shown here."
)
RUN_EPILOG = (
    "A suspicious case escalates to more trials per variant, up to --max-trials (equal to "
    "--trials turns escalation off). --price-in and --price-out price a model the price table "
    "lacks. --max-cost-usd counts the cost so far plus the trials in flight; the trials it "
    "keeps from starting are errors (exit 3). --resume collects the batches an interrupted "
    "--batch run on the same inputs submitted, instead of paying for them again. "
) + CONFIG_EPILOG
"""Run and calibrate's epilog: what their flags' one-line help leaves out, then the settings."""


class HelpFormatter(RichHelpFormatter):
    """Rich help, with the group names as written ("Stage B (--real)", not title case)."""

    group_name_formatter = staticmethod(lambda name: name[:1].upper() + name[1:])


class OneLineParser(argparse.ArgumentParser):
    """Bad flags get one clear line and exit 2, not a usage block; help is rich-formatted."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def positive_int(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {number}")
    return number


def positive_float(value: str) -> float:
    number = float(value)
    if not number > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {value}")
    return number


def duration(value: str) -> float:
    from activation.inputs.durations import parse_duration

    try:
        return parse_duration(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def non_negative_float(value: str) -> float:
    number = float(value)
    if not number >= 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return number


def probability(value: str) -> float:
    number = float(value)
    if not 0 < number < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {number}")
    return number


def shard(value: str) -> tuple[int, int]:
    """`I/N`: shard I of N, counted from 1."""
    index, _, count = value.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count):
        raise argparse.ArgumentTypeError(f"must be I/N with 1 <= I <= N, like 2/3; got {value!r}")
    return int(index), int(count)


def non_empty(value: str) -> str:
    if not value.strip():
        raise argparse.ArgumentTypeError("must not be empty")
    return value


@dataclass(frozen=True)
class Flag:
    """One option as data, so a command's flags read as a table and the help's default is
    generated from the value itself: `default`, or `shown` where argparse's default is None
    (the value is settled later) or is not worth printing (a bundled file's full path)."""

    name: str
    metavar: str | None
    help: str
    type: Callable[[str], object] | None = None
    default: object = None
    shown: object = None
    action: str = "store"
    nargs: str | None = None
    const: object = None

    @property
    def help_text(self) -> str:
        if self.nargs == "?" and self.const is not None:
            return f"{self.help} (default {self.metavar}: {show(self.const)})"
        value = self.default if self.shown is None else self.shown
        return self.help if value is None else f"{self.help} ({show(value)})"


def switch(name: str, help: str) -> Flag:
    return Flag(name, None, help, action="store_true")


def show(value: object) -> str:
    """A default as help prints it: 300.0 as 300, a mapping as its value per stage."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return ", ".join(f"Stage {stage}: {show(each)}" for stage, each in value.items())
    return str(value)


Section = tuple[str | None, Sequence[Flag]]
"""A help group's title (None: the parser's own options) and the flags filed under it."""


def add_flags(group: argparse._ActionsContainer, flags: Iterable[Flag]) -> None:
    for flag in flags:
        given = {
            "type": flag.type,
            "metavar": flag.metavar,
            "default": flag.default,
            "nargs": flag.nargs,
            "const": flag.const,
        }
        options = {key: value for key, value in given.items() if value is not None}
        group.add_argument(flag.name, action=flag.action, help=flag.help_text, **options)


def parser(
    prog: str, description: str, epilog: str | None = None, sections: Iterable[Section] = ()
) -> OneLineParser:
    """A command's parser. Each section's flags go to the group of that title, made when the
    title first comes (None: the parser's own options), so a command adds its own flags to
    the groups of the shared ones."""
    made = OneLineParser(
        prog=prog, description=description, epilog=epilog, formatter_class=HelpFormatter
    )
    made.add_argument("-V", "--version", action="version", version=f"activation {__version__}")
    groups: dict[str | None, argparse._ActionsContainer] = {None: made}
    for title, flags in sections:
        if title not in groups:
            groups[title] = made.add_argument_group(title)
        add_flags(groups[title], flags)
    return made


SKILL_DEFAULT = f"{SKILL_PATH}, or the only SKILL.md under {PLUGINS_DIR}/"
TARGET = (
    Flag("--repo", "DIR", "target repo", Path, shown="git root of the cwd"),
    Flag("--skill-path", "PATH", "SKILL.md relative to the repo", shown=SKILL_DEFAULT),
)
CASES = Flag("--cases", "FILE", "cases file", Path, shown="the bundled suite")
MATRIX_INPUTS = (
    *TARGET,
    CASES,
    Flag("--distractors", "DIR", "distractor skills folder", Path, shown="the bundled ones"),
    Flag("--shard", "I/N", "run only shard I of N of the cases (see `activation merge`)", shard),
)
TRIAL_OPTIONS = (
    Flag("--trials", "N", "trials per case and variant in the first round", positive_int, TRIALS),
    Flag("--max-trials", "N", "trials per variant on escalation", positive_int, shown=MAX_TRIALS),
    Flag("--model", "ID", "model id", non_empty, shown={"A": MODEL, "B": "the CLI's own default"}),
    Flag("--seed", "N", "menu shuffle seed", int, SEED),
    Flag("--alpha", "P", "significance level, on q-values across the run", probability, ALPHA),
    Flag("--concurrency", "N", "trials in flight at once", positive_int, shown=CONCURRENCY),
    switch("--batch", "Stage A through the Message Batches API: half the price, within hours"),
    switch("--resume", "with --batch: collect the batches an interrupted run submitted"),
)
CACHE_DIR_DEFAULT = f"${CACHE_ENV}, else the user cache directory"
CACHE_DIR = Flag("--cache-dir", "DIR", "response cache folder", Path, shown=CACHE_DIR_DEFAULT)
COST_AND_CACHE = (
    CACHE_DIR,
    switch("--no-cache", "neither read nor write the response cache"),
    Flag("--cache-ttl", "AGE", "reuse cached answers younger than AGE", duration, CACHE_TTL),
    Flag("--price-in", "USD", "US dollars per million input tokens", non_negative_float),
    Flag("--price-out", "USD", "US dollars per million output tokens", non_negative_float),
    Flag("--max-cost-usd", "USD", "start no trial that could pass this cost", positive_float),
)
REPORT_OUTPUTS = (
    Flag("--junit", "PATH", "write JUnit XML: one testcase per case", Path),
    Flag("--markdown", "PATH", "write the Markdown summary (fits a pull-request comment)", Path),
    Flag("--html", "PATH", "write one self-contained HTML report", Path),
)
STAGE_B_OPTIONS = (
    switch("--real", "Stage B: run the real Claude Code CLI"),
    Flag("--claude", "PATH", "Claude Code executable", default=CLAUDE),
    Flag("--max-turns", "N", "agent turns per run", positive_int, MAX_TURNS),
    Flag("--timeout", "SECONDS", "seconds per run", positive_float, TIMEOUT),
)
RUN_SECTIONS: tuple[Section, ...] = (
    ("inputs", MATRIX_INPUTS),
    ("trials", TRIAL_OPTIONS),
    ("cost and cache", COST_AND_CACHE),
    ("outputs", (Flag("--json", "PATH", "write the JSON report (also on a crash)", Path),)),
    ("Stage B (--real)", STAGE_B_OPTIONS),
)
"""The flags of every command that runs the matrix (the main one and `calibrate`)."""


def spec_from(args: argparse.Namespace) -> RunSpec:
    stage = "B" if args.real else "A"
    if args.max_trials is not None and args.max_trials < args.trials:
        raise InputError(
            f"--max-trials {args.max_trials} is below --trials {args.trials}: "
            "escalation cannot run fewer trials than the first round"
        )
    if args.batch and stage == "B":
        raise InputError("--batch is for Stage A: the real agent cannot run in a batch")
    if args.resume and not args.batch:
        raise InputError("--resume picks up an interrupted --batch run: pass --batch too")
    from activation.inputs.load import load_pricing

    spec = RunSpec(
        stage=stage,
        model=args.model or (_config.MODEL if stage == "A" else None),
        trials=args.trials,
        max_trials=args.max_trials or max(_config.MAX_TRIALS, args.trials),
        alpha=args.alpha,
        seed=args.seed,
        concurrency=args.concurrency,
        agent=AgentSettings(args.claude, args.max_turns, args.timeout) if args.real else None,
        pricing=load_pricing(args.price_in, args.price_out),
        max_cost_usd=args.max_cost_usd,
        batch=args.batch,
        resume=args.resume,
    )
    if spec.max_cost_usd is not None and spec.prices is None:
        model = spec.model or "the Claude Code CLI's default model (pass --model)"
        raise InputError(
            f"cannot enforce a cost ceiling without prices for {model}: "
            "pass --price-in and --price-out"
        )
    return spec
