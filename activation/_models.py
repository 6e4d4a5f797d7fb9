"""The data every layer shares: small frozen records, no behaviour beyond what they mean.

Data flows one way, inputs -> trials -> verdicts -> report, and each stage of it is one of
these types, so any part can be tested or replaced on its own. The records a run produces
(`Trial`, `Tally`, `CaseVerdict`, `Usage`, the `RunSpec`'s settings and Stage C options) are
also what its JSON report holds: report/codec.py converts them to and from plain data, so a
field added here is a field of the report. A field set with `init=False` is derived
(`Tally.verdict`, `Trial.reading`): it is written into the report for its readers and
computed again whenever a record is made, also when one is read back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from pathlib import Path
from typing import Any, Generic, Literal, Protocol, TypeAlias, TypeVar

from activation import _config
from activation._errors import ExitCode

Stage = Literal["A", "B", "C"]
VariantName = Literal["baseline", "candidate"]
VARIANTS: tuple[VariantName, VariantName] = ("baseline", "candidate")
Arm = Literal["baseline", "candidate", "none", "llm"]
"""Who a trial asks: a variant of the skill set, or (Stage C) a control: `none`, the agent
with no skill of the set installed; `llm`, one model call and no agent."""
CONTROLS: tuple[Arm, ...] = ("none", "llm")
Reading = Literal["activated", "not_activated", "error"]


class ErrorClass(StrEnum):
    """Whose an error trial is (trials/errors.py classifies them): only an infrastructure
    error is retried, and none is ever a vote."""

    INFRASTRUCTURE = "infrastructure"
    """The sandbox or container, the proxy, a lost worker, a CLI killed by a signal."""
    AGENT_SETUP = "agent_setup"
    """The CLI missing or refusing, a permission or login wall, refused credentials."""
    MODEL = "model"
    """The API failing after its retries, an unusable answer, the cost ceiling."""
    BUDGET = "budget"
    """A trial stopped by the tool at its request budget (the egress proxy's count) or its
    time budget (`--timeout`): the agent looped or hung, whoever's fault that was."""
    GRADER = "grader"
    """A judge with no verdict, a command grader that cannot start."""


UNTAGGED = "untagged"
"""The group of a case without tags, in every output."""


def _derive(record: object, name: str, value: object) -> None:
    """Set a derived field of a frozen record (from its `__post_init__`)."""
    object.__setattr__(record, name, value)


# --- inputs ----------------------------------------------------------------------------


def skill_id(plugin: str | None, folder: str) -> str:
    """How the agent invokes a skill: `<plugin>:<folder>` in a plugin, with every UTF-16
    unit of the folder outside `[A-Za-z0-9_-]` made a `-` (`éclair` is `-clair`, an emoji
    `--`, as Claude Code names it); the bare folder name in a skills folder."""
    if plugin is None:
        return folder
    safe = "".join(
        char if char.isascii() and (char.isalnum() or char in "_-") else "-" * _utf16_units(char)
        for char in folder
    )
    return f"{plugin}:{safe}"


def _utf16_units(char: str) -> int:
    return 2 if ord(char) > 0xFFFF else 1


NONE = "none"
"""Where a prompt went when no skill fired, in routes and the confusion matrix."""
OTHER = "other"
"""The expectation of a `should_activate: false` case: any skill but the target, or none."""
ANY_SKILL = "*"
"""In `expect`: any skill, or none. A case that says only which skills must not fire (a
negative of one skill, imported from that skill's own file), whichever skill is measured."""


class StageCase(Protocol):
    """A case of any stage, as the engine schedules it and the verdicts judge it: what it
    asks, how a report groups it, when a trial of it is decided, and the entry a report
    keeps of it. Each stage's cases are their own type (`Case`; Stage C's `BehaviorCase`)."""

    @property
    def id(self) -> str: ...

    @property
    def prompt(self) -> str: ...

    @property
    def tags(self) -> tuple[str, ...]: ...

    @property
    def group(self) -> str: ...

    @property
    def reported(self) -> Case:
        """The case's entry in a report: the fields every report's case has."""
        ...

    def is_right(self, chose: Sequence[str], target: str) -> bool:
        """Whether a trial in which skills fired in this order is right for the case."""
        ...

    def settled(self, chose: Sequence[str], target: str) -> bool:
        """Whether skills firing in this order already decide `is_right`: an agent's run
        can stop there."""
        ...


@dataclass(frozen=True)
class Case:
    """One prompt and where it belongs. `expect` (ids resolved against the menu) says which
    skills may fire first, `()` that none should; None means the case does not route: it
    says only whether the target should fire (`should_activate`, which a routing case
    derives). `must_not` are skills that must not fire at all."""

    id: str
    prompt: str
    should_activate: bool
    why: str
    tags: tuple[str, ...] = ()
    spot_check: bool = False
    twin: str | None = None
    expect: tuple[str, ...] | None = None
    must_not: tuple[str, ...] = ()

    @property
    def group(self) -> str:
        """The case's first tag: what reports group and filter it by."""
        return self.tags[0] if self.tags else UNTAGGED

    @property
    def reported(self) -> Case:
        return self

    def expected(self, target: str) -> str:
        """The case's expectation in one word, for routes and the confusion matrix: the
        skill that should fire (`a|b` for several), `none`, `other` (not the target), or
        `*` (any skill but its `must_not`)."""
        if self.expect is None:
            return target if self.should_activate else OTHER
        return "|".join(self.expect) or NONE

    @property
    def any_skill(self) -> bool:
        """It says only which skills must not fire (`expect: "*"`)."""
        return self.expect is not None and ANY_SKILL in self.expect

    def expects(self, skill: str, target: str) -> bool:
        """Whether `skill` is a right first answer to this case (it is a positive of it)."""
        if self.expect is None:
            return self.should_activate and skill == target
        return skill in self.expect

    def is_right(self, chose: Sequence[str], target: str) -> bool:
        """Whether skills firing in this order are right for the case. A routing case is
        judged on the first that fired (nothing, when `expect` is empty); a
        `should_activate` case, as it always was, on whether the target fired at all."""
        if any(skill in self.must_not for skill in chose):
            return False
        if self.expect is None:
            return (target in chose) == self.should_activate
        if self.any_skill:
            return True
        if not self.expect:
            return not chose
        return bool(chose) and chose[0] in self.expect

    def settled(self, chose: Sequence[str], target: str) -> bool:
        """Whether skills firing in this order already decide `is_right`, whatever fires
        next: a run can stop there."""
        if any(skill in self.must_not for skill in chose):
            return True
        if self.must_not:
            return False
        if self.expect is None:
            return target in chose
        return bool(chose)


SkillSource = Literal["user", "project", "plugin"]
"""Where the agent finds a skill: the user's own, the project's, a plugin's."""


@dataclass(frozen=True)
class Skill:
    """A skill as the agent lists it: `name` is the id it is invoked by; the rest is what
    its frontmatter says (the agent lists description and `when_to_use`, and the
    frontmatter name when it differs from the folder's). `text` is the whole SKILL.md, for a
    copy of its set; `source` is where the agent would find it."""

    name: str
    description: str | None
    when_to_use: str | None = None
    display: str | None = None
    source: SkillSource = "user"
    path: str = ""
    text: str = ""
    listed: bool = True
    """False when the agent hides it from the model (`disable-model-invocation`)."""
    agent_files: tuple[tuple[str, str], ...] = ()
    """Its folder's per-agent metadata files (`agents/openai.yaml`: the path below the
    skill folder, the text), which some agents read to decide whether to list it."""
    nested: str = ""
    """For a SKILL.md inside another skill's folder, its folder's path from the skills
    folder (`issuance/issuance-config`): only the agents that walk the whole tree list it
    (`Agent.nested_skills`), the others read it as a file of that skill."""

    @property
    def alias(self) -> str | None:
        """Its id by its frontmatter name (`toolkit:claude-code-skill-development`), when
        that differs from its folder's: Claude Code lists it beside the id and resolves it
        to this skill, so a case may name the skill by it."""
        if self.display is None:
            return None
        plugin, _, _folder = self.name.rpartition(":")
        return skill_id(plugin or None, self.display)


@dataclass(frozen=True)
class Target:
    """The measured skill and the set it belongs to: a plugin, or (`plugin_name` None) a
    skills folder. `repo` and `plugin_root` (the plugin's root, or the skills folder) are
    absolute, `skill_path` is repo-relative."""

    repo: Path
    skill_path: Path
    plugin_root: Path
    plugin_name: str | None
    skill_name: str
    members: tuple[Path, ...] = ()
    """The set's SKILL.md files (repo-relative, the measured one among them) when the set
    names its skills (a marketplace entry's `skills`); empty: every skill folder beside
    the measured one."""

    @property
    def skill_id(self) -> str:
        """The name the agent lists and invokes the skill by."""
        return skill_id(self.plugin_name, self.skill_name)

    @property
    def in_plugin(self) -> bool:
        return self.plugin_name is not None

    @property
    def skills_dir(self) -> Path:
        """The folder holding the set's skill folders (repo-relative)."""
        return self.skill_path.parent.parent

    @property
    def in_set(self) -> bool:
        """Whether the skill sits in a set the agent loads together (a plugin's `skills/`,
        or a skills folder), so its siblings count; a SKILL.md elsewhere stands alone."""
        return bool(self.members) or not self.in_plugin or self.skills_dir.name == "skills"

    @property
    def skill_file(self) -> Path:
        """The working-tree SKILL.md (it may not exist: a `git:` variant can still be read)."""
        return self.repo / self.skill_path


@dataclass(frozen=True)
class Variant:
    """One side of the comparison: the measured skill's SKILL.md at a spec, and the rest of
    its set at the same spec (`siblings`); `source` says where it came from, for people.

    The whole SKILL.md texts are kept because Stage B builds a copy of the set from them.
    """

    spec: str
    description: str
    text: str
    source: str
    when_to_use: str | None = None
    siblings: tuple[Skill, ...] = ()
    tree: tuple[tuple[str, bytes], ...] = ()
    """Every file of the set at this spec (a path relative to the set's root, its bytes):
    Stage C installs the whole set, body and references, as it was there. Read only for
    Stage C (`load_inputs(trees=True)`)."""
    agent_files: tuple[tuple[str, str], ...] = ()
    """The measured skill's per-agent metadata files at this spec (`Skill.agent_files`)."""
    skipped: tuple[str, ...] = ()
    """The set's other SKILL.md files no agent can read (not UTF-8), one line each (file,
    why): left out of `siblings`."""
    unparsed: tuple[tuple[str, str], ...] = ()
    """The set's other SKILL.md files whose frontmatter does not parse or whose description
    is not text: (the sibling's id, one line naming file, line and why). Kept in
    `siblings`, for each agent's rules to list or skip."""

    @property
    def listed(self) -> list[object]:
        """What this variant lists, as plain data: what makes two variants the same to the
        agent (the measured skill's fields, then each sibling's; metadata files only where
        there are some, so a set without them keeps its identity)."""
        siblings = [
            [s.name, s.description, s.when_to_use, s.listed]
            + ([[list(item) for item in s.agent_files]] if s.agent_files else [])
            for s in self.siblings
        ]
        files = [[list(item) for item in self.agent_files]] if self.agent_files else []
        return [self.description, self.when_to_use, siblings, *files]


CaseT = TypeVar("CaseT", bound=StageCase, covariant=True)


@dataclass(frozen=True)
class RunInputs(Generic[CaseT]):
    """Everything a run needs, validated before the first call; its cases are its stage's
    own (`Inputs`: trigger cases; Stage C's `BehaviorRunInputs`: tasks to grade)."""

    target: Target
    cases: tuple[CaseT, ...]
    distractors: tuple[Skill, ...]
    baseline: Variant
    candidate: Variant
    written_for: str | None = None
    """The skill id the cases file says it was written for (its top-level `skill`)."""
    catalog: tuple[Skill, ...] = ()
    """Other installed skills the menu lists (`--catalog`)."""
    working_text: str | None = None
    """The measured skill's working-tree SKILL.md (None when it has none): Stage B's copies
    start from it, so both stages list its name and body with each variant's fields."""

    def variant(self, name: Arm) -> Variant:
        """The skill set a variant's trials install; a control (`none`, `llm`) has none."""
        if name not in VARIANTS:
            raise KeyError(f"the {name} arm has no variant")
        return self.baseline if name == "baseline" else self.candidate


Inputs: TypeAlias = RunInputs[Case]
"""A trigger run's inputs (Stages A and B)."""
AnyInputs: TypeAlias = RunInputs[Any]
"""Any stage's inputs, where the stage is not known (the engine, a stage's interface, a
run's outcome); each stage's own code takes its own kind."""


# --- trials ----------------------------------------------------------------------------


def _add_cost(one: float | None, other: float | None) -> float | None:
    """An unknown cost stays unknown in any sum: it is never silently a 0."""
    return None if one is None or other is None else one + other


@dataclass(frozen=True)
class Usage:
    """What trials sent and what they cost; `cost_usd` is None when it is unknown (a model
    without a price), never 0 for "unknown". `from_cache` counts trials the response cache
    served: they sent no request and cost nothing. `throttled` counts the requests the API
    answered 429 or 529 (too many requests, overloaded) before a retry."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = 0.0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0
    from_cache: int = 0
    throttled: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.requests + other.requests,
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            _add_cost(self.cost_usd, other.cost_usd),
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
            self.from_cache + other.from_cache,
            self.throttled + other.throttled,
        )

    def __sub__(self, earlier: Usage) -> Usage:
        """What was used since `earlier` (a total taken before)."""
        cost = (
            None
            if self.cost_usd is None or earlier.cost_usd is None
            else (self.cost_usd - earlier.cost_usd)
        )
        return Usage(
            self.requests - earlier.requests,
            self.input_tokens - earlier.input_tokens,
            self.output_tokens - earlier.output_tokens,
            cost,
            self.cache_write_tokens - earlier.cache_write_tokens,
            self.cache_read_tokens - earlier.cache_read_tokens,
            self.from_cache - earlier.from_cache,
            self.throttled - earlier.throttled,
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
    models: Mapping[str, Prices] = field(default_factory=dict)
    override: Prices | None = None

    def for_model(self, model: str | None) -> Prices | None:
        """The model's prices; None when neither the override nor the table has them."""
        if self.override is not None:
            return self.override
        return self.models.get(model) if model else None


@dataclass(frozen=True)
class TrialKey:
    """Which trial to run: the case it asks, the variant it asks with, its index."""

    case: StageCase
    variant: Arm
    index: int

    @property
    def trigger(self) -> Case:
        """The case as a trigger case: only those are judged by what fired."""
        if not isinstance(self.case, Case):
            raise TypeError(f"case {self.case.id}: its trials are graded, not answered")
        return self.case

    def answer(
        self,
        activated: bool,
        evidence: str = "",
        usage: Usage = Usage(),
        transcript: str | None = None,
    ) -> Trial:
        """This trial, answered by whether the target fired (which skills did is unknown)."""
        right = activated == self.trigger.should_activate
        return Trial(self.case.id, self.variant, self.index, activated, evidence, None,
                     transcript, usage, correct=right)  # fmt: skip

    def fired(
        self,
        chose: Sequence[str],
        target: str,
        evidence: str = "",
        usage: Usage = Usage(),
        transcript: str | None = None,
    ) -> Trial:
        """This trial, answered by the skills that fired, in order."""
        chosen = tuple(chose)
        return Trial(self.case.id, self.variant, self.index, target in chosen, evidence, None,
                     transcript, usage, chose=chosen,
                     correct=self.case.is_right(chosen, target))  # fmt: skip

    def failed(
        self,
        error: str,
        usage: Usage = Usage(),
        transcript: str | None = None,
        kind: ErrorClass | None = None,
    ) -> Trial:
        """This trial as an error of class `kind`: never a vote."""
        return Trial(self.case.id, self.variant, self.index, None, "", error, transcript, usage,
                     error_class=kind)  # fmt: skip

    def graded(
        self,
        passed: bool,
        grades: tuple[Grade, ...],
        loaded: Sequence[str],
        target: str,
        *,
        files: tuple[str, ...] = (),
        evidence: str = "",
        usage: Usage = Usage(),
        transcript: str | None = None,
        workspace: str | None = None,
    ) -> Trial:
        """This Stage C trial: right when its graders passed; `activated` says whether the
        target loaded (`chose`: every skill that did, in order)."""
        chosen = tuple(loaded)
        return Trial(self.case.id, self.variant, self.index, target in chosen, evidence, None,
                     transcript, usage, chose=chosen, correct=passed, grades=grades,
                     files=files, workspace=workspace)  # fmt: skip


GradeOutcome = Literal["passed", "failed", "void", "error"]


@dataclass(frozen=True)
class Grade:
    """One grader's result in one Stage C trial. `grader` is its description, what a report
    names it by; `level` L1-L5, None when it has none (see verdicts.behavior.levels_of)."""

    grader: str
    type: str
    level: str | None
    outcome: GradeOutcome
    why: str = ""
    votes: tuple[int, int] | None = None
    """A judge grader's samples that answered YES and NO, when it asked more than one
    (`--judge-samples`): how often the judge disagreed with itself."""
    follows: bool = False
    """The case marks it as showing the skill was followed (`follows: true`)."""


@dataclass(frozen=True)
class ToolCall:
    """One tool the agent called in a trial: its name as the agent's stream gives it, its
    input as the stream's JSON text, and the turn (from 1) it was called in."""

    name: str
    input: str = ""
    turn: int = 1


FIGURES = ("input_tokens", "cache_read_tokens", "cache_write_tokens", "output_tokens",
           "cost_usd", "turns", "tool_calls", "seconds")  # fmt: skip
"""The per-trial figures of what a run cost; an agent's stream gives some of them."""


@dataclass(frozen=True)
class Trajectory:
    """What the agent did in one trial, read from its own event stream: one record for every
    agent. `measured` names the FIGURES this agent's stream gives, so a figure it does not
    give reads as unknown, never as 0."""

    tool_calls: tuple[ToolCall, ...] = ()
    commands: tuple[str, ...] = ()
    """The shell commands it ran, in order."""
    files_read: tuple[str, ...] = ()
    files_written: tuple[str, ...] = ()
    turns: int | None = None
    measured: frozenset[str] = frozenset()
    parts: tuple[Trajectory, ...] = ()
    """A case of several prompts (`BehaviorCase.turns`): each prompt's own trajectory, in
    order; the fields above are theirs end to end (empty: one prompt)."""

    @classmethod
    def joined(cls, parts: Sequence[Trajectory]) -> Trajectory:
        """The trajectory of a trial of several prompts: each prompt's, end to end, its tool
        calls marked with their prompt's turn (from 1); a figure is measured when every
        part measured it, and the model turns are their sum."""
        if len(parts) == 1:
            return parts[0]
        marked = tuple(
            replace(part, tool_calls=tuple(replace(call, turn=number) for call in part.tool_calls))
            for number, part in enumerate(parts, 1)
        )
        turns = [part.turns for part in marked]
        return cls(
            tool_calls=tuple(call for part in marked for call in part.tool_calls),
            commands=tuple(command for part in marked for command in part.commands),
            files_read=tuple(path for part in marked for path in part.files_read),
            files_written=tuple(path for part in marked for path in part.files_written),
            turns=None if None in turns else sum(turn or 0 for turn in turns),
            measured=frozenset.intersection(*(part.measured for part in marked)),
            parts=marked,
        )

    def in_turn(self, turn: int) -> Trajectory:
        """What the agent did after the `turn`-th prompt (from 1) and before the next: a
        trajectory grader's `turn`. A turn the trial never reached did nothing."""
        if self.parts:
            return self.parts[turn - 1] if turn <= len(self.parts) else Trajectory()
        return self if turn == 1 else Trajectory()


@dataclass(frozen=True)
class Trial:
    """One trial's outcome; `activated` is None exactly when it is an error, which is
    never a vote."""

    case_id: str
    variant: Arm
    index: int
    activated: bool | None
    evidence: str = ""
    error: str | None = None
    transcript: str | None = None
    usage: Usage = Usage()
    cached: bool = False
    """Served from the response cache: an answer an earlier run paid for."""
    chose: tuple[str, ...] = ()
    """The skills that fired, first first (Stage A: chosen; Stage B: successful Skill calls)."""
    correct: bool | None = None
    """Right for the case (None exactly when the trial is an error); Stage C: its graders
    passed."""
    grades: tuple[Grade, ...] = ()
    """Stage C: each grader's result, in the case's order."""
    files: tuple[str, ...] = ()
    """Stage C: the files the agent left in its workspace (relative paths, scanned ones)."""
    workspace: str | None = None
    """Stage C: where the workspace was kept (`--keep-workspaces`)."""
    trajectory: Trajectory | None = None
    """Stages B and C: what the agent did, from its stream (None: not read, or Stage A)."""
    error_class: ErrorClass | None = None
    """Whose the error is (None: not an error, or a report older than the classes)."""

    seconds: float | None = field(default=None, compare=False)
    """Wall time of the trial's own run (None: it ran nowhere here, served from the cache
    or a batch); what `--durations` plans shards by. Not part of the outcome: two runs of
    the same trial compare equal."""
    reading: Reading = field(init=False, default="error")
    """"activated", "not_activated" or "error" (derived from `activated`)."""

    def __post_init__(self) -> None:
        reading = (
            "error"
            if self.activated is None
            else "activated"
            if self.activated
            else "not_activated"
        )
        _derive(self, "reading", reading)

    @property
    def is_error(self) -> bool:
        return self.activated is None

    @property
    def route(self) -> str | None:
        """Where the trial went: the first skill that fired, `none`, or None when only
        whether the measured skill fired is known (or the trial is an error)."""
        if self.is_error or (self.activated and not self.chose):
            return None
        return self.chose[0] if self.chose else NONE


# --- verdicts --------------------------------------------------------------------------


class Status(StrEnum):
    REGRESSED = "REGRESSED"
    WEAKENED = "WEAKENED"
    """Both variants right by majority, the candidate significantly less often."""
    IMPROVED = "IMPROVED"
    UNSTABLE = "UNSTABLE"
    PASS = "PASS"
    FAIL = "FAIL"
    ERROR = "ERROR"


FLAGGED = (Status.REGRESSED, Status.WEAKENED, Status.IMPROVED, Status.UNSTABLE, Status.ERROR)
"""Statuses that ask for a look with the real agent."""
WEAKENED_FAILS = "weakened"
"""`--fail-on weakened`: a WEAKENED case fails the gate as a regression does."""
NO_LIFT_FAILS = "no-lift"
"""`--fail-on no-lift`: a behavior run whose skill lift over no skill is not shown fails the
gate as a regression does."""
COST_FAILS = "cost"
"""`--fail-on cost`: a behavior run whose candidate costs significantly more than the
baseline, by more than `--cost-margin`, fails the gate as a regression does."""


def gate(
    statuses: Iterable[Status],
    fail_on: Iterable[str] = (),
    *,
    interrupted: bool = False,
    incomplete: bool = False,
    no_lift: bool = False,
    costs_more: bool = False,
    less_visible: bool = False,
    uncovered: bool = False,
) -> ExitCode:
    """The exit rule, said once for every run, cell, matrix and merge: an interrupted run
    is 130; a cell with too few of its trials scored (`uncovered`: below `--min-coverage`)
    is not judged, so it is incomplete whatever its statuses; a regression fails the gate
    (and wins over errors), a weakened case too when asked, and so does a behavior run
    whose skill lift is not shown (`no_lift`) or whose candidate costs more than the
    baseline (`costs_more`), and a candidate that an agent shows less of
    than the baseline (`less_visible`: cut shorter, name only, not listed); missing
    evidence (an ERROR case, or cases with no evidence at all: `incomplete`) fails it
    closed."""
    if interrupted:
        return ExitCode.INTERRUPTED
    if uncovered:
        return ExitCode.INCOMPLETE
    found = set(statuses)
    weakened = Status.WEAKENED in found and WEAKENED_FAILS in fail_on
    lift = no_lift and NO_LIFT_FAILS in fail_on
    cost = costs_more and COST_FAILS in fail_on
    if Status.REGRESSED in found or weakened or lift or cost or less_visible:
        return ExitCode.REGRESSED
    if Status.ERROR in found or incomplete:
        return ExitCode.INCOMPLETE
    return ExitCode.OK


@dataclass(frozen=True)
class Tally:
    """One variant's trials of one case; errors are counted apart and never vote."""

    activated: int
    """Valid trials in which the measured skill fired (anywhere in the answer)."""
    valid: int
    errors: int
    correct: int
    """Valid trials that were right for the case (`Case.is_right`)."""
    routes: Mapping[str, int] = field(default_factory=dict)
    """Where the valid trials went: the first skill that fired (`none`: nothing) -> trials."""
    graded: bool = False
    """Stage C: the trials were graded, so the verdict is passing, not loading (the JSON
    writes it only when true)."""
    verdict: bool | None = field(init=False, default=None)
    """What the stage measures, by majority: activation (Stage C: the graders passed); True
    above half, False below, None on a tie or no trial."""
    right: bool = field(init=False, default=False)
    """Right by majority: more than half the valid trials were correct."""

    def __post_init__(self) -> None:
        twice = 2 * (self.correct if self.graded else self.activated)
        _derive(self, "verdict", None if twice == self.valid else twice > self.valid)
        _derive(self, "right", 2 * self.correct > self.valid)

    @classmethod
    def of(cls, trials: Iterable[Trial]) -> Tally:
        listed = list(trials)
        valid = [trial for trial in listed if not trial.is_error]
        routes: dict[str, int] = {}
        for trial in valid:
            if trial.route is not None:
                routes[trial.route] = routes.get(trial.route, 0) + 1
        return cls(
            activated=sum(trial.activated is True for trial in valid),
            valid=len(valid),
            errors=len(listed) - len(valid),
            correct=sum(trial.correct is True for trial in valid),
            routes=dict(sorted(routes.items())),
            graded=any(trial.grades for trial in valid),
        )

    @property
    def unanimous(self) -> bool:
        """Every valid trial agreed on whether it was right."""
        return self.valid > 0 and self.correct in (0, self.valid)

    @property
    def run(self) -> int:
        """Trials run, valid or not."""
        return self.valid + self.errors


@dataclass(frozen=True)
class Coverage:
    """A cell's trials scored (valid: errors are never votes) out of those it planned
    (every trial of every arm it ran, an error counted once however often it was
    retried)."""

    scored: int
    planned: int

    @classmethod
    def of(cls, verdicts: Iterable[CaseVerdict]) -> Coverage:
        trials = [trial for verdict in verdicts for trial in verdict.trials]
        return cls(sum(not trial.is_error for trial in trials), len(trials))

    @property
    def ratio(self) -> float | None:
        return self.scored / self.planned if self.planned else None

    def below(self, floor: float) -> bool:
        """Too little of the cell was scored to judge it."""
        return self.planned > 0 and self.scored < floor * self.planned


@dataclass(frozen=True)
class TrialsRun:
    baseline: int
    candidate: int


@dataclass(frozen=True, kw_only=True)
class CaseVerdict(Case):
    """A case with what the run found: its status, the tallies and the trials behind them.

    It extends the case rather than holding it, so the report's entry for a case is the
    case's own fields followed by its verdict.
    """

    status: Status
    p_value: float | None
    q_value: float | None = None
    """The p-value adjusted across every case of the run (Benjamini-Hochberg)."""
    baseline: Tally
    candidate: Tally
    trials: tuple[Trial, ...] = ()
    escalated: bool = False
    """It ran more than the first round."""
    partial: bool = False
    """Judged from the trials an interrupted run finished, not from all it planned."""
    trials_run: TrialsRun = field(init=False, default=TrialsRun(0, 0))
    """Trials per variant, valid or not (derived)."""

    def __post_init__(self) -> None:
        _derive(self, "trials_run", TrialsRun(self.baseline.run, self.candidate.run))

    @classmethod
    def of(
        cls,
        case: StageCase,
        status: Status,
        p_value: float | None,
        q_value: float | None,
        baseline: Tally,
        candidate: Tally,
        trials: tuple[Trial, ...] = (),
        escalated: bool = False,
        partial: bool = False,
    ) -> CaseVerdict:
        """The verdict on `case` (its report entry's fields first, as `case` gives them
        back)."""
        entry = case.reported
        return cls(
            **{item.name: getattr(entry, item.name) for item in fields(Case)},
            status=status,
            p_value=p_value,
            q_value=q_value,
            baseline=baseline,
            candidate=candidate,
            trials=trials,
            escalated=escalated,
            partial=partial,
        )

    @property
    def case(self) -> Case:
        return Case(**{item.name: getattr(self, item.name) for item in fields(Case)})

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
    """How Stage B starts the agent CLIs; `version` is what the CLI run said it is."""

    max_turns: int = _config.MAX_TURNS
    timeout: float = _config.TIMEOUT
    version: str | None = None
    sandbox: str = "host"
    """Where each run happened (`--sandbox`, `auto` settled): `docker`, `bwrap` or `host`."""
    canary: bool = True
    """Whether each cell proves its sandbox's boundary before its trials (`--no-canary`:
    not; see trials/agent/canary.py)."""
    executor: str = "local"
    """Where each run is started (`--executor`): `local` (this machine), or `ray` or
    `ray://host:port` (a task on a Ray cluster, trials/executor.py)."""
    executables: Mapping[str, str] = field(default_factory=dict)
    """Agent name -> the executable its flag names (`--opencode PATH`); an agent not named
    here is found on the PATH by its usual command."""
    image: str = _config.SANDBOX_IMAGE
    """The container image of a run in docker (`--image`)."""
    claude: str = field(init=False, default="claude")
    """The default agent's executable (derived from `executables`): a field of every report
    since `activation-report/2`, kept for its readers."""

    def __post_init__(self) -> None:
        _derive(self, "claude", self.executables.get(_config.AGENT) or "claude")

    def executable(self, agent: str, command: str) -> str:
        """The executable of `agent`, whose usual command is `command`."""
        return self.executables.get(agent) or command


@dataclass(frozen=True)
class ModelRef:
    """A `--model` string read once (trials/providers `parse_model`): the provider that asks
    the model, and the model's id there (`openai:gpt-5.5` is openai's `gpt-5.5`). Specs and
    reports keep the string as it was given."""

    provider: str
    id: str


@dataclass(frozen=True)
class Shard:
    """This process runs shard `index` of `count` of a run; merge puts the shards together."""

    index: int
    count: int
    run_cases: tuple[str, ...]
    """Every case id of the whole run, in order."""
    fingerprint: str = ""
    """The whole run's identity: only shards of the same run merge."""
    plan: str | None = None
    """The digest of the shard plan `--durations` made (None: hash shards): only shards of
    one plan merge."""


@dataclass(frozen=True)
class RunSettings:
    """What a run of any stage is asked with (`RunSpec` adds Stage C's options); a
    report's top level holds these fields as they are."""

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
    """Trials in flight at once: the fixed number, or where an adaptive limit starts; None
    until the stage sets its own default."""
    max_concurrency: int | None = None
    """The ceiling of an adaptive limit (it grows while the API keeps up, halves on 429 or
    529); None: `concurrency` is fixed."""
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
    fail_on: tuple[str, ...] = ()
    """Statuses beyond REGRESSED that fail the gate: `("weakened",)` or none."""
    coding_agent: str = _config.AGENT
    """The agent whose skill listing and load action Stage A shows the model, and whose
    CLI Stage B runs."""
    min_coverage: float = _config.MIN_COVERAGE
    """The least share of a cell's planned trials that must be scored for it to be judged."""

    @property
    def cell(self) -> str:
        """The run's cell in one word, stage/agent/model: `A/codex/openai:gpt-5.1-codex`,
        `B/claude-code/default` (the CLI's own model); what a matrix names it by."""
        return f"{self.stage}/{self.coding_agent}/{self.model or 'default'}"

    @property
    def prices(self) -> Prices | None:
        """The prices of the run's model (Stage B without `--model`: only the override)."""
        return None if self.pricing is None else self.pricing.for_model(self.model)


@dataclass(frozen=True)
class BehaviorChoices:
    """What Stage C measures with beyond the settings every stage shares: a report writes
    them at its top level."""

    arms: tuple[Arm, ...] = ()
    """The controls, run beside baseline and candidate (`none`, `llm`): a fixed first
    round per case, never escalated, never part of the gate's verdicts."""
    invoke: bool = False
    """The prompt invokes the skill the way the agent's users force it."""
    judge_model: str | None = None
    """The model that answers the `judge` graders."""
    judge_samples: int = _config.JUDGE_SAMPLES
    """How many times each judge question is asked; the majority decides."""
    pass_k: int | None = None
    """The k of pass@k and pass^k (`--pass-k`); None: the first round's trials."""
    cost_margin: float = _config.COST_MARGIN
    """`--fail-on cost` fails a candidate that costs significantly more than this share more
    than the baseline."""


@dataclass(frozen=True)
class BehaviorOptions(BehaviorChoices):
    """Stage C's own options, one record on its run's spec (`RunSpec.behavior`): what it
    measures with, and where it keeps each trial's workspace."""

    keep_workspaces: str | None = None
    """The folder each trial's workspace is kept in (`--keep-workspaces`); None keeps none.
    A report writes it in its `agent` record, where every report since
    `activation-report/2` has it."""


@dataclass(frozen=True)
class RunSpec(RunSettings):
    """What was asked for: with the inputs, everything needed to reproduce a run."""

    behavior: BehaviorOptions | None = None
    """Stage C's options; None for a run of Stages A and B."""

    @property
    def controls(self) -> tuple[Arm, ...]:
        """The control arms run beside the two variants (only Stage C has any)."""
        return self.behavior.arms if self.behavior else ()

    @property
    def kept_workspaces(self) -> str | None:
        """Where each trial's workspace is kept (only Stage C keeps any)."""
        return self.behavior.keep_workspaces if self.behavior else None


@dataclass(frozen=True)
class RunOutcome:
    """What a run did: its verdicts and every trial behind them, whatever stopped it."""

    spec: RunSpec
    inputs: AnyInputs
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
    peak_concurrency: int = 0
    """The most trials that were in flight at once."""
    final_concurrency: int = 0
    """The concurrency limit when the run ended (an adaptive limit moves)."""
    retried: int = 0
    """Infrastructure errors whose trial was run again (each trial still counts once)."""

    @property
    def coverage(self) -> Coverage:
        return Coverage.of(self.verdicts)

    @property
    def exit_code(self) -> ExitCode:
        statuses = (verdict.status for verdict in self.verdicts)
        return gate(
            statuses,
            self.spec.fail_on,
            interrupted=self.interrupted,
            incomplete=bool(self.unfinished),
            uncovered=self.coverage.below(self.spec.min_coverage),
        )

    @property
    def usage(self) -> Usage:
        sent = sum((trial.usage for trial in self.trials), Usage())
        return sent + Usage(requests=self.in_flight)

    def ids_with(self, *statuses: Status) -> list[str]:
        return [verdict.id for verdict in self.verdicts if verdict.status in statuses]
