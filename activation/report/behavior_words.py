"""Stage C's words: pass rates, graders and levels, the skill's lift over no skill,
loaded vs not, a graded trial in a line, and the matrix grid of behavior cells."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

from activation._behavior import LEVEL_NAMES
from activation._models import (
    VARIANTS,
    CaseVerdict,
    Tally,
    Trial,
    VariantName,
)
from activation.report import chain_view, judge_view
from activation.report.efficiency_view import GRID_COLUMNS, grid_cells
from activation.report.model import Report
from activation.report.phrases import (
    rate_text,
    right_cell,
    signed,
    status_counts,
)
from activation.report.views import Grid, TrialWords
from activation.verdicts.behavior import (
    Behavior,
    CaseBehavior,
    GraderFigures,
    Lift,
    Loading,
    Rate,
    broke_first,
    case_graders,
    levels_of,
)
from activation.verdicts.figures import Count

NO_LIFT = "FAILED: the skill's lift over no skill is not shown (--fail-on no-lift)."


def measures_nothing(figures: Behavior | None) -> bool:
    """Whether trials ran and none passed in any arm: the suite fails with the skill and
    without it alike, so no change to the skill can show as a regression."""
    rates = list(figures.suite.values()) if figures is not None else []
    return any(rate.applied for rate in rates) and not any(rate.passed for rate in rates)


def blind_text(arms: Sequence[str]) -> str:
    """Why an OK gate whose suite `measures_nothing` says nothing (`arms`: those that ran)."""
    return (
        f"no trial passed in any arm ({', '.join(arms)}), so it cannot see a regression "
        "(see calibrate --behavior)"
    )


PASSED_CELLS = "k/n = passed of valid trials: a trial passes when every grader that applies does"
"""What a behavior run's case table's counts are."""


BEHAVIOR_COLUMNS = (
    "cell",
    "passed (baseline)",
    "passed (candidate)",
    "passed (none)",
    "skill lift",
    *GRID_COLUMNS,
    chain_view.GRID_COLUMN,
    judge_view.GRID_COLUMN,
    "statuses",
)
"""The grid's columns when every cell is a behavior run."""


def lift_cell(lift: Lift | None) -> str:
    """ "+54 (+8 to +78), shown": a lift in percentage points for a grid cell."""
    if lift is None:
        return "not measured"
    low, high = lift.interval
    shown = "shown" if lift.shown else "not shown"
    return f"{signed(lift.difference)} ({signed(low)} to {signed(high)}), {shown}"


BEHAVIOR_ARMS = ("baseline", "candidate", "none")


def behavior_grid(cells: Sequence[tuple[Report, Behavior]]) -> Grid:
    """Per cell: its pass rates per arm, its lift, the candidate's pass@k / pass^k, cost
    ratio to the baseline, attribution chain and judges' split samples, and its statuses."""
    rows = []
    for cell, found in cells:
        rates = [rate_cell(found.suite.get(arm)) or "n/a" for arm in BEHAVIOR_ARMS]
        rows.append([cell.cell, *rates, lift_cell(found.lift), *grid_cells(found),
                     chain_view.grid_cell(cell.chain or ()), judge_view.grid_cell(found.judges),
                     status_counts(cell)])  # fmt: skip
    return BEHAVIOR_COLUMNS, rows


FINAL = "final"
"""The level of a final holistic judge (it has none)."""


LEVELS = "Levels (graders passed of applied, every case)"


GRADERS = "Graders (passed of applied; void: did not apply)"


CHANGED_GRADERS = "Graders that changed (baseline vs candidate)"


LOADED = "Loaded vs not"


HEAT_LEGEND = (
    "Graders by case and level, per arm: passed of applied, red (never) to green (always); "
    "grey: the grader never applied (void)."
)


def level_text(level: str | None) -> str:
    """ "L2 hallucination", or "final judge"."""
    if level is None:
        return f"{FINAL} judge"
    names = {str(name): text for name, text in LEVEL_NAMES.items()}
    return f"{level} {names.get(level, '')}".rstrip()


def grader_text(grader: GraderFigures) -> str:
    """ "L2 no invented client.refunds.force()": a grader by its level and description."""
    return f"{grader.level or FINAL} {grader.grader}"


def rate_cell(rate: Rate | None) -> str:
    """A pass rate for a table cell: "2/3 (21-94%)" (its 95 % Wilson interval), "+1 err"
    after it; "" when the arm has nothing here."""
    if rate is None:
        return ""
    shown = f"{rate.passed}/{rate.applied}" if rate.applied else "n/a"
    if rate.interval is not None:
        low, high = rate.interval
        shown += f" ({low:.0%}-{high:.0%})".replace("%-", "-")
    return shown + (f" +{rate.errors} err" if rate.errors else "")


def grader_cell(rate: Rate | None) -> str:
    """A grader's pass rate for a cell: "2/3", with its void and errored trials."""
    if rate is None:
        return ""
    shown = f"{rate.passed}/{rate.applied}" if rate.applied else "void" if rate.void else "n/a"
    extra = [f"{rate.void} void"] if rate.void and rate.applied else []
    extra += [f"{rate.errors} err"] if rate.errors else []
    return shown + (f" ({', '.join(extra)})" if extra else "")


def broke_text(grader: GraderFigures) -> str:
    """ "broke first: L2 no invented client.refunds.force() 3/3 -> 0/3" (baseline ->
    candidate)."""
    base, cand = (grader_cell(grader.rate(arm)) for arm in VARIANTS)
    return f"broke first: {grader_text(grader)} {base} -> {cand}"


def case_broke(case: CaseBehavior) -> str:
    """The grader that broke first, in a table cell ("" when none did)."""
    found = next((g for g in case.graders if g.grader == case.broke), None)
    return "" if found is None else grader_text(found)


def lift_text(lift: Lift | None) -> str:
    """The skill's lift in a line: "candidate 6/9 = 67% vs no skill 1/8 = 12%: +54 points
    (95% Newcombe +8 to +78), shown"."""
    if lift is None:
        return "not measured (no trial of the `none` arm to compare with)"
    low, high = lift.interval
    shown = "shown" if lift.shown else "not shown: the interval reaches 0"
    return (
        f"candidate {rate_text(Count(lift.candidate.passed, lift.candidate.applied), None)} "
        f"vs no skill {rate_text(Count(lift.none.passed, lift.none.applied), None)}: "
        f"{signed(lift.difference)} points (95% Newcombe {signed(low)} to {signed(high)}), {shown}"
    )


def suite_rates_text(behavior: Behavior) -> str:
    """ "passed over the suite: baseline 9/9 (70-100%), candidate 6/9 (35-88%), ..."."""
    rates = ", ".join(f"{arm} {rate_cell(behavior.suite.get(arm))}" for arm in behavior.arms)
    return f"passed over the suite: {rates}"


SUITE_LIFT = "skill lift over the suite (first rounds)"


def suite_lift_text(behavior: Behavior) -> str:
    return f"{SUITE_LIFT}: {lift_text(behavior.lift)}"


def loading_text(loading: Loading) -> str:
    """ "candidate: passed 5/8 = 62% where the skill loaded, 1/1 = 100% where it did not
    (1 trial(s) graded without the skill loading)"."""

    def passed(rate: Rate) -> str:
        return (
            rate_text(Count(rate.passed, rate.applied), rate.interval)
            if rate.applied
            else "no trial"
        )

    unloaded = loading.not_loaded.applied
    without = f" ({unloaded} trial(s) graded without the skill loading)" if unloaded else ""
    return (
        f"{loading.arm}: passed {passed(loading.loaded)} where the skill loaded, "
        f"{passed(loading.not_loaded)} where it did not{without}"
    )


def trial_outcome(trial: Trial) -> str:
    """ "passed", "failed", or the error: a graded trial's reading."""
    if trial.error is not None:
        return f"error: {trial.error}"
    return "passed" if trial.correct else "failed"


def failed_grades(trial: Trial) -> list[str]:
    """Each grader that failed or errored in a trial: "L2 no invented ...: why"."""
    return [
        f"{level or FINAL} {grade.grader} {grade.outcome}" + (f": {grade.why}" if grade.why else "")
        for grade, level in zip(trial.grades, levels_of(trial.grades), strict=True)
        if grade.outcome in ("failed", "error")
    ]


def trial_head(trial: Trial) -> str:
    """ "candidate #0 failed, skill loaded": a graded trial's outcome."""
    loaded = "" if trial.is_error else ", skill loaded" if trial.activated else ", skill not loaded"
    return f"{trial.variant} #{trial.index} {trial_outcome(trial)}{loaded}"


def trial_details(trial: Trial) -> list[str]:
    """What a graded trial left: "files a.ts, b.json", "transcript PATH", "workspace PATH"."""
    found = ["files " + (", ".join(trial.files) or "none")] if trial.grades else []
    found += [f"transcript {trial.transcript}"] if trial.transcript else []
    return found + ([f"workspace {trial.workspace}"] if trial.workspace else [])


def trial_words(trial: Trial) -> TrialWords:
    """A graded trial: its outcome, the graders that failed in it, what it left."""
    return TrialWords(trial_head(trial), tuple(failed_grades(trial)), tuple(trial_details(trial)))


def first_failures(entry: CaseVerdict, arms: Sequence[str] = VARIANTS) -> list[Trial]:
    """Each arm's first trial that did not pass (failed or errored): what to open first."""
    found: dict[str, Trial] = {}
    for trial in sorted(entry.trials, key=lambda t: t.index):
        if trial.correct is not True:
            found.setdefault(trial.variant, trial)
    return [found[arm] for arm in arms if arm in found]


class GradedCase:
    """A case of Stage C in words: trials that passed their graders, and which skills
    loaded."""

    routes = "loaded"
    correct = "passed"

    def expected(self, entry: CaseVerdict) -> str:
        return "pass its graders"

    def cell(self, entry: CaseVerdict, variant: VariantName) -> str:
        return right_cell(entry.tally(variant))

    def counted(self, entry: CaseVerdict) -> str:
        return "passed"

    def went(self, entry: CaseVerdict, target: str) -> str | None:
        """The grader that broke first."""
        graders = case_graders(entry, VARIANTS)
        broke = broke_first(graders)
        found = next((grader for grader in graders if grader.grader == broke), None)
        return None if found is None else broke_text(found)

    def verdict(self, tally: Tally) -> bool | None:
        """Its majority: whether the trials passed (not whether the skill loaded)."""
        return tally.right

    def shown_trials(self, entry: CaseVerdict) -> list[TrialWords]:
        """Each arm's first trial that did not pass."""
        return [trial_words(trial) for trial in first_failures(entry)]

    def said(self, trial: Trial) -> TrialWords | None:
        """A graded trial; one that errored before its graders ran is said by its error."""
        return trial_words(trial) if trial.grades else None


GRADED_CASE = GradedCase()


def changed_graders(behavior: Behavior) -> list[tuple[CaseBehavior, GraderFigures]]:
    """The graders whose pass rate differs between baseline and candidate, case by case."""
    return [
        (case, grader)
        for case in behavior.cases
        for grader in case.graders
        if _rates(grader.rate("baseline")) != _rates(grader.rate("candidate"))
    ]


def _rates(rate: Rate | None) -> tuple[int, int] | None:
    return None if rate is None else (rate.passed, rate.applied)


def tree_changes(
    baseline: Sequence[tuple[str, bytes]], candidate: Sequence[tuple[str, bytes]]
) -> list[str]:
    """How two copies of a skill set differ, file by file: "M skills/x/SKILL.md (+3 -12
    lines)", "A ...", "D ..."; binary files by size."""
    before, after = dict(baseline), dict(candidate)
    lines = []
    for path in sorted(before.keys() | after.keys()):
        old, new = before.get(path), after.get(path)
        if old == new:
            continue
        mark = "A" if old is None else "D" if new is None else "M"
        added, removed = _line_counts(old or b"", new or b"")
        lines.append(f"{mark} {path} (+{added} -{removed} lines)")
    return lines


def _line_counts(old: bytes, new: bytes) -> tuple[int, int]:
    diff = difflib.ndiff(
        old.decode("utf-8", "replace").splitlines(), new.decode("utf-8", "replace").splitlines()
    )
    counts = {"+": 0, "-": 0}
    for line in diff:
        if line[:1] in counts:
            counts[line[:1]] += 1
    return counts["+"], counts["-"]
