"""Every command's flags, as data, in one light module: the parsers, `--help` and the settings.

A `Flag` says everything about one option: its help, the converter its text goes through,
its default (the help shows it from the value itself, so the two cannot drift apart) and the
TOML types a settings file may give it. A `Command` is a program's flags in help groups; it
builds the argparse parser, and config.py reads its settings from the same table, so a flag
added here is a key of the settings file and an `ACTIVATION_*` variable with no other change.
Bad flags get one clear line and exit 2; help is grouped by purpose with rich formatting.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from rich.markup import escape
from rich_argparse import RichHelpFormatter

from activation import __version__, _config
from activation._config import (
    AGENT,
    AGENT_CONCURRENCY,
    ALPHA,
    BASELINE,
    CACHE_ENV,
    CACHE_TTL,
    CONCURRENCY,
    MAX_CONCURRENCY,
    MAX_TRIALS,
    MAX_TURNS,
    MIN_COVERAGE,
    MODEL,
    SANDBOX_IMAGE,
    SEED,
    SKILL_PATH,
    SUMMARY_ENV,
    TIMEOUT,
    TRIALS,
)
from activation._models import COST_FAILS, NO_LIFT_FAILS, WEAKENED_FAILS
from activation.inputs.cases import parse_only
from activation.inputs.formats import FORMATS
from activation.inputs.target import WHERE
from activation.trials.agents import every, known
from activation.trials.executor import LOCAL, parse_executor

# --- converters: text in, a value out (or argparse.ArgumentTypeError) ----------------------


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


def share(value: str) -> float:
    number = float(value)
    if not 0 <= number <= 1:
        raise argparse.ArgumentTypeError(f"must be from 0 to 1, got {value}")
    return number


def distractors_choice(value: str) -> Path | str:
    """`--distractors`: a folder, a bundled set's name, or `none` (no distractor at all)."""
    from activation.inputs.distractors import choose_distractors

    return choose_distractors(value)


def duration(value: str) -> float:
    from activation.inputs.durations import parse_duration

    try:
        return parse_duration(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def shard(value: str) -> tuple[int, int]:
    """`I/N`: shard I of N, counted from 1."""
    index, _, count = value.partition("/")
    if not (index.isdigit() and count.isdigit()) or not 1 <= int(index) <= int(count):
        raise argparse.ArgumentTypeError(f"must be I/N with 1 <= I <= N, like 2/3; got {value!r}")
    return int(index), int(count)


def listed(value: str) -> tuple[str, ...]:
    """`a,b`: the items, in order, without blanks or repeats; at least one."""
    items = tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))
    if not items:
        raise argparse.ArgumentTypeError("must not be empty")
    return items


def agents(value: str) -> tuple[str, ...]:
    """`--agent a,b`: agents this tool knows."""
    names = listed(value)
    unknown = [name for name in names if name not in known()]
    if unknown:
        raise argparse.ArgumentTypeError(
            f"unknown agent {', '.join(unknown)}: choose from {', '.join(known())}"
        )
    return names


def agent_name(value: str) -> str:
    """`--agent NAME`: an agent this tool knows, asked of the registry when the flag is read
    (not when this module is imported), so an agent registered since is one too."""
    if value not in known():
        raise argparse.ArgumentTypeError(f"unknown agent {value}: choose from {', '.join(known())}")
    return value


AUTO = "auto"


def split_shares(value: str) -> tuple[float, float, float]:
    from activation.inputs.splits import parse_shares

    return parse_shares(value)


def concurrency(value: str) -> tuple[int | None, int | None]:
    """`N` (a fixed number in flight), `auto` (adaptive up to MAX_CONCURRENCY) or `auto:N`
    (adaptive up to N): (fixed, ceiling)."""
    text = value.strip().lower()
    if text.isdigit():
        return positive_int(text), None
    if text == AUTO:
        return None, MAX_CONCURRENCY
    if text.startswith(AUTO + ":") and text[len(AUTO) + 1 :].isdigit():
        return None, positive_int(text[len(AUTO) + 1 :])
    raise argparse.ArgumentTypeError(f"must be a number, auto or auto:N; got {value!r}")


# --- flags -----------------------------------------------------------------------------------


Toml = tuple[type, ...]
"""The TOML value types a settings file may give a flag (bool is never an int here)."""
TEXT: Toml = (str,)
INTEGER: Toml = (int,)
NUMBER: Toml = (float,)
"""An integer or a float."""
PATH: Toml = (Path,)
"""A string in the file, read as a path relative to the file."""
SWITCH: Toml = (bool,)


@dataclass(frozen=True)
class Flag:
    """One option (or, named without `--`, a positional argument) as data; `shown` is the
    default the help prints where argparse's default is None (settled later) or not worth
    printing (a bundled file's full path)."""

    name: str
    metavar: str | None
    help: str
    convert: Callable[[str], object] | None = None
    default: object = None
    shown: object = None
    toml: Toml = TEXT
    action: str = "store"
    nargs: str | None = None
    const: object = None
    choices: tuple[str, ...] | None = None
    required: bool = False

    @property
    def key(self) -> str:
        """Its settings key: the long flag without `--`."""
        return self.name.removeprefix("--")

    @property
    def dest(self) -> str:
        return self.key.replace("-", "_")

    @property
    def positional(self) -> bool:
        return not self.name.startswith("--")

    @property
    def takes_value(self) -> bool:
        return self.action in ("store", APPEND)

    @property
    def optional_value(self) -> bool:
        """A flag whose value may be left out (`--record` alone means its `const`)."""
        return self.nargs == "?" and self.const is not None

    @property
    def help_text(self) -> str:
        if self.optional_value and self.const is not True:
            return f"{self.help} (default {self.metavar}: {show(self.const)})"
        value = self.default if self.shown is None else self.shown
        return self.help if value is None else f"{self.help} ({show(value)})"

    def value_of(self, text: str) -> object:
        """The value of `text`, as the command line would read it."""
        return self.convert(text) if self.convert is not None else text


APPEND = "append"
"""A flag given several times keeps every value (`--cases a.json --cases b.json`)."""


class Once(argparse._StoreAction):
    """A flag that takes one value, given twice: one line and exit 2, never the last value
    kept in silence (a flag that takes several says how: comma-separated, or repeated)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        seen: set[str] = parser.__dict__.setdefault("given_once", set())
        if self.dest in seen:
            listed = "," in str(self.metavar) or "comma-separated" in str(self.help)
            several = " (several go comma-separated in one)" if listed else ""
            parser.error(f"{option_string} given twice: it takes one value{several}")
        seen.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


def switch(name: str, help: str) -> Flag:
    return Flag(name, None, help, default=False, toml=SWITCH, action="store_true")


def show(value: object) -> str:
    """A default as help prints it: 300.0 as 300, a mapping as its value per stage."""
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, Mapping):
        return ", ".join(f"Stage {stage}: {show(each)}" for stage, each in value.items())
    return str(value)


Section = tuple[str | None, Sequence[Flag]]
"""A help group's title (None: the parser's own options) and the flags filed under it."""


def capitalised(name: str) -> str:
    return name[:1].upper() + name[1:]


class HelpFormatter(RichHelpFormatter):
    """Rich help, with the group names as written ("Stage B (--real)", not title case)."""

    group_name_formatter = capitalised


class OneLineParser(argparse.ArgumentParser):
    """Bad flags get one clear line and exit 2, not a usage block; help is rich-formatted."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        """Each parse counts the flags given once anew (see `Once`)."""
        self.__dict__["given_once"] = set()
        return super().parse_known_args(args, namespace)


def add_flags(group: argparse._ActionsContainer, flags: Iterable[Flag], marked: bool) -> None:
    """`marked`: options get no default at all, so what the command line gave is told
    apart from what it did not (config.py fills in the rest)."""
    for flag in flags:
        given = {
            "type": flag.convert,
            "metavar": flag.metavar,
            "nargs": flag.nargs,
            "const": flag.const,
            "choices": flag.choices,
        }
        options: dict[str, Any] = {key: value for key, value in given.items() if value is not None}
        if flag.positional:
            group.add_argument(flag.name, help=flag.help_text, **options)
            continue
        default = argparse.SUPPRESS if marked else flag.default
        if flag.required:
            options["required"] = True
        action: str | type[argparse.Action] = Once if flag.action == "store" else flag.action
        group.add_argument(
            flag.name, action=action, help=flag.help_text, default=default, **options
        )


@dataclass(frozen=True)
class Command:
    """A program's flags in help groups, and its parser."""

    prog: str
    description: str
    sections: tuple[Section, ...]
    epilog: str | None = None
    settings: bool = False
    """It reads the settings file (every command reads the `ACTIVATION_*` variables)."""
    actions: Mapping[str, Command] = field(default_factory=dict)
    """Sub-actions (`cache info`, `cache clear`), each with flags of its own."""

    @property
    def flags(self) -> tuple[Flag, ...]:
        """Every flag once (a flag may be filed in a section twice by shared tables)."""
        found: dict[str, Flag] = {}
        for _title, flags in self.sections:
            for flag in flags:
                found.setdefault(flag.name, flag)
        return tuple(found.values())

    @property
    def options(self) -> dict[str, Flag]:
        """Key -> flag of every option (positionals aside)."""
        return {flag.key: flag for flag in self.flags if not flag.positional}

    def parser(self, marked: bool = False) -> OneLineParser:
        """Each section's flags go to the group of that title, made when the title first
        comes (None: the parser's own options)."""
        made = OneLineParser(
            prog=self.prog,
            description=self.description,
            epilog=self.epilog,
            formatter_class=HelpFormatter,
        )
        made.add_argument("-V", "--version", action="version", version=f"activation {__version__}")
        groups: dict[str | None, argparse._ActionsContainer] = {None: made}
        for title, flags in self.sections:
            if title not in groups:
                groups[title] = made.add_argument_group(title)
            add_flags(groups[title], flags, marked)
        if self.actions:
            names = "{" + ",".join(self.actions) + "}"
            chosen = made.add_subparsers(dest="action", required=True, metavar=names)
            for name, action in self.actions.items():
                sub = chosen.add_parser(name, help=action.description)
                for _title, flags in action.sections:
                    add_flags(sub, flags, marked)
        return made

    def parse(self, argv: Sequence[str]) -> argparse.Namespace:
        return self.parser().parse_args(list(argv))


class SwitchParser(argparse.ArgumentParser):
    """Reads a command line only to find one switch: what it cannot read raises, never exits."""

    def error(self, message: str) -> NoReturn:
        raise argparse.ArgumentError(None, message)


def switch_given(name: str, commands: Iterable[Command], argv: Sequence[str]) -> bool:
    """Whether `argv` gives the switch `name` as argparse reads a command line of every
    flag of `commands`: an abbreviation counts, a flag's value or a word after `--` does
    not. What picks a command's mode (`calibrate --behavior`) before the mode's own parser
    reads the line; a line argparse cannot read picks none, and the parser then says why."""
    known = {flag.name: flag for command in commands for flag in command.flags}
    parser = SwitchParser(add_help=False, exit_on_error=False)
    for flag in known.values():
        if flag.positional:
            continue
        if flag.takes_value:
            parser.add_argument(flag.name, dest=flag.dest, nargs="?")
        else:
            parser.add_argument(flag.name, dest=flag.dest, action="store_true")
    try:
        found, _rest = parser.parse_known_args(list(argv))
    except argparse.ArgumentError:
        return False
    return bool(getattr(found, known[name].dest))


# --- the tables -------------------------------------------------------------------------------


CONFIG_EPILOG = escape(
    f"Every option can also be set in {_config.CONFIG_FILE} (or [tool.activation] in "
    f"{_config.PYPROJECT}) at the target repo's root, its key the flag without --, or as "
    f"{_config.ENV_PREFIX}<KEY> (upper case, - as _). The command line wins, then the "
    "environment, then the file, then the defaults shown here."
)
RUN_EPILOG = (
    "A suspicious case escalates to more trials per variant, up to --max-trials (equal to "
    "--trials turns escalation off). --concurrency auto lets Stage A's limit grow while the "
    "API keeps up and halve on a 429 or 529 (auto:N caps it at N); a number fixes it. "
    "--price-in and --price-out price a model the price table lacks. --max-cost-usd counts "
    "the cost so far plus the trials in flight; the trials it keeps from starting are errors "
    "(exit 3). --resume collects the batches an interrupted --batch run on the same inputs "
    "submitted, instead of paying for them again. --model mock answers offline, with no key, "
    "by word overlap: it shows the tool working and says nothing about a real agent. "
) + CONFIG_EPILOG
"""Run and calibrate's epilog: what their flags' one-line help leaves out, then the settings."""

SKILL_DEFAULT = f"{SKILL_PATH}, or the only skill found under {WHERE}"
TARGET = (
    Flag("--repo", "DIR", "target repo", Path, shown="git root of the cwd", toml=PATH),
    Flag(
        "--skill-path",
        "PATH",
        "SKILL.md or its folder, relative to --repo (not to the current folder)",
        shown=SKILL_DEFAULT,
    ),
)
CASES_HELP = (
    "cases file, relative to the current folder (not to --repo); repeat it, or give a comma "
    "list or a folder, for several"
)
CASES = Flag(
    "--cases",
    "FILE",
    CASES_HELP,
    Path,
    shown="the bundled suite; the main command first looks for the repo's own",
    toml=PATH,
    action=APPEND,
)
CASES_FORMAT = Flag(
    "--cases-format",
    "NAME",
    "the cases file's format (see docs/formats.md)",
    choices=FORMATS,
    shown="told by the file's shape",
)
DISTRACTORS = Flag(
    "--distractors",
    "DIR|generic|auth0|none",
    "distractor skills: a folder of *.md skills, a bundled set (generic: common developer "
    "skills tied to no vendor; auth0: the bundled suite's), or none",
    distractors_choice,
    shown="none for a set with siblings or with --catalog; for a lone skill the generic set "
    "(the auth0 set for the bundled auth0 skill)",
    toml=PATH,
)
CATALOG = Flag(
    "--catalog",
    "DIR",
    "other installed skills the menu lists too (<name>/SKILL.md, a plugin's folder, "
    "or <plugin>/skills/...)",
    Path,
    toml=PATH,
)
SHARD = Flag("--shard", "I/N", "run only shard I of N of the cases (see `activation merge`)", shard)
DURATIONS = Flag(
    "--durations",
    "REPORT",
    "plan --shard's shards by the trial durations a saved JSON report recorded (longest "
    "case first onto the least-loaded shard), not by a hash of each case",
    Path,
    toml=PATH,
)
MATRIX_INPUTS = (*TARGET, CASES, CASES_FORMAT, DISTRACTORS, CATALOG, SHARD, DURATIONS)
RESUME_HELP = (
    "finish the interrupted run the JSON report REPORT holds: its finished trials are kept, "
    "only the missing ones run"
)
RESUME = Flag(
    "--resume",
    "REPORT",
    f"{RESUME_HELP}; alone, with --batch: collect the batches an interrupted run submitted",
    Path,
    default=False,
    nargs="?",
    const=True,
    toml=(bool, Path),
)
"""The main run's `--resume`: a report to finish, or (alone) `--batch`'s own."""
BATCH_RESUME = replace(
    RESUME,
    metavar=None,
    help="with --batch: collect the batches an interrupted run submitted",
    convert=None,
    nargs=None,
    const=None,
    toml=SWITCH,
    action="store_true",
)
"""`--resume` of the commands that finish no report (calibrate, suggest, changed)."""
CONCURRENCY_SHOWN = {
    "A": f"auto: from {CONCURRENCY}, up to {MAX_CONCURRENCY}",
    "B": AGENT_CONCURRENCY,
}
TRIALS_FLAG = Flag(
    "--trials",
    "N",
    "trials per case and variant in the first round",
    positive_int,
    TRIALS,
    toml=INTEGER,
)
MAX_TRIALS_FLAG = Flag(
    "--max-trials",
    "N",
    "trials per variant on escalation",
    positive_int,
    shown=MAX_TRIALS,
    toml=INTEGER,
)
SEED_FLAG = Flag("--seed", "N", "menu shuffle seed", int, SEED, toml=INTEGER)
ALPHA_FLAG = Flag(
    "--alpha",
    "P",
    "significance level, on q-values across the run",
    probability,
    ALPHA,
    toml=NUMBER,
)
AGENTS_FLAG = Flag(
    "--agent",
    "NAME[,NAME]",
    f"the agent, or several (one cell each), whose listing and load action are measured: "
    f"{', '.join(known())}",
    agents,
    default=(AGENT,),
    shown=AGENT,
)
FAIL_ON_FLAG = Flag(
    "--fail-on",
    "STATUS",
    "also fail the gate (exit 1) on WEAKENED cases",
    choices=("weakened",),
)
MIN_COVERAGE_FLAG = Flag(
    "--min-coverage",
    "SHARE",
    "judge no cell with less of its planned trials scored (errors are not): exit 3",
    share,
    MIN_COVERAGE,
    toml=NUMBER,
)
MODEL_FLAG = Flag(
    "--model",
    "ID[,ID]",
    "model id, or several (one cell each); mock: the offline mock model; "
    "openai:<id>: an OpenAI model; openai-compatible:<id>: a model on the server at "
    "ACTIVATION_OPENAI_COMPATIBLE_BASE_URL (vLLM, llama.cpp)",
    listed,
    shown={"A": MODEL, "B": "the CLI's own default"},
)
CONCURRENCY_FLAG = Flag(
    "--concurrency",
    "N|auto[:N]",
    "trials in flight at once",
    concurrency,
    shown=CONCURRENCY_SHOWN,
    toml=(int, str),
)
TRIAL_OPTIONS = (
    TRIALS_FLAG,
    MAX_TRIALS_FLAG,
    MODEL_FLAG,
    SEED_FLAG,
    ALPHA_FLAG,
    CONCURRENCY_FLAG,
    AGENTS_FLAG,
    FAIL_ON_FLAG,
    MIN_COVERAGE_FLAG,
    switch("--batch", "Stage A through the Message Batches API: half the price, within hours"),
    BATCH_RESUME,
)
CACHE_DIR_DEFAULT = f"${CACHE_ENV}, else the user cache directory"
CACHE_DIR = Flag(
    "--cache-dir", "DIR", "response cache folder", Path, shown=CACHE_DIR_DEFAULT, toml=PATH
)
COST_AND_CACHE = (
    CACHE_DIR,
    switch("--no-cache", "neither read nor write the response cache"),
    Flag("--cache-ttl", "AGE", "reuse cached answers younger than AGE", duration, CACHE_TTL),
    Flag(
        "--price-in",
        "USD",
        "US dollars per million input tokens",
        non_negative_float,
        toml=NUMBER,
    ),
    Flag(
        "--price-out",
        "USD",
        "US dollars per million output tokens",
        non_negative_float,
        toml=NUMBER,
    ),
    Flag(
        "--max-cost-usd",
        "USD",
        "start no trial that could pass this cost",
        positive_float,
        toml=NUMBER,
    ),
)
HTML = Flag("--html", "PATH", "write one self-contained HTML report", Path, toml=PATH)
REPORTS = Flag("reports", "REPORT", "shard reports", Path, nargs="+")
REPORT_OUTPUTS = (
    Flag("--junit", "PATH", "write JUnit XML: one testcase per case", Path, toml=PATH),
    Flag(
        "--markdown",
        "PATH",
        "write the Markdown summary (fits a pull-request comment)",
        Path,
        toml=PATH,
    ),
    HTML,
)
AGAINST = Flag(
    "--against",
    "DIR",
    "saved --json reports of the base branch: every output adds each cell's delta from the "
    "last green run (exit 0) among them that ran it",
    Path,
    toml=PATH,
)
SHOW = Flag(
    "--show",
    "ROWS",
    "the terminal's case table: every row, or the flagged ones (auto: all up to 50 cases)",
    default="auto",
    choices=("auto", "all", "flagged"),
)
JSON = Flag(
    "--json",
    "PATH",
    "write the JSON report (also on a crash); gzipped when PATH ends in .gz",
    Path,
    toml=PATH,
)
FULL_RECORD = switch(
    "--full-record",
    "keep every trial's detail in the JSON report (evidence, usage, transcript); by default "
    "only flagged cases' trials keep theirs",
)
MAX_TURNS_FLAG = Flag(
    "--max-turns", "N", "agent turns per run", positive_int, MAX_TURNS, toml=INTEGER
)
TIMEOUT_FLAG = Flag("--timeout", "SECONDS", "seconds per run", positive_float, TIMEOUT, toml=NUMBER)
STAGE_B_OPTIONS = (
    switch("--real", f"Stage B: run the real agent CLI ({', '.join(a.title for a in every())})"),
    *(
        Flag(
            agent.flag,
            "PATH",
            f"{agent.title} executable (--agent {agent.name})",
            default=agent.command,
        )
        for agent in every()
    ),
    Flag(
        "--sandbox",
        "docker|bwrap|host|auto",
        "where each agent run happens: docker (a container per run, from --image), bwrap (the "
        "whole CLI under bubblewrap); in either, the workspace and skill copies only, no "
        "network but the model API; host (this machine, contained only by the CLI's own "
        "settings) or auto (docker if its daemon has the image, else bwrap if it runs here, "
        "else host with a warning)",
        choices=("docker", "bwrap", "host", "auto"),
        default="auto",
    ),
    Flag("--image", "NAME", "the container image of --sandbox docker", default=SANDBOX_IMAGE),
    switch(
        "--no-canary",
        "skip each cell's canary: the probe that proves the sandbox's boundary (a write in "
        "the workspace lands, a write outside it, a read of your files and a connection to "
        "another host do not) before any trial; a failed canary makes the cell an "
        "infrastructure ERROR",
    ),
    Flag(
        "--executor",
        "local|ray|ray://HOST:PORT",
        "where each agent run is started: local (this machine), ray (a task on the Ray "
        "cluster at $RAY_ADDRESS, else the one started on this machine) or ray://HOST:PORT "
        "(that cluster, through Ray Client); needs the skill-activation[ray] extra",
        parse_executor,
        default=LOCAL,
    ),
    MAX_TURNS_FLAG,
    TIMEOUT_FLAG,
)
RUN_SECTIONS: tuple[Section, ...] = (
    ("inputs", MATRIX_INPUTS),
    ("trials", TRIAL_OPTIONS),
    ("cost and cache", COST_AND_CACHE),
    ("outputs", (JSON,)),
    ("Stage B (--real)", STAGE_B_OPTIONS),
)
"""The flags of every command that runs the matrix (the main one and `calibrate`)."""

RECORDS = Path("calibration/records")
DERIVED = "one written for the measured skill (the bundled suite: its own)"
SPEC = "git:<ref> or a SKILL.md path"
ONLY = Flag("--only", "IDS", "comma-separated case ids", parse_only)
BASELINE_FLAG = Flag("--baseline", "SPEC", SPEC, default=BASELINE)
CANDIDATE_FLAG = Flag("--candidate", "SPEC", SPEC, shown="the working tree")
VERBOSE = switch("--verbose", "with --dry-run: every case id and every setting")
DRY_RUN = switch(
    "--dry-run",
    "validate, plan and show the settings that differ from their defaults; no model call",
)
ONLY_FROM = Flag(
    "--only-from",
    "REPORT",
    "the cases a saved JSON report flagged (REGRESSED, IMPROVED, WEAKENED, UNSTABLE, ERROR), "
    "as --only",
    Path,
    toml=PATH,
)
NO_SUMMARY = switch("--no-summary", f"do not append the Markdown summary to ${SUMMARY_ENV}")
DEBUG = switch("--debug", "show the traceback of a crash")

RUN = Command(
    "activation",
    "Compare two versions of a skill description on a labelled case matrix and fail when "
    "the candidate makes the skill fire on fewer right prompts or more wrong ones. "
    "Example: activation --baseline git:origin/main --json report.json --html report.html. "
    "Subcommands: behavior, changed, suggest, lint, visibility, detect, calibrate, report, "
    "diff, history, merge, cache, schema, import, example, init, sandbox "
    "(activation SUBCOMMAND --help). To see it work with no API key, try the offline mock "
    "model: activation example billing billing-demo.",
    (
        *(
            (title, tuple(RESUME if flag is BATCH_RESUME else flag for flag in flags))
            for title, flags in RUN_SECTIONS
        ),
        (
            "inputs",
            (
                BASELINE_FLAG,
                replace(CANDIDATE_FLAG, shown="the working-tree SKILL.md"),
                ONLY,
                ONLY_FROM,
            ),
        ),
        ("outputs", (FULL_RECORD, *REPORT_OUTPUTS, AGAINST, NO_SUMMARY, SHOW)),
        (
            None,
            (
                DRY_RUN,
                switch(
                    "--simulate",
                    "with --dry-run: simulate what these settings can detect (a few seconds)",
                ),
                VERBOSE,
                switch(
                    "--show-listing",
                    "with --dry-run: print each cell's skill listing as its agent sends it",
                ),
                DEBUG,
            ),
        ),
    ),
    RUN_EPILOG,
    settings=True,
)
CALIBRATE = Command(
    "activation calibrate",
    "Run the suite against a narrow control, a broad control and the real description "
    "itself; exit 0 only when both controls are caught and A/A is quiet. "
    "Example: activation calibrate --trials 5 --record. A behavior suite (Stage C) has its "
    "own calibration: activation calibrate --behavior --help.",
    (
        *RUN_SECTIONS,
        (
            "inputs",
            (
                replace(
                    BASELINE_FLAG,
                    help="the real description: " + SPEC,
                    default=None,
                    shown="the working tree",
                ),
                Flag(
                    "--narrow",
                    "PATH",
                    "the narrow control's SKILL.md",
                    Path,
                    shown=DERIVED,
                    toml=PATH,
                ),
                Flag(
                    "--broad",
                    "PATH",
                    "the broad control's SKILL.md",
                    Path,
                    shown=DERIVED,
                    toml=PATH,
                ),
                ONLY,
            ),
        ),
        (
            "outputs",
            (
                Flag(
                    "--record",
                    "DIR",
                    "add a dated JSON and Markdown entry",
                    Path,
                    nargs="?",
                    const=RECORDS,
                    toml=PATH,
                ),
                switch(
                    "--agreement",
                    "instead: run Stage A and Stage B on the spot checks, real description "
                    "vs the narrow control, and measure how far the stages agree",
                ),
            ),
        ),
        (
            None,
            (replace(DRY_RUN, help="plan each comparison: cases, cost; no model call"), DEBUG),
        ),
    ),
    RUN_EPILOG,
    settings=True,
)
SKILL_ID = Flag(
    "--skill", "ID", "the skill to improve (an id of the set)", shown="the --skill-path one"
)
"""A skill of the set by its id (`suggest`'s; `init` names its own)."""
BEHAVIOR_SWITCH = switch("--behavior", "calibrate the behavior suite (Stage C)")
"""`calibrate --behavior`; `init --behavior` drafts a behavior skeleton too."""
SUGGEST = Command(
    "activation suggest",
    "Propose better descriptions for a skill from the failures of a train split, keep a "
    "proposal only when the engine finds it better on a select split (in every cell, no "
    "sibling losing a case), and score the chosen one once on a holdback split no step has "
    "seen. Example: activation suggest --skill billing:refunds --rounds 3 --max-cost-usd 5",
    (
        *RUN_SECTIONS,
        (
            "suggest",
            (
                SKILL_ID,
                Flag(
                    "--rounds",
                    "N",
                    "rounds of proposals at most",
                    positive_int,
                    _config.SUGGEST_ROUNDS,
                    toml=INTEGER,
                ),
                Flag(
                    "--proposals",
                    "K",
                    "descriptions proposed each round",
                    positive_int,
                    _config.SUGGEST_PROPOSALS,
                    toml=INTEGER,
                ),
                Flag("--proposer", "ID", "the model that proposes", shown=f"{_config.MODEL}"),
                Flag(
                    "--splits",
                    "T/S/H",
                    "train/select/holdback shares, in percent",
                    split_shares,
                    default=_config.SUGGEST_SHARES,
                    shown="/".join(f"{share:.0%}".rstrip("%") for share in _config.SUGGEST_SHARES),
                ),
                switch(
                    "--write",
                    "replace the description in SKILL.md with the chosen one "
                    "(after the holdback is shown; only when it found no regression)",
                ),
                ONLY,
            ),
        ),
        ("outputs", (*REPORT_OUTPUTS[1:], NO_SUMMARY)),
        (None, (replace(DRY_RUN, help="estimate the cost of the whole run; no model call"), DEBUG)),
    ),
    RUN_EPILOG,
    settings=True,
)
LINT = Command(
    "activation lint",
    "Static checks, no model call. With no flags, the repository's own skills: every "
    "SKILL.md (frontmatter, the files its body refers to, what each agent lists of it) and "
    "every case file found, each with its skill's description and menu; the last line says "
    "what was checked. With --cases or --bundled, that one case matrix and the description "
    "it is measured with. Example: activation lint --cases my-cases.json --strict",
    (
        (
            "inputs",
            (
                replace(
                    CASES,
                    help="one cases file to lint, relative to the current folder (not to "
                    "--repo), instead of the case files found in the repo",
                    shown="the case files found in the repo",
                ),
                switch(
                    "--bundled",
                    "lint the bundled auth0 suite (the bundled cases; with --skill-path, "
                    "against that skill)",
                ),
                CASES_FORMAT,
                *TARGET,
                replace(CANDIDATE_FLAG, help="description to lint: " + SPEC),
                DISTRACTORS,
                CATALOG,
                Flag(
                    "--behavior",
                    "PATH",
                    "behavior cases to lint too: a folder of case files or eval folders",
                    Path,
                    toml=PATH,
                ),
            ),
        ),
        (
            None,
            (
                switch(
                    "--strict",
                    "hold the cases to the suite's policy, a breach an error "
                    "(always on for the bundled suite)",
                ),
                DEBUG,
            ),
        ),
    ),
    "The suite's policy (--strict): every positive has a twin that shares its vocabulary and "
    "belongs elsewhere (a negative; for cases that expect a skill, a case of another skill or "
    "none), and the cases cover every group: the bundled suite's four (keyword-loss, "
    "framework-loss, indirect, negative), or for cases that expect a skill, each skill of "
    "the set and no skill. " + CONFIG_EPILOG,
    settings=True,
)
REPORT = Command(
    "activation report",
    "Render a saved JSON report again, in any format, without a model call; with no "
    "format flag it prints the terminal view. Exit 0 once rendered (the saved run's own "
    "exit code is in the report), 2 when FILE is not a report, 4 when an output cannot be "
    "written. Example: activation report report.json --html report.html --junit junit.xml",
    (
        (None, (Flag("file", "FILE", "a run's or changed's --json report", Path),)),
        ("outputs", (*REPORT_OUTPUTS, SHOW)),
        (None, (DEBUG,)),
    ),
)
DIFF = Command(
    "activation diff",
    "Compare two saved runs of the same suite (main last week and main today, or two "
    "models): per case the counts and statuses side by side, what moved, and the figures "
    "per variant. Exit 1 when a case that passed in OLD (PASS or IMPROVED) is REGRESSED "
    "or FAIL in NEW, else 0; 2 when a file is not a report. "
    "Example: activation diff last-week.json today.json",
    (
        (
            None,
            (
                Flag("old", "OLD", "the earlier report (--json)", Path),
                Flag("new", "NEW", "the later report (--json)", Path),
                DEBUG,
            ),
        ),
    ),
)
HISTORY = Command(
    "activation history",
    "Render saved runs as trends on one static HTML page: per skill and stage/agent/model, "
    "recall, false positives, pass rate, lift and cost over the runs with their intervals, "
    "each point keyed by the description's hash and the agent's and activation's versions, "
    "so an edit is told from drift. Runs are in the order given, a folder's by file name. "
    "Exit 0 once written, 2 when a file is not a report. "
    "Example: activation history reports/ --html history.html --badges badges",
    (
        (
            None,
            (replace(REPORTS, help="saved --json reports (gzipped or not), or folders of them"),),
        ),
        (
            "outputs",
            (
                replace(HTML, help="the page to write", default=Path("history.html")),
                Flag("--badges", "DIR", "write a shields.io endpoint JSON per skill here", Path),
                replace(
                    AGAINST,
                    help="saved reports of the base branch: each series' latest point against "
                    "the last green run (exit 0) among them that ran its cell",
                ),
            ),
        ),
        (None, (DEBUG,)),
    ),
)
MERGE = Command(
    "activation merge",
    "Merge the JSON reports of a run's shards (--shard I/N) into the report of the whole "
    "run: every verdict and the false-discovery step recomputed across all cases. Exit 1 "
    "when a case regressed, 3 when shards are missing or a case errored, 2 when the "
    "reports are not shards of one run. "
    "Example: activation merge shard-*.json --json report.json --junit junit.xml",
    (
        (None, (REPORTS,)),
        (
            "outputs",
            (
                replace(
                    JSON,
                    help="write the merged JSON report; gzipped when PATH ends in .gz",
                ),
                FULL_RECORD,
                *REPORT_OUTPUTS,
                NO_SUMMARY,
                SHOW,
            ),
        ),
        (None, (DEBUG,)),
    ),
)
DETECT = Command(
    "activation detect",
    "Read a saved Stage B transcript and say whether the skill was activated (Claude "
    "Code: a successful Skill call naming it; OpenCode, Codex: a load that returned the "
    "copy's content). "
    "Example: activation detect .activation/runs/<run>/<case>/candidate-0.jsonl "
    "--skill auth0:auth0",
    (
        (
            None,
            (
                Flag("file", "FILE", "the transcript (.jsonl); '-' for stdin"),
                Flag(
                    "--skill",
                    "ID",
                    "the skill id, '<plugin>:<skill folder>' (the bare skill name is also matched)",
                    required=True,
                ),
                replace(
                    AGENTS_FLAG,
                    metavar="NAME",
                    help="whose transcript it is",
                    convert=agent_name,
                    default=AGENT,
                    shown=None,
                ),
                Flag(
                    "--exit-code",
                    "N",
                    "the agent's exit code, when known (an OpenCode stream has no end event)",
                    int,
                ),
                switch("--json", "print one JSON object"),
                DEBUG,
            ),
        ),
    ),
)
OLDER_THAN = Flag("--older-than", "AGE", "only entries older than AGE, e.g. 30d", duration)
CACHE = Command(
    "activation cache",
    "The response cache: every successful trial's answer, reused by later runs that "
    "send the very same request (until --cache-ttl). "
    "Example: activation cache clear --older-than 30d",
    ((None, (DEBUG,)),),
    actions={
        "info": Command(
            "activation cache info", "entries, size and folder", ((None, (CACHE_DIR,)),)
        ),
        "clear": Command(
            "activation cache clear", "remove entries", ((None, (CACHE_DIR, OLDER_THAN)),)
        ),
    },
)
SANDBOX_BUILD_FLAGS = (
    replace(AGENTS_FLAG, help="the agent, or several, whose pinned CLI the image holds"),
    *(Flag(a.flag, "PATH", f"{a.title} executable to copy", default=a.command) for a in every()),
    Flag("--base", "IMAGE", "the image built on", default=SANDBOX_IMAGE),
    Flag("--tag", "NAME", "the built image's name", shown="activation-sandbox:AGENT-VERSION"),
)
SANDBOX = Command(
    "activation sandbox",
    "The container image of --sandbox docker. build: the base image (--base) with the pinned "
    "CLI of each --agent and Node, copied from this machine (no registry needed), so a run "
    "with --image of it starts the CLI inside and mounts nothing of the host's. Prints the "
    "image's name. Exit 2 when a CLI is missing or not the pinned version, or the image does "
    "not build. Example: activation sandbox build --agent codex --codex "
    "./clis/node_modules/.bin/codex",
    ((None, (DEBUG,)),),
    actions={
        "build": Command(
            "activation sandbox build",
            "build an image holding the pinned agent CLIs and Node",
            ((None, SANDBOX_BUILD_FLAGS),),
        ),
    },
)
SCHEMA_KINDS = (
    "run", "changed", "calibration", "agreement", "behavior-calibration", "visibility",
    "suggestion", "state", "batches", "skills",
)  # fmt: skip
"""Every JSON document the tool writes, by kind (report/schemas.py's DOCUMENTS, which a test
keeps equal; named here so `--help` needs no report module)."""
SCHEMA = Command(
    "activation schema",
    "Print the JSON Schema of a JSON document the tool writes, generated from the document's "
    "own types: with no KIND, a run's report (activation-report/4 or activation-matrix/1); "
    "--list names every kind, its schema id and what writes it. "
    "Example: activation schema calibration > activation-calibration.schema.json",
    (
        (
            None,
            (
                Flag(
                    "kind",
                    "KIND",
                    "the document: " + ", ".join(SCHEMA_KINDS),
                    default="run",
                    nargs="?",
                    choices=SCHEMA_KINDS,
                ),
                switch("--list", "list every kind, its schema id and what writes it"),
                DEBUG,
            ),
        ),
    ),
)

SUITE_DEFAULT = "the skill's evals/, else evals/ at the repo root"
JUDGE_MODEL = Flag(
    "--judge-model",
    "ID",
    "the model that answers the judge graders",
    default=_config.BEHAVIOR_JUDGE_MODEL,
)
"""Stage C's judge, for `behavior` and for `changed`'s behavior gates (`mock` answers
offline)."""
JUDGE_SAMPLES_FLAG = Flag(
    "--judge-samples",
    "K",
    "ask each judge question K times and take the majority (a tie is an error of the "
    "trial); reports how often the judge disagreed with itself",
    positive_int,
    _config.JUDGE_SAMPLES,
    toml=INTEGER,
)

BEHAVIOR = Command(
    "activation behavior",
    "Stage C: run the real agent on each behavior case's task in a throwaway workspace with "
    "the skill set at the baseline, at the candidate and with no skill of the set (the "
    "`none` arm), grade the files it leaves, and fail when the candidate makes a case pass "
    "less often. Example: activation behavior --baseline git:main --suite evals --html "
    "behavior.html",
    (
        (
            "inputs",
            (
                *TARGET,
                Flag(
                    "--suite",
                    "PATH",
                    "behavior cases: a folder of case files (*.json) or of eval folders "
                    "(PROMPT.md, scaffold/, graders.yaml), or one of them",
                    Path,
                    shown=SUITE_DEFAULT,
                ),
                BASELINE_FLAG,
                CANDIDATE_FLAG,
                ONLY,
                CATALOG,
                replace(SHARD, help="run only shard I of N of the cases"),
                DURATIONS,
            ),
        ),
        (
            "trials",
            (
                replace(
                    TRIALS_FLAG,
                    help="agent runs per case and arm in the first round",
                    default=_config.BEHAVIOR_TRIALS,
                ),
                replace(
                    MAX_TRIALS_FLAG,
                    help="agent runs per variant on escalation",
                    default=_config.BEHAVIOR_MAX_TRIALS,
                    shown=None,
                ),
                replace(
                    MODEL_FLAG,
                    help="the agent's model, or several (one cell each)",
                    shown="the CLI's own default",
                ),
                replace(
                    AGENTS_FLAG,
                    help=f"the agent, or several (one cell each): {', '.join(known())}",
                ),
                Flag(
                    "--arm",
                    "ARM[,ARM]",
                    "controls run beside baseline and candidate: none (no skill of the set "
                    "installed: the skill's lift), llm (one model call, no agent)",
                    listed,
                    shown="none, and llm where a case has a ## System section",
                ),
                switch(
                    "--no-control",
                    "run no control arm (no lift is measured)",
                ),
                switch(
                    "--invoke",
                    "the prompt invokes the skill as the agent's users force it: measures "
                    "the body alone",
                ),
                JUDGE_MODEL,
                JUDGE_SAMPLES_FLAG,
                replace(SEED_FLAG, help="seed"),
                replace(ALPHA_FLAG, help="significance level, on q-values"),
                replace(
                    CONCURRENCY_FLAG,
                    metavar="N",
                    help="agent runs at once",
                    convert=positive_int,
                    default=AGENT_CONCURRENCY,
                    shown=None,
                    toml=INTEGER,
                ),
                replace(
                    FAIL_ON_FLAG,
                    help="also fail the gate (exit 1) on WEAKENED cases, when the skill shows "
                    "no lift over the none arm, or when the candidate costs significantly more "
                    "than the baseline by more than --cost-margin",
                    choices=(WEAKENED_FAILS, NO_LIFT_FAILS, COST_FAILS),
                ),
                Flag(
                    "--cost-margin",
                    "SHARE",
                    "--fail-on cost: how much more than the baseline the candidate may cost",
                    non_negative_float,
                    _config.COST_MARGIN,
                    toml=NUMBER,
                ),
                Flag(
                    "--pass-k",
                    "K",
                    "the k of pass@k and pass^k (n/a for a case with fewer valid trials)",
                    positive_int,
                    shown="--trials",
                    toml=INTEGER,
                ),
                MIN_COVERAGE_FLAG,
                replace(RESUME, help=RESUME_HELP, default=None, nargs=None, const=None, toml=PATH),
            ),
        ),
        ("cost and cache", COST_AND_CACHE),
        (
            "agent",
            (
                *STAGE_B_OPTIONS[1:-2],
                replace(MAX_TURNS_FLAG, default=_config.BEHAVIOR_MAX_TURNS),
                replace(TIMEOUT_FLAG, default=_config.BEHAVIOR_TIMEOUT),
                Flag(
                    "--keep-workspaces",
                    "DIR",
                    "keep each trial's workspace in DIR/<case>/<arm>-<trial>",
                    Path,
                ),
            ),
        ),
        ("outputs", (JSON, FULL_RECORD, *REPORT_OUTPUTS, AGAINST, NO_SUMMARY, SHOW)),
        (
            None,
            (
                replace(DRY_RUN, help="validate and plan: arms, cells, cost; no agent run"),
                VERBOSE,
                DEBUG,
            ),
        ),
    ),
    "Each trial is a whole agent run with write access in its own workspace (web and network "
    "tools denied where the CLI can deny them); its graders run afterwards: `command` "
    "graders without network, `judge` graders through --judge-model. A case REGRESSES when "
    "the candidate passes it significantly less often than the baseline (Boschloo per case, "
    "Benjamini-Hochberg across cases and cells). Lift is the candidate against the none arm.",
)
CALIBRATION_LEFT_OUT = frozenset(
    {"--baseline", "--candidate", "--arm", "--no-control", "--fail-on", "--min-coverage",
     "--shard", "--junit", "--markdown", "--html", "--no-summary", "--show", "--durations",
     "--resume", "--cost-margin", "--pass-k", "--against"}
)  # fmt: skip
"""What `calibrate --behavior` chooses itself: the specs, the arms, the one verdict (which
reads no cost gate and no pass@k)."""
BEHAVIOR_CALIBRATE = Command(
    "activation calibrate --behavior",
    "Calibrate a behavior suite: the skill against itself (A/A, with the none arm) must "
    "flag nothing and show the skill's lift over no skill; the skill against --broken, the "
    "same SKILL.md with a plausible but wrong body, must REGRESS. Exit 0 only when all three "
    "hold. Example: activation calibrate --behavior --broken edits/broken-body.md",
    (
        *(
            (title, tuple(flag for flag in flags if flag.name not in CALIBRATION_LEFT_OUT))
            for title, flags in BEHAVIOR.sections
        ),
        (
            "calibration",
            (
                BEHAVIOR_SWITCH,
                Flag(
                    "--broken",
                    "PATH",
                    "the broken-body control: the skill's SKILL.md with a plausible but wrong body",
                    Path,
                    required=True,
                ),
            ),
        ),
    ),
    BEHAVIOR.epilog,
)
VISIBILITY = Command(
    "activation visibility",
    "What each agent shows of a skill set before any model call: the listing as it would "
    "be sent, the budget used, and every skill of the set and catalog listed whole, cut, "
    "reduced to its name or not listed, with the agent's rule. With --baseline, exit 1 "
    "when the candidate is less visible than the baseline in any agent. "
    "Example: activation visibility --catalog ~/my-skills --agent codex --baseline git:main",
    (
        (
            "inputs",
            (
                *TARGET,
                replace(CANDIDATE_FLAG, help="the set at: " + SPEC),
                replace(BASELINE_FLAG, help="compare with the set at: " + SPEC, default=None),
                CATALOG,
                switch("--user-skills", "list each agent's own user skill folders too"),
            ),
        ),
        (
            "agents",
            (
                replace(
                    AGENTS_FLAG,
                    help=f"the agents whose listing is shown: {', '.join(known())}",
                    default=None,
                    shown="every agent",
                ),
                replace(
                    MODEL_FLAG,
                    metavar="ID",
                    help="the model each listing is rendered for (its budget may depend on it)",
                    convert=None,
                    shown="each CLI's own default",
                ),
            ),
        ),
        (
            "outputs",
            (
                replace(JSON, help="write the verdicts and listings as JSON"),
                switch("--no-listing", "leave the listings' text out of the terminal view"),
            ),
        ),
        (None, (DEBUG,)),
    ),
)
IMPORT = Command(
    "activation import",
    "Write case files of any format --cases reads (see docs/formats.md) once in this "
    "tool's own format, for users who want to switch: duplicate prompts across the files "
    "become one case, the union of what the copies expect. Exit 0 once written, 2 for bad "
    "input or copies that contradict each other. "
    "Example: activation import evals/*.jsonl --out cases.json",
    (
        (
            None,
            (
                Flag(
                    "files",
                    "FILE",
                    "case files (or folders of them), in any format --cases reads",
                    Path,
                    nargs="+",
                ),
                Flag("--out", "PATH", "the cases file to write", Path, required=True),
                CASES_FORMAT,
                DEBUG,
            ),
        ),
    ),
)
EXAMPLE_NAMES = ("billing",)
"""The bundled examples (commands/example.py's EXAMPLES, which a test keeps equal; named here
so `--help` needs no other module)."""
EXAMPLE = Command(
    "activation example",
    "A first verdict in one command: lay a bundled example out in DIR as a git repository "
    "whose last commit is its skill set, with an edit to a description in the working tree, "
    "then run the gate on it with the mock model (offline, no key) and print the commands to "
    "go on. Exit as the run does (the billing edit regresses: 1); 2 when DIR is not new "
    "or empty. Example: activation example billing billing-demo",
    (
        (
            None,
            (
                Flag(
                    "name",
                    "NAME",
                    "the example: " + ", ".join(EXAMPLE_NAMES),
                    choices=EXAMPLE_NAMES,
                ),
                Flag("dir", "DIR", "a new (or empty) folder to lay it out in", Path),
                DEBUG,
            ),
        ),
    ),
)
DRAFT_FORMATS = ("activation", "skill-creator", "jsonl", "yaml")
"""The formats `init` writes a draft in (inputs/draft.py's `rendered`): this tool's,
skill-creator's trigger eval set, JSON Lines of prompts, trigger tests in YAML."""
INIT = Command(
    "activation init",
    "Draft a suite for a skill of the working tree's skill set (or all): positives in the "
    "user's words (keyword, framework and indirect groups), a near-miss negative twin each, "
    "a case per sibling that expects it, prompts no skill should take, each with a why; "
    "--behavior adds a behavior case skeleton. A model drafts (the mock: labelled "
    "placeholders, offline); prompts that echo a description are left out. A draft is to "
    "be reviewed, not trusted. Exit 0 once written, 2 for bad input or a file that exists "
    "(without --force). Example: activation init --all --model mock",
    (
        (
            None,
            (
                replace(
                    SKILL_ID,
                    metavar="NAME",
                    help="the skill to draft for, by its folder's name or id",
                    shown="the repo's only skill",
                ),
                switch("--all", "draft for every skill of the working tree"),
                Flag(
                    "--format",
                    "NAME",
                    "the cases' format",
                    choices=DRAFT_FORMATS,
                    default=DRAFT_FORMATS[0],
                ),
                replace(
                    MODEL_FLAG,
                    metavar="ID",
                    help="the model that drafts (mock: placeholders, offline)",
                    convert=None,
                    default=MODEL,
                    shown=MODEL,
                ),
                replace(
                    BEHAVIOR_SWITCH,
                    help="also draft a behavior case skeleton in the skill's evals/",
                ),
                switch("--force", "overwrite files that exist"),
                *COST_AND_CACHE[:3],
                DEBUG,
            ),
        ),
    ),
)
CHANGED = Command(
    "activation changed",
    "Gate what a change touched, skill by skill, in a repo of several plugins or skills "
    "folders: a skill whose description or when_to_use changed runs the activation gate on "
    "its cases and on its set's siblings' cases, in every cell; a skill whose body or "
    "references changed runs its behavior suite; a changed skill with no cases is 'not "
    "tested' (exit 1 unless --allow-untested); nothing relevant changed exits 0 at once. "
    "Cases per skill: cases.json beside its SKILL.md, else a case file in any format about "
    "it, found where the field keeps them (its folder, evals/ and tests/ folders, .txt "
    "prompts in a prompts/ folder; the command says where it looked); behavior: its "
    "folder's evals/ (another tool's suite there, such as waza's, is named and not read). "
    "Example: activation changed --base git:origin/main --json changed.json",
    (
        (
            "inputs",
            (
                Flag(
                    "--base", "git:REF", "the version the change is measured against", required=True
                ),
                Flag("--head", "git:REF", "the changed version", shown="the working tree"),
                TARGET[0],
                Flag(
                    "--cases",
                    "FILE",
                    "a cases file for the skill it names (the only skill of the repo when it "
                    "names none); repeat it, or give a comma list or a folder, for several",
                    Path,
                    toml=PATH,
                    action=APPEND,
                ),
                DISTRACTORS,
                CATALOG,
                switch("--allow-untested", "a changed skill with no cases does not fail"),
                replace(
                    ONLY,
                    help="comma-separated case ids: each gate runs those of its cases (a gate "
                    "with none of them is left out)",
                ),
                ONLY_FROM,
            ),
        ),
        ("trials", TRIAL_OPTIONS),
        ("cost and cache", COST_AND_CACHE),
        ("outputs", (JSON, *REPORT_OUTPUTS, AGAINST, NO_SUMMARY, SHOW)),
        ("Stage B (--real)", STAGE_B_OPTIONS),
        (
            None,
            (
                replace(DRY_RUN, help="find the changes and show what would run; no model call"),
                replace(
                    JUDGE_MODEL, help="the model that answers the behavior gates' judge graders"
                ),
                JUDGE_SAMPLES_FLAG,
                DEBUG,
            ),
        ),
    ),
    "The activation gates' flags are the main command's; each behavior suite runs as "
    "activation behavior would with its defaults, on the same agents. " + CONFIG_EPILOG,
    settings=True,
)
COMMANDS: Mapping[str, Command] = {
    "run": RUN,
    "behavior": BEHAVIOR,
    "changed": CHANGED,
    "calibrate": CALIBRATE,
    "calibrate --behavior": BEHAVIOR_CALIBRATE,
    "suggest": SUGGEST,
    "lint": LINT,
    "visibility": VISIBILITY,
    "report": REPORT,
    "diff": DIFF,
    "history": HISTORY,
    "merge": MERGE,
    "import": IMPORT,
    "detect": DETECT,
    "cache": CACHE,
    "schema": SCHEMA,
    "example": EXAMPLE,
    "init": INIT,
    "sandbox": SANDBOX,
}
CONFIGURED = {name: command for name, command in COMMANDS.items() if command.settings}
"""The commands that read the settings file and the environment."""
