"""The data every layer shares: small frozen records, no behaviour beyond what they mean.

Data flows one way, inputs -> trials -> verdicts -> report, and each stage of it is one of
these types, so any part can be tested or replaced on its own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Literal

from activation import _config
from activation._errors import ExitCode

Stage = Literal["A", "B"]
VariantName = Literal["baseline", "candidate"]
VARIANTS: tuple[VariantName, VariantName] = ("baseline", "candidate")


# --- inputs ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    prompt: str
    should_activate: bool
    why: str
    tags: tuple[str, ...] = ()
    spot_check: bool = False
    twin: str | None = None


@dataclass(frozen=True)
class Skill:
    """A menu entry: the agent sees only a skill's name and description."""

    name: str
    description: str


@dataclass(frozen=True)
class Target:
    """The measured skill; `repo` and `plugin_root` are absolute, `skill_path` is repo-relative."""

    repo: Path
    skill_path: Path
    plugin_root: Path
    plugin_name: str
    skill_name: str

    @property
    def skill_id(self) -> str:
        """The name the agent lists and invokes the skill by."""
        return f"{self.plugin_name}:{self.skill_name}"

    @property
    def skill_file(self) -> Path:
        """The working-tree SKILL.md (it may not exist: a `git:` variant can still be read)."""
        return self.repo / self.skill_path


@dataclass(frozen=True)
class Variant:
    """One side of the comparison; `source` says where it came from, for people.

    The whole SKILL.md text is kept beside the description because Stage B builds a plugin
    copy from it; only the description may differ between the two copies.
    """

    spec: str
    description: str
    text: str
    source: str


@dataclass(frozen=True)
class Inputs:
    """Everything a run needs, validated before the first call."""

    target: Target
    cases: tuple[Case, ...]
    distractors: tuple[Skill, ...]
    baseline: Variant
    candidate: Variant
    written_for: str | None = None
    """The skill id the cases file says it was written for (its top-level `skill`)."""

    def variant(self, name: VariantName) -> Variant:
        return self.baseline if name == "baseline" else self.candidate


# --- trials ----------------------------------------------------------------------------


@dataclass(frozen=True)
class TrialKey:
    case: Case
    variant: VariantName
    index: int


def _add_cost(one: float | None, other: float | None) -> float | None:
    """An unknown cost stays unknown in any sum: it is never silently a 0."""
    return None if one is None or other is None else one + other


@dataclass(frozen=True)
class Usage:
    """What trials sent and what they cost; `cost_usd` is None when it is unknown (a model
    without a price), never 0 for "unknown". `from_cache` counts trials the response cache
    served: they sent no request and cost nothing."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    from_cache: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.requests + other.requests,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            _add_cost(self.cost_usd, other.cost_usd),
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.from_cache + other.from_cache,
        )


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens of one model, at list price."""

    input: float
    output: float
    cache_write: float
    cache_read: float

    def cost(self, usage: Usage, discount: float = 1.0) -> float:
        """The list price of the usage's tokens; `discount` scales it (batches: 0.5)."""
        tokens = (
            usage.input_tokens * self.input
            + usage.output_tokens * self.output
            + usage.cache_write_tokens * self.cache_write
            + usage.cache_read_tokens * self.cache_read
        )
        return tokens * discount / 1_000_000


@dataclass(frozen=True)
class Pricing:
    """The price table a run uses (its `date` says when the prices were list prices), and
    the `--price-in`/`--price-out` override, which wins for every model."""

    date: str
    table: tuple[tuple[str, Prices], ...] = ()
    override: Prices | None = None

    def for_model(self, model: str | None) -> Prices | None:
        """The model's prices; None when neither the override nor the table has them."""
        if self.override is not None:
            return self.override
        return dict(self.table).get(model) if model else None


@dataclass(frozen=True)
class Trial:
    """`activated` is None exactly when the trial is an error: an error is never a vote."""

    key: TrialKey
    activated: bool | None
    error: str | None = None
    evidence: str = ""
    transcript: str | None = None
    usage: Usage = Usage()
    cached: bool = False
    """Served from the response cache: an answer an earlier run paid for."""

    @property
    def is_error(self) -> bool:
        return self.activated is None


# --- verdicts --------------------------------------------------------------------------


class Status(StrEnum):
    REGRESSED = "REGRESSED"
    IMPROVED = "IMPROVED"
    UNSTABLE = "UNSTABLE"
    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"


FLAGGED = (Status.REGRESSED, Status.IMPROVED, Status.UNSTABLE, Status.ERROR)
"""Statuses that ask for a look with the real agent."""


def gate(statuses: Iterable[Status]) -> ExitCode:
    """A regression fails the gate (and wins over errors); missing evidence fails it closed."""
    found = set(statuses)
    if Status.REGRESSED in found:
        return ExitCode.REGRESSED
    if Status.ERROR in found:
        return ExitCode.INCOMPLETE
    return ExitCode.OK


@dataclass(frozen=True)
class Tally:
    """One variant's trials of one case; errors are counted apart and never vote."""

    activated: int
    valid: int
    errors: int

    @classmethod
    def of(cls, trials: Iterable[Trial]) -> Tally:
        outcomes = [trial.activated for trial in trials]
        return cls(
            activated=sum(outcome is True for outcome in outcomes),
            valid=sum(outcome is not None for outcome in outcomes),
            errors=sum(outcome is None for outcome in outcomes),
        )

    @property
    def verdict(self) -> bool | None:
        """Majority: True above half, False below, None on a tie or with no valid trial."""
        if 2 * self.activated > self.valid:
            return True
        if 2 * self.activated < self.valid:
            return False
        return None

    @property
    def unanimous(self) -> bool:
        return self.valid > 0 and self.activated in (0, self.valid)

    def correct(self, should_activate: bool) -> int:
        """How many valid trials matched the ground truth."""
        return self.activated if should_activate else self.valid - self.activated


@dataclass(frozen=True)
class CaseVerdict:
    """A case's status with the evidence behind it: its tallies and its own trials."""

    case: Case
    baseline: Tally
    candidate: Tally
    status: Status
    p_value: float | None
    q_value: float | None = None
    """The p-value adjusted across every case of the run (Benjamini-Hochberg)."""
    trials: tuple[Trial, ...] = ()
    escalated: bool = False
    """It ran more than the first round."""
    partial: bool = False
    """Judged from the trials an interrupted run finished, not from all it planned."""

    def tally(self, variant: VariantName) -> Tally:
        return self.baseline if variant == "baseline" else self.candidate


# --- a run -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Setting:
    """One setting of a command and where its value came from: "default", "command line",
    an `ACTIVATION_*` variable's name, or the settings file."""

    key: str
    value: object
    source: str


@dataclass(frozen=True)
class AgentSettings:
    """How Stage B starts the Claude Code CLI; `version` is what the CLI said it is."""

    claude: str = _config.CLAUDE
    max_turns: int = _config.MAX_TURNS
    timeout: float = _config.TIMEOUT
    version: str | None = None


@dataclass(frozen=True)
class Shard:
    """This process runs shard `index` of `count` of a run; merge puts the shards together."""

    index: int
    count: int
    run_cases: tuple[str, ...]
    """Every case id of the whole run, in order."""
    fingerprint: str
    """The whole run's fingerprint: only shards of the same run merge."""


@dataclass(frozen=True)
class RunSpec:
    """What was asked for: with the inputs, everything needed to reproduce a run."""

    stage: Stage = "A"
    model: str | None = None
    """The model the trials ask; None leaves Stage B's CLI on its own default."""
    trials: int = _config.TRIALS
    """The first round, for every case."""
    max_trials: int = _config.MAX_TRIALS
    """The most a suspicious case escalates to; equal to `trials` turns escalation off."""
    alpha: float = _config.ALPHA
    seed: int = _config.SEED
    concurrency: int | None = None
    agent: AgentSettings | None = None
    shard: Shard | None = None
    pricing: Pricing | None = None
    """Prices to count the cost with; None leaves every cost unknown."""
    max_cost_usd: float | None = None
    """No trial starts once the money spent plus the trials in flight would pass it."""
    batch: bool = False
    """Stage A through the Message Batches API: half the price, results within hours."""
    resume: bool = False
    """With `batch`: collect the batches an interrupted run on the same inputs submitted."""

    @property
    def limit(self) -> int:
        """Trials in flight at once; a batch run queues a whole round at once, so only the
        API's own limit on a batch's size bounds it."""
        if self.batch:
            return _config.BATCH_MAX_REQUESTS
        return self.concurrency or _config.CONCURRENCY[self.stage]

    @property
    def prices(self) -> Prices | None:
        """The prices of the run's model (Stage B without `--model`: only the override)."""
        return None if self.pricing is None else self.pricing.for_model(self.model)


@dataclass(frozen=True)
class RunOutcome:
    """What a run did: its verdicts and every trial behind them, whatever stopped it."""

    spec: RunSpec
    inputs: Inputs
    verdicts: tuple[CaseVerdict, ...]
    trials: tuple[Trial, ...]
    """Every finished trial, including those of unfinished cases (they still cost)."""
    interrupted: bool = False
    unfinished: tuple[str, ...] = ()
    """Case ids an interrupted run has no trial of for some variant: no status, no figure."""
    in_flight: int = 0
    """Trials started but cut off by an interruption: each had sent at least one request."""
    ceiling_hit: bool = False
    """`--max-cost-usd` kept some trials from starting (their cases are ERROR)."""

    @property
    def exit_code(self) -> ExitCode:
        if self.interrupted:
            return ExitCode.INTERRUPTED
        return gate(verdict.status for verdict in self.verdicts)

    @property
    def usage(self) -> Usage:
        sent = sum((trial.usage for trial in self.trials), Usage())
        return sent + Usage(requests=self.in_flight)

    def ids_with(self, *statuses: Status) -> list[str]:
        return [verdict.case.id for verdict in self.verdicts if verdict.status in statuses]
