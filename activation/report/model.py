"""The report: a run's own records, as every output renders them and the JSON holds them.

A `Report` is the spec the run was asked with (it extends the settings every stage shares
and Stage C's choices, so the JSON's top level carries both flat, as it always has, and its
`agent` record keeps Stage C's kept workspaces; `spec` gives the `RunSpec` back), what it
measured and against what, and the engine's own `CaseVerdict`s with their `Trial`s;
report/codec.py turns it into JSON and back, generated from these types. Built from a
RunOutcome, or read back from a saved report, it is the same value, so a saved run can be
shown again in any format, compared or merged without a call.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from activation import _config, _models
from activation._errors import ExitCode
from activation._models import (
    VARIANTS,
    BehaviorChoices,
    BehaviorOptions,
    CaseVerdict,
    Coverage,
    Inputs,
    RunOutcome,
    RunSettings,
    RunSpec,
    Status,
    Target,
    Usage,
    Variant,
    VariantName,
    gate,
)
from activation.inputs.distractors import distractors_note
from activation.inputs.identity import run_identity
from activation.report.views import view_of
from activation.trials.agents import agent_named
from activation.trials.listing.menu import set_skills, variant_visibility
from activation.trials.listing.model import Entry, EntryState, Listing
from activation.trials.listing.visibility import LessVisible, Visibility, less_visible
from activation.trials.stage import stage_named
from activation.verdicts.behavior import Behavior, behavior, costs_more, lift_missing
from activation.verdicts.chain import ArmChain, chain
from activation.verdicts.summary import Summary, summarise

SCHEMA = "activation-report/4"


@dataclass(frozen=True)
class Delta:
    """A cell against the same cell of the base branch's last green run (`--against`):
    what a reviewer asks of a pull request's figures, "better or worse than main"."""

    base_run: str
    """The base run's report, as it was found (its file, `FILE#skill` for a `changed` gate)."""
    changes: Mapping[str, float]
    """Per figure both runs measured (report/history.py's `METRICS`): this run's value minus
    the base's."""


@dataclass(frozen=True)
class SkillInfo:
    """The measured skill: its id and its SKILL.md, relative to the repository."""

    id: str
    path: str

    @classmethod
    def of(cls, target: Target) -> SkillInfo:
        return cls(target.skill_id, target.skill_path.as_posix())


@dataclass(frozen=True)
class ListedEntry:
    """One skill of the measured set as a variant's listing shows it."""

    id: str
    entry: str
    """The entry's text as the agent would list it (description, ` - when_to_use`), whole."""
    state: EntryState
    """"full", "cut" at the agent's per-entry limit, or "collapsed" to the id (over budget)."""
    changed: bool = False
    """It reads otherwise in the other variant, or the other variant lacks it."""


@dataclass(frozen=True)
class VariantInfo:
    spec: str
    source: str
    description: str
    when_to_use: str | None = None
    skills: tuple[ListedEntry, ...] = ()
    """Every skill of the measured set (the measured one first) as this variant lists it."""
    seen: tuple[Visibility, ...] = ()
    """Every skill of the set (the measured one first) and of the catalog, as visible as
    the cell's agent makes it in this variant's listing (trials/listing/visibility.py)."""
    chars: int = field(init=False, default=0)
    """The description's length (derived)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "chars", len(self.description))

    @property
    def changed(self) -> tuple[ListedEntry, ...]:
        return tuple(entry for entry in self.skills if entry.changed)

    def entry(self, skill_id: str) -> ListedEntry | None:
        return next((entry for entry in self.skills if entry.id == skill_id), None)

    def visibility(self, skill_id: str) -> Visibility | None:
        return next((seen for seen in self.seen if seen.id == skill_id), None)


# The run's record by name and description, so the schema's `AgentSettings` is the one
# every report has had.
@dataclass(frozen=True)
class AgentSettings(_models.AgentSettings):
    """How Stage B starts the agent CLIs; `version` is what the CLI run said it is."""

    keep_workspaces: str | None = None
    """Stage C's kept workspaces (`BehaviorOptions.keep_workspaces`): a report's `agent`
    record has held them since `activation-report/2`, so it still does (the run's spec keeps
    them with Stage C's other options)."""

    @classmethod
    def of(cls, spec: RunSpec) -> AgentSettings | None:
        """The agent record a report writes for `spec`."""
        if spec.agent is None:
            return None
        return cls(**_init_values(spec.agent), keep_workspaces=spec.kept_workspaces)

    @property
    def settings(self) -> _models.AgentSettings:
        """The settings the run started its agents with."""
        return _models.AgentSettings(**_init_values(self))


def _init_values(record: _models.AgentSettings) -> dict[str, Any]:
    """The agent settings' own fields (not a report's kept workspaces, nor what is derived)."""
    return {item.name: getattr(record, item.name) for item in fields(_models.AgentSettings)
            if item.init}  # fmt: skip


@dataclass(frozen=True, kw_only=True)
class Report(BehaviorChoices, RunSettings):
    schema: Literal["activation-report/4"] = "activation-report/4"
    agent: AgentSettings | None = None
    version: str
    """The activation version that wrote it."""
    exit_code: int
    error: str | None = None
    """Why the run stopped without its verdicts (exit 2 or 4): one line."""
    interrupted: bool = False
    fingerprint: str = ""
    """The whole run's identity (descriptions, cases, menu, settings): what `merge` compares."""
    trial_detail: Literal["all", "flagged"] = "all"
    """Whose trials keep their detail (evidence, usage, transcript, files): every case's, or
    (the JSON's default) only the flagged cases' (REGRESSED, IMPROVED, WEAKENED, UNSTABLE,
    ERROR); the other cases' trials keep what their verdicts are computed from."""
    ceiling_hit: bool = False
    peak_concurrency: int = 0
    """The most trials that were in flight at once."""
    final_concurrency: int = 0
    """The concurrency limit when the run ended (an adaptive limit moves)."""
    retried: int = 0
    """Infrastructure errors whose trial was run again (each trial still counts once)."""
    skill: SkillInfo
    baseline: VariantInfo
    candidate: VariantInfo
    body_diff: str | None = None
    """A behavior run's change as it was tested: a unified diff of the skill set's files
    (SKILL.md bodies, references, scripts) from the baseline to the candidate, "" when they
    are the same; None for an activation run, which lists descriptions only."""
    notice: str | None = None
    """What every output says about the answers (a mock model's mean nothing)."""
    warnings: tuple[str, ...] = ()
    rerun: tuple[str, ...] = ()
    """The words after `activation` that check this run again: its command and every flag
    that chose what ran (`changed --base git:main --model mock`); a report of 0.3.0 kept
    only the flags after its stage's own (`follow_up.command_words`)."""
    cases: tuple[CaseVerdict, ...] = ()
    summary: Summary
    usage: Usage
    less_visible: tuple[LessVisible, ...] = ()
    """Skills of the set or catalog the cell's agent shows less of in the candidate than
    in the baseline (cut shorter, name only, not listed): each fails the gate."""
    unseen: tuple[VariantName, ...] = ()
    """The variants whose listing does not show the measured skill at all: their trials
    cannot activate it, so their misses say nothing about its description."""
    distractors: str | None = None
    """Where the menu's distractors came from, when it listed some (every output says it:
    they take trials and listing budget from the user's own skills)."""
    against: Delta | None = None
    """With `--against`: this cell's figures against the base branch's last green run."""
    behavior: Behavior | None = field(init=False, default=None)
    """A behavior run's figures (verdicts/behavior.py), derived from the cases' graded
    trials: pass rates per arm, grader and level, the skill's lift, loaded vs not, pass@k
    and pass^k, efficiency. None when no trial was graded."""
    chain: tuple[ArmChain, ...] | None = field(init=False, default=None)
    """A behavior run's attribution chain per arm with the skill (verdicts/chain.py):
    listed, loaded, followed, passed. None when no trial was graded."""

    def __post_init__(self) -> None:
        found = behavior(self.cases, self.trials, self.pass_k, self.cost_margin, self.alpha)
        object.__setattr__(self, "behavior", found)
        if found is not None:
            trials = [trial for entry in self.cases for trial in entry.trials]
            object.__setattr__(self, "chain", chain(trials, self.listings))

    @property
    def listings(self) -> dict[VariantName, str | None]:
        """The measured skill's visibility verdict in each variant's listing (None: none
        recorded)."""
        seen = {name: self.variant(name).visibility(self.skill.id) for name in VARIANTS}
        return {name: None if found is None else found.state for name, found in seen.items()}

    @property
    def spec(self) -> RunSpec:
        """The spec the run was asked with: Stage C's options where the report has any (a
        stage that has none writes their defaults)."""
        kept = self.agent.keep_workspaces if self.agent else None
        options = BehaviorOptions(**_choices(self), keep_workspaces=kept)
        return RunSpec(
            **{**_settings(self), "agent": self.agent.settings if self.agent else None},
            behavior=None if options == BehaviorOptions() else options,
        )

    def variant(self, name: VariantName) -> VariantInfo:
        return self.baseline if name == "baseline" else self.candidate

    def ids_with(self, *statuses: Status) -> list[str]:
        return [entry.id for entry in self.cases if entry.status in statuses]

    def count(self, status: Status) -> int:
        return sum(entry.status is status for entry in self.cases)


def entry_text(entry: Entry) -> str:
    """An entry's text without its `- <id>: ` head (the whole text, even when it was cut)."""
    return entry.full_line.partition(": ")[2]


def listed_entries(
    inputs: Inputs, listings: Mapping[VariantName, Listing]
) -> dict[VariantName, tuple[ListedEntry, ...]]:
    """Each variant's entries for the skills of the measured set, marked where they differ."""
    shown: dict[VariantName, dict[str, Entry]] = {
        name: {
            skill.name: found
            for skill in set_skills(inputs, name)
            if (found := listings[name].entry(skill.name)) is not None
        }
        for name in VARIANTS
    }
    sides: tuple[tuple[VariantName, VariantName], ...] = (
        ("baseline", "candidate"),
        ("candidate", "baseline"),
    )
    out = {}
    for name, other in sides:
        entries = []
        for skill, found in shown[name].items():
            there = shown[other].get(skill)
            changed = there is None or entry_text(there) != entry_text(found)
            entries.append(ListedEntry(skill, entry_text(found), found.state, changed))
        out[name] = tuple(entries)
    return out


def _info(
    variant: Variant, skills: tuple[ListedEntry, ...], seen: tuple[Visibility, ...]
) -> VariantInfo:
    return VariantInfo(variant.spec, variant.source, variant.description, variant.when_to_use,
                       skills, seen)  # fmt: skip


def cell_exit(
    spec: RunSettings,
    verdicts: Sequence[CaseVerdict],
    *,
    interrupted: bool,
    incomplete: bool,
    less_visible: bool = False,
    unseen: Sequence[VariantName] = (),
    cost_margin: float = _config.COST_MARGIN,
) -> ExitCode:
    """The gate over one cell's verdicts, the skill lift they show and what the candidate
    costs (over `cost_margin` more) where they were graded, and its agent's visibility
    verdicts: a candidate shown less fails it, a measured skill
    neither variant lists leaves the cell without evidence, and so does a cell with too few
    of its trials scored (`min_coverage`)."""
    return gate(
        (verdict.status for verdict in verdicts),
        spec.fail_on,
        interrupted=interrupted,
        incomplete=incomplete or len(unseen) == len(VARIANTS),
        no_lift=lift_missing(verdicts, spec.trials),
        costs_more=costs_more(verdicts, cost_margin, spec.alpha),
        less_visible=less_visible,
        uncovered=Coverage.of(verdicts).below(spec.min_coverage),
    )


@dataclass(frozen=True)
class CellVisibility:
    """What a cell's agent shows of the set and catalog in each variant, and the findings
    that follow."""

    baseline: tuple[Visibility, ...]
    candidate: tuple[Visibility, ...]
    less_visible: tuple[LessVisible, ...]
    unseen: tuple[VariantName, ...]


def cell_visibility(
    spec: RunSpec, inputs: Inputs, listings: Mapping[VariantName, Listing]
) -> CellVisibility:
    """The visibility verdicts of a cell, from its listings (no model call)."""
    agent = agent_named(spec.coding_agent)
    seen = variant_visibility(inputs, listings, spec.coding_agent)
    label = agent.label(spec.agent.version if spec.agent else None)
    target = inputs.target.skill_id
    unseen = tuple(
        name
        for name in VARIANTS
        if next(item for item in seen[name] if item.id == target).state == "hidden"
    )
    return CellVisibility(
        seen["baseline"],
        seen["candidate"],
        less_visible(spec.cell, label, seen["baseline"], seen["candidate"]),
        unseen,
    )


def build_report(
    outcome: RunOutcome,
    version: str,
    warnings: tuple[str, ...] = (),
    error: str | None = None,
    rerun: tuple[str, ...] = (),
    notice: str | None = None,
) -> Report:
    inputs, spec = outcome.inputs, outcome.spec
    listings = stage_named(spec.stage).listings(spec, inputs)
    entries = listed_entries(inputs, listings)
    seen = cell_visibility(spec, inputs, listings)
    tests_body = view_of(spec).tests_body
    return Report(
        **flat_spec(spec),
        version=version,
        exit_code=int(
            cell_exit(
                spec,
                outcome.verdicts,
                interrupted=outcome.interrupted,
                incomplete=bool(outcome.unfinished),
                less_visible=bool(seen.less_visible),
                unseen=seen.unseen,
                cost_margin=(spec.behavior or BehaviorOptions()).cost_margin,
            )
        ),
        error=error,
        interrupted=outcome.interrupted,
        fingerprint=spec.shard.fingerprint if spec.shard else run_identity(spec, inputs),
        ceiling_hit=outcome.ceiling_hit,
        retried=outcome.retried,
        peak_concurrency=outcome.peak_concurrency,
        final_concurrency=outcome.final_concurrency,
        skill=SkillInfo.of(inputs.target),
        baseline=_info(inputs.baseline, entries["baseline"], seen.baseline),
        candidate=_info(inputs.candidate, entries["candidate"], seen.candidate),
        body_diff=tree_diff(inputs.baseline, inputs.candidate) if tests_body else None,
        notice=notice,
        warnings=warnings,
        rerun=rerun,
        cases=outcome.verdicts,
        summary=summarise(
            outcome.verdicts, spec.trials, inputs.target.skill_id, outcome.unfinished
        ),
        usage=outcome.usage,
        less_visible=seen.less_visible,
        unseen=seen.unseen,
        distractors=listed_distractors(inputs, listings),
    )


def flat_spec(spec: RunSpec) -> dict[str, Any]:
    """A spec as a report's top level holds it: the shared settings (the agent's with Stage
    C's kept workspaces), then Stage C's choices (at their defaults for another stage)."""
    return {
        **_settings(spec),
        "agent": AgentSettings.of(spec),
        **_choices(spec.behavior or BehaviorOptions()),
    }


def _settings(record: RunSettings) -> dict[str, Any]:
    """The settings every stage shares, of a spec or a report."""
    return {item.name: getattr(record, item.name) for item in fields(RunSettings)}


def _choices(record: BehaviorChoices) -> dict[str, Any]:
    """Stage C's choices, of its options or a report."""
    return {item.name: getattr(record, item.name) for item in fields(BehaviorChoices)}


def tree_diff(old: Variant, new: Variant) -> str:
    """A unified diff of two variants' sets, file by file (paths relative to the set's
    root); a file that is not UTF-8 text is named only."""
    before, after = dict(old.tree), dict(new.tree)
    lines: list[str] = []
    for path in sorted(before.keys() | after.keys()):
        a, b = before.get(path), after.get(path)
        if a == b:
            continue
        try:
            a_text, b_text = (a or b"").decode(), (b or b"").decode()
        except UnicodeDecodeError:
            lines.append(f"Binary file {path} differs\n")
            continue
        lines += difflib.unified_diff(
            a_text.splitlines(keepends=True),
            b_text.splitlines(keepends=True),
            "/dev/null" if a is None else f"a/{path}",
            "/dev/null" if b is None else f"b/{path}",
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def listed_distractors(inputs: Inputs, listings: Mapping[VariantName, Listing]) -> str | None:
    """The note on the distractors the cell's listings show (Stage B lists none)."""
    listed = {skill for listing in listings.values() for skill in listing.ids}
    return distractors_note([skill for skill in inputs.distractors if skill.name in listed])
