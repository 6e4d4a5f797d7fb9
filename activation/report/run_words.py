"""A run report's words, for every renderer (terminal, Markdown, JUnit, HTML, `diff`):
its verdict, what the agent shows of the set, its flagged cases and how each moved. What
depends on the stage (how a case is said, why a gate failed) comes from the stage's view."""

from __future__ import annotations

from collections.abc import Sequence

from activation._errors import ExitCode
from activation._models import (
    FLAGGED,
    VARIANTS,
    WEAKENED_FAILS,
    CaseVerdict,
    Coverage,
    Status,
    Trial,
)
from activation.report.model import Report
from activation.report.phrases import (
    agent_title,
    number,
    word_diff,
)
from activation.report.views import view_of

VERDICTS = {
    ExitCode.OK: "OK: no case regressed, no case errored.",
    ExitCode.REGRESSED: "FAILED: the candidate regressed.",
    ExitCode.INCOMPLETE: (
        "INCOMPLETE: some evidence is missing (errored trials or cases not run), so the gate "
        "fails closed."
    ),
    ExitCode.INTERRUPTED: "INTERRUPTED: partial results.",
}
"""A run's verdict in one line, by its exit code."""


LESS_VISIBLE = "FAILED: the candidate is less visible to the agent than the baseline."


UNSEEN = (
    "INCOMPLETE: the agent lists the measured skill in neither variant, so no trial could "
    "activate it."
)


def verdict(report: Report) -> str:
    """A run's verdict in one line. A candidate the agent does not list is said as such,
    not as the regression its trials then show: their misses say nothing."""
    code = ExitCode(report.exit_code)
    if code is ExitCode.REGRESSED and report.less_visible and "candidate" in report.unseen:
        return LESS_VISIBLE
    if code is ExitCode.REGRESSED and not report.summary.regressed:
        if report.summary.weakened and WEAKENED_FAILS in report.fail_on:
            return "FAILED: the candidate weakened (--fail-on weakened)."
        reason = view_of(report).gate_reason(report)
        if reason is not None:
            return reason
        if report.less_visible:
            return LESS_VISIBLE
    if code is ExitCode.INCOMPLETE and len(report.unseen) == len(VARIANTS):
        return UNSEEN
    if code is ExitCode.INCOMPLETE and report.summary.coverage.below(report.min_coverage):
        return (
            f"INCOMPLETE: cell {report.cell} scored {coverage_text(report.summary.coverage)}, "
            f"below --min-coverage {report.min_coverage:.0%}: not judged."
        )
    blind = view_of(report).blind(report) if code is ExitCode.OK else None
    if blind is not None:
        return f"OK, but it measures nothing: {blind}."
    return VERDICTS.get(code, report.error or f"exit {report.exit_code}")


def coverage_text(coverage: Coverage) -> str:
    """How a coverage reads: "10 of 12 planned trials (83%)"."""
    share = f" ({coverage.ratio:.0%})" if coverage.ratio is not None else ""
    return f"{coverage.scored} of {coverage.planned} planned trials{share}"


def against_line(report: Report) -> str | None:
    """With `--against`: the cell's figures against the base branch's last green run."""
    from activation.report.history import delta_line

    return None if report.against is None else delta_line(report.against)


def errors_line(report: Report) -> str | None:
    """The cell's coverage and whose its errors were, once a trial errored or was retried:
    "Coverage: 10 of 12 planned trials (83%) scored; errors: 1 infrastructure, 1 model;
    2 infrastructure errors retried." (None: every trial scored at the first attempt). A
    class is named by its value, words apart ("agent setup")."""
    summary = report.summary
    if not summary.errors_by_class and not report.retried:
        return None
    parts = [f"Coverage: {coverage_text(summary.coverage)} scored"]
    if summary.errors_by_class:
        counts = summary.errors_by_class.items()
        parts.append("errors: " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts))
    if report.retried:
        parts.append(f"{report.retried} infrastructure error(s) retried")
    return "; ".join(parts) + "."


def visibility_lines(report: Report) -> list[str]:
    """What the cell's agent shows of the set: each skill the candidate shows less of
    (a finding that fails the gate), each variant that does not list the measured skill
    (its trials say nothing), and the measured skill's own verdict where it is not listed
    whole."""
    lines = [f"LESS VISIBLE {finding.line}" for finding in report.less_visible]
    target = report.skill.id
    agent = agent_title(report.coding_agent)
    for name in report.unseen:
        seen = report.variant(name).visibility(target)
        why = f" ({seen.rule})" if seen is not None and seen.rule else ""
        lines.append(
            f"{agent} does not list {target} in the {name}{why}: that variant's trials "
            "cannot activate it, so its misses say nothing about the description"
        )
    for name in VARIANTS:
        seen = report.variant(name).visibility(target)
        if seen is not None and seen.state not in ("full", "hidden"):
            lines.append(f"{agent} shows {target} in the {name}: {seen.words}")
    return lines


def cells_legend(report: Report) -> str:
    return view_of(report).cells(report)


def moved_text(report: Report, entry: CaseVerdict) -> str:
    """A case's right counts, baseline to candidate, and where its prompts went:
    "kw-passkeys 3/3 -> 0/3: went to auth0:legacy 3/3" (a graded case: which grader broke
    first)."""
    base, cand = entry.baseline, entry.candidate
    line = f"{entry.id} {base.correct}/{base.valid} -> {cand.correct}/{cand.valid}"
    went = view_of(report).case.went(entry, report.skill.id)
    return f"{line}: {went}" if went else line


def changed_entries(report: Report) -> list[str]:
    """The skills whose listing entry differs between the variants (or that one lacks)."""
    found = [entry.id for name in VARIANTS for entry in report.variant(name).changed]
    return list(dict.fromkeys(found))


def entry_diffs(report: Report) -> list[tuple[str, list[tuple[str, str]]]]:
    """A word diff of each changed entry but the measured skill's description (which every
    output shows on its own): a sibling's, or the measured one's when its `when_to_use`
    changed."""
    diffs = []
    for skill in changed_entries(report):
        old, new = (report.variant(name).entry(skill) for name in VARIANTS)
        if skill == report.skill.id and report.baseline.when_to_use == report.candidate.when_to_use:
            continue
        diffs.append((skill, word_diff(old.entry if old else "", new.entry if new else "")))
    return diffs


def first_errors(trials: Sequence[Trial]) -> list[tuple[str, str]]:
    """Each variant's first error reason: enough to act on, without repeats."""
    found: dict[str, str] = {}
    for trial in sorted(trials, key=lambda t: t.index):
        if trial.error:
            found.setdefault(trial.variant, trial.error)
    return [(variant, found[variant]) for variant in VARIANTS if variant in found]


def case_summary(report: Report, entry: CaseVerdict) -> str:
    """One case's counts in a line: "REGRESSED: baseline 3/3, candidate 0/3, q 0.012", and
    where a regressed or weakened case's prompts went."""
    case = view_of(report).case
    q = f", q {number(entry.q_value)}" if entry.q_value is not None else ""
    line = (
        f"{entry.status.value}: baseline {case.cell(entry, 'baseline')}, "
        f"candidate {case.cell(entry, 'candidate')}{q}"
    )
    went = case.went(entry, report.skill.id) if entry.status in MOVED else None
    return f"{line}; {went}" if went else line


MOVED = (Status.REGRESSED, Status.WEAKENED)
"""The statuses whose lines say where the candidate's prompts went."""


def flagged_entries(report: Report) -> list[tuple[Status, list[CaseVerdict]]]:
    """The flagged statuses that occur, each with its cases, in the order reports list them."""
    found = []
    for status in FLAGGED:
        entries = [entry for entry in report.cases if entry.status is status]
        if entries:
            found.append((status, entries))
    return found
