"""Each command's flags as one typed, frozen record: the only thing below a command's entry
point that knows about its options.

A request is built in one place, `parse_request`, from what argparse and the settings read
(config.py), or by `request_of` from a mapping of values (a command that composes another's
run, and the Python API, build requests directly instead of writing and parsing a command
line). The records are made of the same groups as the flag tables (flags.py): a command
that takes a group of flags has the group's fields, so a helper that needs, say, the cache
options takes a `CacheRequest` and serves every command that has them. A test holds each
record's fields to its command's flags.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from activation.commands.flags import COMMANDS, Command
from activation.trials.agents import every

if TYPE_CHECKING:
    from activation._models import Setting
    from activation.inputs.distractors import DistractorsChoice

EXECUTABLES = "executables"
"""The field that holds every agent's executable flag (`--claude PATH`, `--codex PATH`),
one entry per agent the registry knows, so a new agent needs no new field."""


@dataclass(frozen=True, kw_only=True)
class Request:
    """What every command takes: `--debug`."""

    debug: bool


@dataclass(frozen=True, kw_only=True)
class TargetRequest(Request):
    """The skill measured: `--repo`, `--skill-path`."""

    repo: Path | None
    skill_path: str | None


@dataclass(frozen=True, kw_only=True)
class SamplingRequest(Request):
    """How trials are drawn, in every stage."""

    trials: int
    model: tuple[str, ...] | None
    seed: int
    alpha: float
    agent: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class CacheRequest(Request):
    """The response cache and the cost ceiling: the "cost and cache" flags."""

    cache_dir: Path | None
    no_cache: bool
    cache_ttl: float
    price_in: float | None
    price_out: float | None
    max_cost_usd: float | None


@dataclass(frozen=True, kw_only=True)
class AgentRequest(Request):
    """How an agent CLI runs: each agent's executable, its sandbox, where it is started (this
    machine or a Ray cluster), its turns and time."""

    executables: Mapping[str, str]
    sandbox: str
    no_canary: bool
    image: str
    executor: str
    max_turns: int
    timeout: float


@dataclass(frozen=True, kw_only=True)
class ActivationTrials(SamplingRequest, CacheRequest, AgentRequest):
    """The trials of an activation run (Stage A, or B with `--real`)."""

    max_trials: int | None
    concurrency: tuple[int | None, int | None] | None
    fail_on: str | None
    min_coverage: float
    batch: bool
    resume: bool | Path
    """`--resume`: alone (True) `--batch`'s batches; the main run's `--resume REPORT` also
    the report of the interrupted run to finish."""
    real: bool


@dataclass(frozen=True, kw_only=True)
class ReportFiles(Request):
    """The report files beside the JSON, and the job summary."""

    junit: Path | None
    markdown: Path | None
    html: Path | None
    against: Path | None
    no_summary: bool
    show: str

    @property
    def files(self) -> dict[str, Path | None]:
        return {"junit": self.junit, "markdown": self.markdown, "html": self.html}


@dataclass(frozen=True, kw_only=True)
class MatrixRequest(TargetRequest, ActivationTrials):
    """What every command that runs one case matrix takes (the main run, `calibrate`,
    `suggest`)."""

    cases: list[Path] | None
    cases_format: str | None
    distractors: DistractorsChoice
    catalog: Path | None
    shard: tuple[int, int] | None
    durations: Path | None
    only: tuple[str, ...] | None
    json: Path | None


@dataclass(frozen=True, kw_only=True)
class RunRequest(MatrixRequest, ReportFiles):
    """`activation`: the main run."""

    baseline: str
    candidate: str | None
    only_from: Path | None
    full_record: bool
    dry_run: bool
    simulate: bool
    verbose: bool
    show_listing: bool


@dataclass(frozen=True, kw_only=True)
class CalibrateRequest(MatrixRequest):
    """`activation calibrate`."""

    baseline: str | None
    narrow: Path | None
    broad: Path | None
    record: Path | None
    agreement: bool
    dry_run: bool = False


@dataclass(frozen=True, kw_only=True)
class SuggestRequest(MatrixRequest):
    """`activation suggest`."""

    skill: str | None
    rounds: int
    proposals: int
    proposer: str | None
    splits: tuple[float, float, float]
    write: bool
    markdown: Path | None
    html: Path | None
    no_summary: bool
    dry_run: bool


@dataclass(frozen=True, kw_only=True)
class ChangedRequest(ActivationTrials, ReportFiles):
    """`activation changed`."""

    base: str
    head: str | None
    repo: Path | None
    cases: list[Path] | None
    distractors: DistractorsChoice
    catalog: Path | None
    allow_untested: bool
    only: tuple[str, ...] | None
    only_from: Path | None
    json: Path | None
    dry_run: bool
    judge_model: str
    judge_samples: int


@dataclass(frozen=True, kw_only=True)
class BehaviorTrials(SamplingRequest, CacheRequest, AgentRequest):
    """The trials of a Stage C run."""

    max_trials: int
    concurrency: int
    invoke: bool
    judge_model: str
    judge_samples: int
    keep_workspaces: Path | None


@dataclass(frozen=True, kw_only=True)
class BehaviorInputs(TargetRequest):
    """A behavior suite and the skill it measures."""

    suite: Path | None
    only: tuple[str, ...] | None
    catalog: Path | None
    json: Path | None
    full_record: bool


@dataclass(frozen=True, kw_only=True)
class BehaviorRequest(BehaviorInputs, BehaviorTrials, ReportFiles):
    """`activation behavior`."""

    baseline: str
    candidate: str | None
    shard: tuple[int, int] | None
    durations: Path | None
    resume: Path | None
    arm: tuple[str, ...] | None
    no_control: bool
    fail_on: str | None
    cost_margin: float
    pass_k: int | None
    min_coverage: float
    dry_run: bool
    verbose: bool = False


@dataclass(frozen=True, kw_only=True)
class BehaviorCalibrateRequest(BehaviorInputs, BehaviorTrials):
    """`activation calibrate --behavior`."""

    behavior: bool
    broken: Path
    dry_run: bool
    verbose: bool = False


@dataclass(frozen=True, kw_only=True)
class LintRequest(TargetRequest):
    """`activation lint`."""

    cases: list[Path] | None
    bundled: bool
    cases_format: str | None
    candidate: str | None
    distractors: DistractorsChoice
    catalog: Path | None
    behavior: Path | None
    strict: bool


@dataclass(frozen=True, kw_only=True)
class VisibilityRequest(TargetRequest):
    """`activation visibility`."""

    candidate: str | None
    baseline: str | None
    catalog: Path | None
    user_skills: bool
    agent: tuple[str, ...] | None
    model: str | None
    json: Path | None
    no_listing: bool


REQUESTS: Mapping[str, type[Request]] = {
    "run": RunRequest,
    "behavior": BehaviorRequest,
    "changed": ChangedRequest,
    "calibrate": CalibrateRequest,
    "calibrate --behavior": BehaviorCalibrateRequest,
    "suggest": SuggestRequest,
    "lint": LintRequest,
    "visibility": VisibilityRequest,
}
"""Each command's request (the others take a few positionals, read at their entry point)."""

R = TypeVar("R", bound=Request)


def executable_flags() -> dict[str, str]:
    """Agent name -> the value name of its executable flag (`--claude` -> `claude`)."""
    return {agent.name: agent.flag.removeprefix("--").replace("-", "_") for agent in every()}


def request_of(kind: type[R], values: Mapping[str, Any]) -> R:
    """The request of `kind` from values by flag name (`skill_path`); the agents'
    executables gathered into one mapping. A field with no value is a bug, not input."""
    given = dict(values)
    if EXECUTABLES not in given:
        given[EXECUTABLES] = {
            name: path for name, key in executable_flags().items() if (path := values.get(key))
        }
    names = [field.name for field in fields(kind)]
    missing = [name for name in names if name not in given]
    if missing:
        raise TypeError(f"{kind.__name__} needs {', '.join(missing)}")
    return kind(**{name: given[name] for name in names})


def carried(request: Request, kind: type[Request]) -> dict[str, Any]:
    """The values of `request` that a request of `kind` has too, by field name: what one
    command hands on to the run it composes."""
    names = {field.name for field in fields(kind)}
    return {
        field.name: getattr(request, field.name) for field in fields(request) if field.name in names
    }


def defaults(command: Command) -> dict[str, Any]:
    """Every option's default, as the command line reads it (a text default through its
    converter): what a request is built over when no command line was given."""
    from activation.commands.config import default_value

    return {flag.dest: default_value(flag) for flag in command.flags if not flag.positional}


def request_for(name: str, kind: type[R], **given: Any) -> R:
    """The request of the command `name` with its defaults and the values `given` (by
    flag name), as the Python API and a composing command build one."""
    unknown = sorted(set(given) - {field.name for field in fields(kind)})
    if unknown:
        raise TypeError(f"{kind.__name__} has no {', '.join(unknown)}")
    return request_of(kind, {**defaults(COMMANDS[name]), **given})


def parse_request(name: str, kind: type[R], argv: Sequence[str]) -> tuple[R, tuple[Setting, ...]]:
    """The one place a command's flags become its request: the command line over the
    environment, the settings file and the defaults (config.py), and where each came from."""
    from activation.commands.config import parse_settings

    args, settings = parse_settings(COMMANDS[name], argv)
    return request_of(kind, vars(args)), settings
