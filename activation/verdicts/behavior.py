"""Stage C's figures: what a behavior run found beyond the gate's statuses.

The gate judges baseline against candidate on passing trials, as activation does (judge.py);
these figures say why and how much: per case and arm the pass rate, per grader and level
the pass rates (the grader that broke is what a user reads first), the skill's lift over no
skill (candidate minus `none`), how trials did when the skill loaded and when it did not,
pass@k and pass^k (passk.py), what the trials cost (efficiency.py) and how often each judge
disagreed with itself (judge_agreement.py). Computed from the trials a run keeps, so a saved
or merged report gives them again.

A trial that errored is never a vote: it is counted apart, as a grader's error is. A void
grader (a negative check in a trial where no positive one passed) did not apply: it counts
neither way.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from activation import _config
from activation._models import VARIANTS, Arm, CaseVerdict, Grade, Status, Trial
from activation.verdicts.efficiency import Efficiency, cost_rises, efficiency
from activation.verdicts.figures import Count, Interval, interval
from activation.verdicts.judge_agreement import JudgeAgreement, judge_agreement
from activation.verdicts.passk import PassK, pass_k_of, suite_pass_k
from activation.verdicts.stats import newcombe_interval

ARMS: tuple[Arm, ...] = ("baseline", "candidate", "none", "llm")
"""Every arm, in the order outputs list them."""
UNLEVELLED = "unlevelled"
"""The level outputs give a grader that has none and is not its case's holistic judge."""
LEVEL_ORDER: tuple[str | None, ...] = ("L1", "L2", "L3", "L4", "L5", UNLEVELLED, None)
"""Grader levels in the order outputs list them; None is the holistic judges (see
`levels_of`)."""


@dataclass(frozen=True)
class Rate:
    """`passed` of `applied` (trials, or graders that applied), with the 95 % Wilson
    interval; `errors` are counted apart, never as a failure, and `void` graders did not
    apply."""

    passed: int
    applied: int
    errors: int = 0
    void: int = 0
    interval: Interval | None = None

    @property
    def value(self) -> float | None:
        return self.passed / self.applied if self.applied else None

    def below(self, other: Rate) -> bool:
        """Whether this rate is lower than `other` (both applied at least once)."""
        if not (self.applied and other.applied):
            return False
        return self.passed * other.applied < other.passed * self.applied


def rate(passed: int, applied: int, errors: int = 0, void: int = 0) -> Rate:
    return Rate(passed, applied, errors, void, interval(Count(passed, applied), True))


class ByArm:
    """A record of pass rates by arm, holding only the arms that ran (or applied)."""

    arms: Mapping[str, Rate]

    def rate(self, arm: Arm) -> Rate | None:
        return self.arms.get(arm)


@dataclass(frozen=True)
class GraderFigures(ByArm):
    """One grader of one case: its pass rate per arm."""

    grader: str
    """Its description, what the case names it by."""
    type: str
    level: str | None
    """L1-L5, `unlevelled`, or None for its case's holistic judge (see `levels_of`)."""
    arms: Mapping[str, Rate]


@dataclass(frozen=True)
class LevelFigures(ByArm):
    """Every grader of one level over the suite (`unlevelled`: the graders with no level
    but the holistic judges; None: the holistic judges, see `levels_of`)."""

    level: str | None
    arms: Mapping[str, Rate]


@dataclass(frozen=True)
class Lift:
    """The skill's lift: the candidate's pass rate minus the `none` arm's, with Newcombe's
    95 % interval; `shown` when the interval's lower end is above 0."""

    candidate: Rate
    none: Rate
    difference: float
    interval: Interval
    shown: bool


@dataclass(frozen=True)
class CaseBehavior(ByArm):
    """One case: its pass rate per arm, each grader's, the grader that broke, its lift."""

    id: str
    status: Status
    arms: Mapping[str, Rate]
    graders: tuple[GraderFigures, ...]
    broke: str | None
    """The first grader, in the case's order, that passed less often for the candidate than
    for the baseline: where a regression starts."""
    lift: Lift | None
    """None without a valid trial in the candidate and the `none` arm."""
    pass_k: Mapping[str, PassK]
    """Per arm, pass@k and pass^k of its valid trials (k: `Behavior.k`)."""


@dataclass(frozen=True)
class Loading:
    """One arm with a skill: how its trials did where the measured skill loaded and where
    it did not (`not_loaded.applied` trials were graded without the skill)."""

    arm: Arm
    loaded: Rate
    not_loaded: Rate


@dataclass(frozen=True)
class Behavior:
    """A behavior run in figures (every output's Stage C sections)."""

    arms: tuple[Arm, ...]
    """The arms that ran, in the order of ARMS."""
    suite: Mapping[str, Rate]
    """Each arm's trials that passed over the whole suite."""
    cases: tuple[CaseBehavior, ...]
    levels: tuple[LevelFigures, ...]
    lift: Lift | None
    """Over the suite, pooled over each case's first round (see `suite_lift`); None
    without the `none` arm."""
    loading: tuple[Loading, ...]
    k: int
    """The k of pass@k and pass^k (`--pass-k`, else the first round's trials)."""
    pass_k: Mapping[str, PassK]
    """Per arm, the mean pass@k and pass^k of the cases with k valid trials."""
    efficiency: Efficiency | None
    """What the trials cost per case and arm, and the candidate's ratios; None when the
    agent's stream gave no figure."""
    judges: tuple[JudgeAgreement, ...] = ()
    """Per case and judge grader, how often its samples disagreed (`--judge-samples`);
    none with one sample per question."""

    @property
    def lift_shown(self) -> bool:
        return self.lift is not None and self.lift.shown

    def case(self, case_id: str) -> CaseBehavior:
        return next(found for found in self.cases if found.id == case_id)


def graded(verdicts: Iterable[CaseVerdict]) -> bool:
    """Whether any trial was graded (a behavior run), what every output branches on."""
    return any(trial.grades for verdict in verdicts for trial in verdict.trials)


def trial_rate(trials: Iterable[Trial]) -> Rate:
    """Trials that passed of those that ran without an error."""
    listed = list(trials)
    valid = [trial for trial in listed if not trial.is_error]
    return rate(sum(trial.correct is True for trial in valid), len(valid), len(listed) - len(valid))


def levels_of(grades: Sequence[Grade]) -> tuple[str | None, ...]:
    """One trial's grades' levels as outputs group them: each its own, else `unlevelled`,
    but None for the case's holistic judge: its last grader when that is a judge with no
    level and the case's only one. Several judges with none (skill-creator's assertions,
    one check each) are unlevelled graders, none of them the final word."""
    bare = [grade.type == "judge" and grade.level is None for grade in grades]
    holistic = len(grades) - 1 if bare[-1:] == [True] and bare.count(True) == 1 else None
    return tuple(
        None if at == holistic else grade.level or UNLEVELLED for at, grade in enumerate(grades)
    )


def grade_rate(grades: Iterable[Grade]) -> Rate:
    """Graders that passed of those that applied; void and errored ones apart."""
    outcomes = [grade.outcome for grade in grades]
    passed, failed = outcomes.count("passed"), outcomes.count("failed")
    return rate(passed, passed + failed, outcomes.count("error"), outcomes.count("void"))


def arms_of(verdicts: Sequence[CaseVerdict]) -> tuple[Arm, ...]:
    present = {trial.variant for verdict in verdicts for trial in verdict.trials}
    return tuple(arm for arm in ARMS if arm in VARIANTS or arm in present)


def lift_of(candidate: Sequence[Trial], none: Sequence[Trial]) -> Lift | None:
    """The candidate's pass rate minus no skill's; None without a valid trial in both."""
    with_skill, without = trial_rate(candidate), trial_rate(none)
    if not (with_skill.applied and without.applied):
        return None
    found = newcombe_interval(with_skill.passed, with_skill.applied, without.passed,
                              without.applied)  # fmt: skip
    difference = with_skill.passed / with_skill.applied - without.passed / without.applied
    return Lift(with_skill, without, difference, found, found[0] > 0)


def case_graders(verdict: CaseVerdict, arms: Sequence[Arm]) -> tuple[GraderFigures, ...]:
    """Each grader of the case, in the case's order, with its pass rate per arm."""
    found: dict[str, tuple[Grade, str | None]] = {}
    by_arm: dict[tuple[str, Arm], list[Grade]] = {}
    for trial in verdict.trials:
        for grade, level in zip(trial.grades, levels_of(trial.grades), strict=True):
            found.setdefault(grade.grader, (grade, level))
            by_arm.setdefault((grade.grader, trial.variant), []).append(grade)
    return tuple(
        GraderFigures(
            name,
            first.type,
            level,
            {arm: grade_rate(by_arm[name, arm]) for arm in arms if (name, arm) in by_arm},
        )
        for name, (first, level) in found.items()
    )


def broke_first(graders: Sequence[GraderFigures]) -> str | None:
    for grader in graders:
        base, cand = grader.rate("baseline"), grader.rate("candidate")
        if base is not None and cand is not None and cand.below(base):
            return grader.grader
    return None


def case_behavior(verdict: CaseVerdict, arms: Sequence[Arm], k: int) -> CaseBehavior:
    def of(arm: Arm) -> list[Trial]:
        return [trial for trial in verdict.trials if trial.variant == arm]

    graders = case_graders(verdict, arms)
    rates: dict[str, Rate] = {arm: trial_rate(of(arm)) for arm in arms}
    return CaseBehavior(
        verdict.id,
        verdict.status,
        rates,
        graders,
        broke_first(graders),
        lift_of(of("candidate"), of("none")),
        {arm: pass_k_of(found.passed, found.applied, k) for arm, found in rates.items()},
    )


def level_figures(verdicts: Sequence[CaseVerdict], arms: Sequence[Arm]) -> tuple[LevelFigures, ...]:
    """Each level's graders over every case, per arm, in LEVEL_ORDER."""
    grades: dict[tuple[str | None, Arm], list[Grade]] = {}
    for verdict in verdicts:
        for trial in verdict.trials:
            for grade, level in zip(trial.grades, levels_of(trial.grades), strict=True):
                grades.setdefault((level, trial.variant), []).append(grade)
    return tuple(
        LevelFigures(
            level, {arm: grade_rate(grades[level, arm]) for arm in arms if (level, arm) in grades}
        )
        for level in LEVEL_ORDER
        if any((level, arm) in grades for arm in arms)
    )


def suite_lift(verdicts: Sequence[CaseVerdict], first_round: int) -> Lift | None:
    """The lift over the suite, pooled over the cases that have both arms, counting each
    case's first round only: the `none` arm runs one round per case and the candidate more
    where the gate escalated, so all its trials would weigh the suspicious cases more."""
    candidate: list[Trial] = []
    none: list[Trial] = []
    for verdict in verdicts:
        first = [trial for trial in verdict.trials if trial.index < first_round]
        mine = [trial for trial in first if trial.variant == "candidate"]
        control = [trial for trial in first if trial.variant == "none"]
        if lift_of(mine, control) is not None:
            candidate += mine
            none += control
    return lift_of(candidate, none)


def loading(verdicts: Sequence[CaseVerdict]) -> tuple[Loading, ...]:
    """Per arm with a skill, pass rates where the measured skill loaded and where it did not."""
    found = []
    for arm in VARIANTS:
        valid = [trial for verdict in verdicts for trial in verdict.trials
                 if trial.variant == arm and not trial.is_error]  # fmt: skip
        found.append(
            Loading(
                arm,
                trial_rate(trial for trial in valid if trial.activated),
                trial_rate(trial for trial in valid if not trial.activated),
            )
        )
    return tuple(found)


def behavior(
    verdicts: Sequence[CaseVerdict],
    first_round: int,
    pass_k: int | None = None,
    cost_margin: float = _config.COST_MARGIN,
    alpha: float = _config.ALPHA,
) -> Behavior | None:
    """The figures of a behavior run; None when no trial was graded. `pass_k` None is the
    first round's trials, which every case has."""
    if not graded(verdicts):
        return None
    arms = arms_of(verdicts)
    trials = [trial for verdict in verdicts for trial in verdict.trials]
    k = pass_k or first_round
    cases = tuple(case_behavior(verdict, arms, k) for verdict in verdicts)
    return Behavior(
        arms,
        {arm: trial_rate(trial for trial in trials if trial.variant == arm) for arm in arms},
        cases,
        level_figures(verdicts, arms),
        suite_lift(verdicts, first_round),
        loading(verdicts),
        k,
        {arm: suite_pass_k([case.pass_k for case in cases], arm) for arm in arms},
        efficiency(verdicts, arms, cost_margin, alpha),
        judge_agreement(trials),
    )


def lift_missing(verdicts: Sequence[CaseVerdict], first_round: int) -> bool:
    """Whether a behavior run failed to show the skill's lift (what `--fail-on no-lift`
    fails); a run with no graded trial has no lift to show."""
    if not graded(verdicts):
        return False
    found = suite_lift(verdicts, first_round)
    return found is None or not found.shown


def costs_more(verdicts: Sequence[CaseVerdict], cost_margin: float, alpha: float) -> bool:
    """Whether the candidate costs significantly more than the baseline by more than the
    margin (what `--fail-on cost` fails); a run whose agent gives no cost cannot."""
    return graded(verdicts) and cost_rises(verdicts, cost_margin, alpha)
