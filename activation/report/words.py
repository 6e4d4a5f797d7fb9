"""Every sentence and figure a report says in words, once, for every renderer: the terminal,
Markdown, JUnit, HTML, `diff`, the plan. So the outputs never say the same thing two ways.

Plain text only (no markup); each renderer escapes or styles it its own way. What depends
on the stage (where a cost comes from, which flags chose it, what checks its flagged cases)
comes from the stage itself, found by the name the report carries.
"""

from __future__ import annotations

import difflib
import shlex
from collections.abc import Sequence

from activation._behavior import LEVEL_NAMES
from activation._config import AGENT
from activation._errors import ExitCode
from activation._models import (
    ANY_SKILL,
    FLAGGED,
    NONE,
    OTHER,
    VARIANTS,
    WEAKENED_FAILS,
    CaseVerdict,
    RunSpec,
    Status,
    Tally,
    Trial,
    VariantName,
)
from activation.report.matrix import Matrix
from activation.report.model import Report
from activation.report.views import view_of
from activation.trials.agents import agent_named, known
from activation.trials.stage import CostEstimate, stage_named
from activation.verdicts.agreement import Agreement
from activation.verdicts.behavior import (
    Behavior,
    CaseBehavior,
    GraderFigures,
    Lift,
    Loading,
    Rate,
    broke_first,
    case_graders,
    level_of,
)
from activation.verdicts.figures import Count, Interval, VariantFigures
from activation.verdicts.routing import changed_cells

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
EXPECTED = {True: "activate", False: "stay quiet"}
NO_RATE = "n/a (no case to count)"


NO_LIFT = "FAILED: the skill's lift over no skill is not shown (--fail-on no-lift)."


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
    return VERDICTS.get(code, report.error or f"exit {report.exit_code}")


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


def cut(text: str, width: int) -> str:
    """The text on one line, cut to `width` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def number(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}" if value >= 0.001 else f"{value:.0e}"


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def tally_cell(tally: Tally) -> str:
    cell = f"{tally.activated}/{tally.valid}"
    return f"{cell} +{tally.errors} err" if tally.errors else cell


def graded_case(entry: CaseVerdict) -> bool:
    """Whether the case's trials were graded (Stage C): its counts are trials that passed."""
    return any(trial.grades for trial in entry.trials)


def case_cell(entry: CaseVerdict, variant: VariantName) -> str:
    """A case's counts in a table: activated of valid trials, or for a case that says which
    skill should fire, right of valid, or for a graded case, passed of valid."""
    tally = entry.tally(variant)
    if entry.expect is None and not graded_case(entry):
        return tally_cell(tally)
    cell = f"{tally.correct}/{tally.valid}"
    return f"{cell} +{tally.errors} err" if tally.errors else cell


CASE_CELLS = "k/n = activated of valid trials; right of valid for a case with `expect`"
"""What a case table's counts are."""
PASSED_CELLS = "k/n = passed of valid trials: a trial passes when every grader that applies does"
"""What a behavior run's case table's counts are."""


def cells_legend(report: Report) -> str:
    return view_of(report).cells(report)


def routes_label(entry: CaseVerdict) -> str:
    """What a case's routes say: where its prompts went, or (graded) which skills loaded."""
    return "loaded" if graded_case(entry) else "went to"


def counted(entry: CaseVerdict) -> str:
    """What a case's counts count, in a word."""
    return "passed" if graded_case(entry) else "activated" if entry.expect is None else "right"


def expected_text(entry: CaseVerdict) -> str:
    """What a case expects: the skill(s) that should fire, none, or (a `should_activate`
    case) whether the measured one should."""
    if graded_case(entry):
        return "pass its graders"
    if entry.expect is None:
        return EXPECTED[entry.should_activate]
    if entry.any_skill:
        return f"any skill but {' or '.join(entry.must_not)}"
    return " or ".join(entry.expect) if entry.expect else "no skill"


def label_text(label: str, target: str) -> str:
    """A row or column of the routing matrix in words."""
    named = {NONE: "no skill", OTHER: f"not {target}", ANY_SKILL: "any skill"}
    return named.get(label, label.replace("|", " or "))


def route_text(tally: Tally) -> str:
    """Where trials went, most first: "billing:refunds 2/3, no skill 1/3"."""
    ordered = sorted(tally.routes.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(
        f"{'no skill' if route == NONE else route} {n}/{tally.valid}" for route, n in ordered
    )


def went_text(entry: CaseVerdict, target: str) -> str | None:
    """Where the candidate's wrong trials went, if anywhere: "went to billing:refunds 2/3,
    fired nothing 1/3"."""
    tally = entry.candidate
    wrong = sorted(
        ((route, n) for route, n in tally.routes.items()
         if not entry.is_right(() if route == NONE else (route,), target)),
        key=lambda item: (-item[1], item[0]),
    )  # fmt: skip
    skills = [f"{route} {n}/{tally.valid}" for route, n in wrong if route != NONE]
    parts = [f"went to {', '.join(skills)}"] if skills else []
    parts += [f"fired nothing {n}/{tally.valid}" for route, n in wrong if route == NONE]
    return ", ".join(parts) or None


def moved_text(entry: CaseVerdict, target: str) -> str:
    """A case's right counts, baseline to candidate, and where its prompts went:
    "kw-passkeys 3/3 -> 0/3: went to auth0:legacy 3/3" (a graded case: which grader broke
    first)."""
    base, cand = entry.baseline, entry.candidate
    line = f"{entry.id} {base.correct}/{base.valid} -> {cand.correct}/{cand.valid}"
    went = why_moved(entry, target)
    return f"{line}: {went}" if went else line


def why_moved(entry: CaseVerdict, target: str) -> str | None:
    """Where a moved case's candidate went wrong: where its prompts went, or (a graded case)
    the grader that broke first."""
    if not graded_case(entry):
        return went_text(entry, target)
    graders = case_graders(entry, VARIANTS)
    broke = broke_first(graders)
    found = next((grader for grader in graders if grader.grader == broke), None)
    return None if found is None else broke_text(found)


def routing_changes(report: Report) -> list[str]:
    """The cells of the routing matrix that changed, then the skills whose figures did."""
    target = report.skill.id
    routes = {variant: report.summary.routing(variant) for variant in VARIANTS}
    lines = [
        f"{label_text(expected, target)} -> {label_text(went, target)}: {old} -> {new} trial(s)"
        for expected, went, old, new in changed_cells(routes)
    ]
    base = {figures.skill: figures for figures in routes["baseline"].skills}
    for cand in routes["candidate"].skills:
        old = base.get(cand.skill)
        if old is None or (old.recall, old.precision) == (cand.recall, cand.precision):
            continue
        lines.append(
            f"{cand.skill}: recall {percent(old.recall, old.recall_interval)} -> "
            f"{percent(cand.recall, cand.recall_interval)}, precision "
            f"{percent(old.precision, old.precision_interval)} -> "
            f"{percent(cand.precision, cand.precision_interval)}"
        )
    return lines


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


def interval_text(interval: Interval | None) -> str | None:
    """A 95 % Wilson interval in whole percent, "30%-95%"; None without one."""
    if interval is None:
        return None
    low, high = interval
    return f"{low:.0%}-{high:.0%}"


def rate_text(count: Count, interval: Interval | None) -> str:
    if not count.total:
        return NO_RATE
    shown = interval_text(interval)
    wilson = f"  (95% Wilson {shown})" if shown else ""
    return f"{count.hits}/{count.total} = {count.hits / count.total:.0%}{wilson}"


def percent(count: Count | None, interval: Interval | None) -> str:
    if count is None or not count.total:
        return "n/a"
    shown = interval_text(interval)
    return f"{count.hits / count.total:.0%}" + (f" ({shown})" if shown else "")


def recall_text(figures: VariantFigures) -> str:
    return rate_text(figures.recall, figures.recall_interval)


def false_positives_text(figures: VariantFigures) -> str:
    return rate_text(figures.false_positives, figures.false_positives_interval)


def agent_title(name: str) -> str:
    """How people call an agent; a saved report's agent this tool no longer knows by name."""
    return agent_named(name).title if name in known() else name


def agent_label(report: RunSpec) -> str | None:
    """ "OpenCode 1.18.33": the agent a Stage B run ran and the version it said it is."""
    if report.agent is None or not report.agent.version:
        return None
    return f"{agent_title(report.coding_agent)} {report.agent.version}"


def stage_text(spec: RunSpec) -> str:
    """ "Stage A", and whose listing it shows (Stage B: which agent runs) when that is not
    the default agent's."""
    if spec.coding_agent == AGENT:
        return f"Stage {spec.stage}"
    agent = agent_title(spec.coding_agent)
    return (
        f"Stage A in {agent}'s listing" if spec.stage == "A" else f"Stage {spec.stage} on {agent}"
    )


def model_text(spec: RunSpec) -> str:
    return spec.model or "the CLI's default model"


def cost_line(report: Report) -> str:
    """The run's cost, and where it comes from; unknown is said, never shown as $0, with
    what is missing (`unknown_cost`)."""
    cost, basis = report.usage.cost_usd, stage_named(report.stage).cost_basis(report)
    if cost is not None and basis is not None:
        return f"cost ${cost:.4f} ({basis})"
    return f"cost unknown ({unknown_cost(report)})"


def unknown_cost(report: Report) -> str:
    """What keeps a run's cost unknown: a price (the stage's `unpriced`, which a plan says
    too), or the tokens of an agent's runs (a stream that carries none, a run stopped at a
    load before the agent reported them), which no price can replace."""
    gap = stage_named(report.stage).unpriced(report)
    ran = [trial.usage for case in report.cases for trial in case.trials if not trial.cached]
    blind = [u for u in ran if u.cost_usd is None and not (u.input_tokens or u.output_tokens)]
    if report.agent is None or not blind:
        return gap or "a trial reported no cost"
    agent = agent_title(report.coding_agent)
    if report.trial_detail == "all" and len(blind) == len(ran):
        return f"{agent}'s stream carried no token counts in any of {len(ran)} trials"
    counted = f"{len(blind)} of {len(ran)}" if report.trial_detail == "all" else "some"
    tokens = f"{counted} trials stopped before {agent} reported tokens"
    priced = stage_named(report.stage).cost_basis(report) is not None
    return tokens if priced or gap is None else f"{gap}; {tokens}"


def estimate_gaps(estimates: Sequence[CostEstimate]) -> str:
    """What keeps some cells' estimates unknown, each reason once."""
    return "; ".join(dict.fromkeys(e.gap or "no price" for e in estimates if not e.known))


def usage_lines(report: Report) -> list[str]:
    """What the run spent, in words every output shares."""
    usage, summary = report.usage, report.summary
    lines = []
    if summary.extra_calls:
        lines.append(
            f"escalated {summary.escalated} case(s) past the first round: "
            f"{summary.extra_calls} extra trial(s)"
        )
    line = (
        f"usage: {usage.requests} request(s), {usage.input_tokens} input / "
        f"{usage.output_tokens} output tokens"
    )
    if usage.cache_write_tokens or usage.cache_read_tokens:
        line += (
            f", prompt cache {usage.cache_write_tokens} written / {usage.cache_read_tokens} read"
        )
    lines.append(f"{line}; {cost_line(report)}")
    if usage.from_cache:
        lines.append(f"{usage.from_cache} trial(s) from the cache (no request, no cost)")
    if usage.throttled or report.max_concurrency is not None:
        lines.append(concurrency_line(report))
    return lines


def concurrency_line(report: Report) -> str:
    """How many trials were in flight, and how often the API pushed back."""
    if report.max_concurrency is None:
        line = (
            f"concurrency {report.concurrency} (fixed), at most {report.peak_concurrency} in flight"
        )
    else:
        line = (
            f"concurrency adaptive from {report.concurrency} (ceiling {report.max_concurrency}): "
            f"peak {report.peak_concurrency}, final {report.final_concurrency}"
        )
    pushback = report.usage.throttled
    return line + (f"; {pushback} request(s) answered 429/529 and retried" if pushback else "")


def ceiling_line(report: Report) -> str | None:
    if not report.ceiling_hit:
        return None
    return (
        f"cost ceiling ${report.max_cost_usd:g} reached: the trials not started are "
        'errors ("cost ceiling")'
    )


REAL_TITLE = "Check the flagged cases with the real agent:"
RERUN_TITLE = "Run this check again:"
ONLY_LIMIT = 200
"""The longest `--only` list a suggested command spells out; past it the command reads the
flagged cases from the saved report (`--only-from`), or leaves the choice to the stage."""
NOT_CONFIRMED = {
    "--only": 1, "--only-from": 1, "--model": 1, "--batch": 0, "--concurrency": 1,
    "--price-in": 1, "--price-out": 1, "--max-cost-usd": 1, "--agent": 1, "--json": 1,
    "--distractors": 1,
}  # fmt: skip
"""The flags of a run (and how many values each takes) that its confirming run does not
repeat: the cases are the flagged ones, and the model, its prices and its pace are Stage
A's (the agent runs its own), as is the report file it would overwrite."""


def command_words(report: Report) -> tuple[str, ...]:
    """The words after `activation` that run this check again. A report keeps them whole
    (`changed --base git:main --model mock`); one written by 0.3.0 kept only the flags
    after the stage's own (`--real`, `behavior`)."""
    flags = stage_named(report.stage).flags
    if report.rerun[:1] == ("changed",) or set(flags) <= set(report.rerun):
        return report.rerun
    return (*flags, *report.rerun)


def without(words: Sequence[str], left_out: dict[str, int]) -> list[str]:
    """`words` without the flags `left_out` names, each with its values."""
    kept, skip = [], 0
    for word in words:
        if skip:
            skip -= 1
        elif word in left_out:
            skip = left_out[word]
        else:
            kept.append(word)
    return kept


def flag_value(words: Sequence[str], flag: str) -> str | None:
    """The value `flag` has in `words`, if it is there."""
    found = [words[i + 1] for i, word in enumerate(words[:-1]) if word == flag]
    return found[-1] if found else None


def real_command(report: Report) -> str | None:
    """A ready command that checks what this run flagged with the stage that confirms it
    (Stage A's with `--real`), in this run's agent, or None when nothing was flagged or
    nothing confirms it."""
    flagged = report.ids_with(*FLAGGED)
    return confirm_command(command_words(report), report.stage, flagged, report.coding_agent)


def confirm_command(
    words: Sequence[str], stage: str, flagged: Sequence[str], agent: str | None = None
) -> str | None:
    """The command `words` ran (`changed ...` included) with the stage that confirms
    `stage`'s, on the `flagged` cases: in `agent` if given (else in the agents `words`
    name). A long list of cases is read from the report saved with `--json`
    (`--only-from`), else left to the stage's own choice (what the latest Stage A run
    flagged, and the spot checks)."""
    confirm = stage_named(stage).confirmed_by
    if confirm is None or not flagged:
        return None
    subcommand = list(words[:1]) if words[:1] == ("changed",) else []
    command = [*subcommand, *confirm]
    if agent is not None and agent != AGENT:
        command += ["--agent", agent]
    listed, saved = ",".join(dict.fromkeys(flagged)), flag_value(words, "--json")
    if len(listed) <= ONLY_LIMIT:
        command += ["--only", listed]
    elif saved is not None:
        command += ["--only-from", saved]
    left_out = {flag: n for flag, n in NOT_CONFIRMED.items() if agent or flag != "--agent"}
    rest = without(words[len(subcommand) :], left_out)
    return shlex.join(["activation", *command, *rest])


def rerun_command(report: Report) -> str:
    """This run again, with every flag that chose what ran."""
    return shlex.join(["activation", *command_words(report)])


def first_errors(trials: Sequence[Trial]) -> list[tuple[str, str]]:
    """Each variant's first error reason: enough to act on, without repeats."""
    found: dict[str, str] = {}
    for trial in sorted(trials, key=lambda t: t.index):
        if trial.error:
            found.setdefault(trial.variant, trial.error)
    return [(variant, found[variant]) for variant in VARIANTS if variant in found]


def status_text(entry: CaseVerdict) -> str:
    return entry.status.value + (" (partial)" if entry.partial else "")


def case_summary(entry: CaseVerdict, target: str) -> str:
    """One case's counts in a line: "REGRESSED: baseline 3/3, candidate 0/3, q 0.012", and
    where a regressed or weakened case's prompts went."""
    q = f", q {number(entry.q_value)}" if entry.q_value is not None else ""
    line = (
        f"{entry.status.value}: baseline {case_cell(entry, 'baseline')}, "
        f"candidate {case_cell(entry, 'candidate')}{q}"
    )
    went = why_moved(entry, target) if entry.status in MOVED else None
    return f"{line}; {went}" if went else line


MOVED = (Status.REGRESSED, Status.WEAKENED)
"""The statuses whose lines say where the candidate's prompts went."""


def word_diff(old: str, new: str) -> list[tuple[str, str]]:
    """(op, words) runs with op one of '=', '-', '+', from a word-level alignment."""
    a, b = old.split(), new.split()
    runs: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            runs.append(("=", " ".join(a[i1:i2])))
            continue
        if i2 > i1:
            runs.append(("-", " ".join(a[i1:i2])))
        if j2 > j1:
            runs.append(("+", " ".join(b[j1:j2])))
    return runs


def flagged_entries(report: Report) -> list[tuple[Status, list[CaseVerdict]]]:
    """The flagged statuses that occur, each with its cases, in the order reports list them."""
    found = []
    for status in FLAGGED:
        entries = [entry for entry in report.cases if entry.status is status]
        if entries:
            found.append((status, entries))
    return found


def matrix_verdict(matrix: Matrix) -> str:
    """The whole run's verdict, naming the cells that decided it."""
    code = ExitCode(matrix.exit_code)
    if code is ExitCode.REGRESSED:
        failed = [cell for cell in matrix.cells if cell.exit_code == ExitCode.REGRESSED]
        lifts = [cell.cell for cell in failed if verdict(cell) == NO_LIFT]
        hidden = [cell.cell for cell in failed if verdict(cell) == LESS_VISIBLE]
        regressed = [cell.cell for cell in failed if cell.cell not in (*lifts, *hidden)]
        parts = [f"the candidate regressed in {', '.join(regressed)}"] if regressed else []
        if hidden:
            parts.append(f"the candidate is less visible to the agent in {', '.join(hidden)}")
        if lifts:
            parts.append(
                f"the skill's lift over no skill is not shown in {', '.join(lifts)} "
                "(--fail-on no-lift)"
            )
        return f"FAILED: {'; '.join(parts)}."
    if code is ExitCode.INCOMPLETE:
        cells = ", ".join(c.cell for c in matrix.cells if c.exit_code == ExitCode.INCOMPLETE)
        return f"INCOMPLETE: some evidence is missing in {cells}, so the gate fails closed."
    return VERDICTS.get(code, matrix.error or f"exit {matrix.exit_code}")


MATRIX_COLUMNS = (
    "cell",
    "recall (baseline)",
    "recall (candidate)",
    "false positives (baseline)",
    "false positives (candidate)",
    "statuses",
)
"""The matrix grid's columns, in every format."""


BEHAVIOR_COLUMNS = (
    "cell",
    "passed (baseline)",
    "passed (candidate)",
    "passed (none)",
    "skill lift",
    "statuses",
)
"""The grid's columns when every cell is a behavior run."""


Grid = tuple[tuple[str, ...], list[list[str]]]
"""A matrix's grid: its columns and a row per cell."""


def matrix_grid(matrix: Matrix) -> Grid:
    """The grid of a matrix's cells, as their stage's view draws it."""
    return view_of(matrix.cells[0]).matrix_grid(matrix.cells)


def matrix_columns(matrix: Matrix) -> tuple[str, ...]:
    return matrix_grid(matrix)[0]


def lift_cell(lift: Lift | None) -> str:
    """ "+54 (+8 to +78), shown": a lift in percentage points for a grid cell."""
    if lift is None:
        return "not measured"
    low, high = lift.interval
    shown = "shown" if lift.shown else "not shown"
    return f"{signed(lift.difference)} ({signed(low)} to {signed(high)}), {shown}"


def status_counts(report: Report) -> str:
    """`2 REGRESSED, 1 UNSTABLE, 17 PASS`: the statuses a cell found, most serious first."""
    found = [f"{report.count(status)} {status.value}" for status in Status if report.count(status)]
    return ", ".join(found) or "no case"


def compact_rate(count: Count, interval: Interval | None) -> str:
    """`3/9 33% (12%-65%)`: a rate for a grid cell."""
    if not count.total:
        return "n/a"
    shown = interval_text(interval)
    return f"{count.hits}/{count.total} {count.hits / count.total:.0%}" + (
        f" ({shown})" if shown else ""
    )


BEHAVIOR_ARMS = ("baseline", "candidate", "none")


def matrix_rows(matrix: Matrix) -> list[list[str]]:
    return matrix_grid(matrix)[1]


def recall_grid(cells: Sequence[Report]) -> Grid:
    """Per cell: its recall and false positives per variant, with 95 % Wilson intervals,
    and its statuses."""
    rows = []
    for cell in cells:
        found = [cell.summary.figures(variant) for variant in VARIANTS]
        rows.append(
            [
                cell.cell,
                *(compact_rate(f.recall, f.recall_interval) for f in found),
                *(compact_rate(f.false_positives, f.false_positives_interval) for f in found),
                status_counts(cell),
            ]
        )
    return MATRIX_COLUMNS, rows


def behavior_grid(cells: Sequence[tuple[Report, Behavior]]) -> Grid:
    """Per cell: its pass rates per arm, its lift and its statuses."""
    rows = []
    for cell, found in cells:
        rates = [rate_cell(found.suite.get(arm)) or "n/a" for arm in BEHAVIOR_ARMS]
        rows.append([cell.cell, *rates, lift_cell(found.lift), status_counts(cell)])
    return BEHAVIOR_COLUMNS, rows


def agreement_text(found: Agreement) -> str:
    """One pair of cells' agreement on one variant, in a line."""
    first, second = found.cells
    if not found.cases:
        return f"{first} vs {second} ({found.variant}): no case with evidence in both"
    kappa = "kappa undefined (every case rated alike in both)"
    if found.kappa is not None:
        kappa = f"Cohen's kappa {found.kappa:.2f}"
        if found.kappa_interval is not None:
            low, high = found.kappa_interval
            kappa += f" (95% {low:.2f} to {high:.2f})"
        else:
            kappa += " (no interval: one cell rated every case alike)"
    line = (
        f"{first} vs {second} ({found.variant}): {found.same} of {found.cases} cases alike "
        f"({found.same / found.cases:.0%}), {kappa}"
    )
    if found.disagree:
        line += f"; they differ on {', '.join(found.disagree)}"
    return line


def matrix_cost_line(matrix: Matrix) -> str:
    """The whole run's cost: unknown when any cell's is, with what each such cell lacks;
    never a $0 for "unknown"."""
    cost = matrix.usage.cost_usd
    unknown = [
        f"{cell.cell}: {unknown_cost(cell)}"
        for cell in matrix.cells
        if cell.usage.cost_usd is None or stage_named(cell.stage).cost_basis(cell) is None
    ]
    spent = f"cost unknown ({'; '.join(unknown)})" if unknown else f"cost {money(cost)}"
    return f"{spent} over {len(matrix.cells)} cells, {matrix.usage.requests:,} request(s)"


def agreement_reading() -> str:
    """How to read an agreement, in every output that shows one."""
    return (
        "Alike: both stages call the case right, or both wrong. Kappa discounts the agreement "
        "their own rates of 'right' would give by chance: 1 is full agreement, 0 no better "
        "than chance. On a few spot checks the interval is wide: read it before trusting "
        "Stage A's verdicts in place of the real agent's."
    )


# --- Stage C: behavior -----------------------------------------------------------------

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


def signed(value: float) -> str:
    return f"{value * 100:+.0f}"


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
        f"{level_of(grade) or FINAL} {grade.grader} {grade.outcome}"
        + (f": {grade.why}" if grade.why else "")
        for grade in trial.grades
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


def trial_line(trial: Trial) -> str:
    """A graded trial in a line: its outcome, then what it left."""
    return "; ".join([trial_head(trial), *trial_details(trial)])


def first_failures(entry: CaseVerdict, arms: Sequence[str] = VARIANTS) -> list[Trial]:
    """Each arm's first trial that did not pass (failed or errored): what to open first."""
    found: dict[str, Trial] = {}
    for trial in sorted(entry.trials, key=lambda t: t.index):
        if trial.correct is not True:
            found.setdefault(trial.variant, trial)
    return [found[arm] for arm in arms if arm in found]


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
