"""Argument parsing shared by every command: one clear line and exit 2 for a bad flag, and
`--help` grouped by purpose (inputs, trials, outputs, Stage B) with rich formatting.

Every default shown in `--help` comes from `_config`, the only place defaults live.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
from typing import NoReturn

from rich.markup import escape
from rich_argparse import RichHelpFormatter

from activation import __version__, _config
from activation._errors import InputError
from activation._models import AgentSettings, RunSpec

CONFIG_EPILOG = escape(
    f"Every option can also be set in {_config.CONFIG_FILE} (or [tool.activation] in "
    f"{_config.PYPROJECT}) at the target repo's root, its key the flag without --, or as "
    f"{_config.ENV_PREFIX}<KEY> (upper case, - as _). The command line wins, then the "
    "environment, then the file, then the defaults shown here."
)


class HelpFormatter(RichHelpFormatter):
    """Rich help, with the group names as written ("Stage B (--real)", not title case)."""

    group_name_formatter = staticmethod(lambda name: name[:1].upper() + name[1:])


class OneLineParser(argparse.ArgumentParser):
    """Bad flags get one clear line and exit 2, not a usage block; help is rich-formatted."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def parser(prog: str, description: str, epilog: str | None = None) -> OneLineParser:
    made = OneLineParser(
        prog=prog, description=description, epilog=epilog, formatter_class=HelpFormatter
    )
    made.add_argument("-V", "--version", action="version", version=f"activation {__version__}")
    return made


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
class Groups:
    """The help sections a matrix-running command's flags are filed under."""

    inputs: argparse._ArgumentGroup
    trials: argparse._ArgumentGroup
    cost: argparse._ArgumentGroup
    outputs: argparse._ArgumentGroup
    stage_b: argparse._ArgumentGroup


def add_target_arguments(group: argparse._ActionsContainer) -> None:
    group.add_argument(
        "--repo", type=Path, metavar="DIR", help="target repo (default: git root of the cwd)"
    )
    group.add_argument(
        "--skill-path",
        metavar="PATH",
        help=f"SKILL.md relative to the repo (default: {_config.SKILL_PATH}, "
        f"or the only SKILL.md under {_config.PLUGINS_DIR}/)",
    )


def add_run_arguments(parser: argparse.ArgumentParser) -> Groups:
    """The flags of every command that runs the matrix (the main one and `calibrate`)."""
    groups = Groups(
        inputs=parser.add_argument_group("inputs"),
        trials=parser.add_argument_group("trials"),
        cost=parser.add_argument_group("cost and cache"),
        outputs=parser.add_argument_group("outputs"),
        stage_b=parser.add_argument_group("Stage B (--real)"),
    )
    add_target_arguments(groups.inputs)
    groups.inputs.add_argument(
        "--cases", type=Path, metavar="FILE", help="cases file (default: the bundled suite)"
    )
    groups.inputs.add_argument(
        "--distractors",
        type=Path,
        metavar="DIR",
        help="distractor skills folder (default: the bundled ones)",
    )
    groups.inputs.add_argument(
        "--shard",
        type=shard,
        metavar="I/N",
        help="run only shard I of N of the cases (merge the reports with `activation merge`)",
    )
    trials = groups.trials
    trials.add_argument(
        "--trials",
        type=positive_int,
        metavar="N",
        default=_config.TRIALS,
        help=f"trials per case and variant in the first round ({_config.TRIALS})",
    )
    trials.add_argument(
        "--max-trials",
        type=positive_int,
        metavar="N",
        help=f"trials per variant a suspicious case may escalate to ({_config.MAX_TRIALS}; "
        "equal to --trials turns escalation off)",
    )
    trials.add_argument(
        "--model",
        type=non_empty,
        metavar="ID",
        help=f"model id (Stage A: {_config.MODEL}; Stage B: the CLI's own default)",
    )
    trials.add_argument(
        "--seed",
        type=int,
        metavar="N",
        default=_config.SEED,
        help=f"menu shuffle seed ({_config.SEED})",
    )
    trials.add_argument(
        "--alpha",
        type=probability,
        metavar="P",
        default=_config.ALPHA,
        help=f"significance level, on q-values across the run ({_config.ALPHA})",
    )
    concurrency = ", ".join(f"Stage {stage}: {n}" for stage, n in _config.CONCURRENCY.items())
    trials.add_argument(
        "--concurrency",
        type=positive_int,
        metavar="N",
        help=f"trials in flight at once ({concurrency})",
    )
    trials.add_argument(
        "--batch",
        action="store_true",
        help="Stage A through the Message Batches API: half the price, results within hours",
    )
    trials.add_argument(
        "--resume",
        action="store_true",
        help="with --batch: collect the batches an interrupted run on the same inputs "
        "submitted, instead of paying for them again",
    )
    add_cache_arguments(groups.cost)
    add_cost_arguments(groups.cost)
    groups.outputs.add_argument(
        "--json", type=Path, metavar="PATH", help="write the JSON report (also on a crash)"
    )
    stage_b = groups.stage_b
    stage_b.add_argument(
        "--real", action="store_true", help="Stage B: run the real Claude Code CLI"
    )
    stage_b.add_argument(
        "--claude",
        metavar="PATH",
        default=_config.CLAUDE,
        help=f"Claude Code executable ({_config.CLAUDE})",
    )
    stage_b.add_argument(
        "--max-turns",
        type=positive_int,
        metavar="N",
        default=_config.MAX_TURNS,
        help=f"agent turns per run ({_config.MAX_TURNS})",
    )
    stage_b.add_argument(
        "--timeout",
        type=positive_float,
        metavar="SECONDS",
        default=_config.TIMEOUT,
        help=f"seconds per run ({_config.TIMEOUT:g})",
    )
    return groups


def add_cache_folder_argument(group: argparse._ActionsContainer) -> None:
    group.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=f"response cache folder (default: ${_config.CACHE_ENV}, else the user cache "
        "directory)",
    )


def add_cache_arguments(group: argparse._ActionsContainer) -> None:
    add_cache_folder_argument(group)
    group.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the response cache"
    )
    group.add_argument(
        "--cache-ttl",
        type=duration,
        default=_config.CACHE_TTL,
        metavar="AGE",
        help=f"reuse cached answers younger than AGE, e.g. 7d, 12h ({_config.CACHE_TTL})",
    )


def add_cost_arguments(group: argparse._ActionsContainer) -> None:
    group.add_argument(
        "--price-in",
        type=non_negative_float,
        metavar="USD",
        help="US dollars per million input tokens, for a model the price table lacks",
    )
    group.add_argument(
        "--price-out",
        type=non_negative_float,
        metavar="USD",
        help="US dollars per million output tokens (with --price-in)",
    )
    group.add_argument(
        "--max-cost-usd",
        type=positive_float,
        metavar="USD",
        help="start no trial once the cost so far plus the trials in flight would pass "
        "this; the trials not run are errors (exit 3)",
    )


def add_report_outputs(group: argparse._ActionsContainer) -> None:
    """The report files any run, or a saved report, can be rendered to."""
    group.add_argument(
        "--junit", type=Path, metavar="PATH", help="write JUnit XML: one testcase per case"
    )
    group.add_argument(
        "--markdown",
        type=Path,
        metavar="PATH",
        help="write the Markdown summary (short enough for a pull-request comment)",
    )
    group.add_argument(
        "--html", type=Path, metavar="PATH", help="write one self-contained HTML report"
    )


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
