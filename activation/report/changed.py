"""The report of `activation changed`: per changed skill, what changed, what ran and the
verdicts, over every gate the change called for, in one record, and its views (terminal
lines, Markdown for the job summary, HTML, JUnit, JSON).

Each gate's own run is kept whole (its `Matrix`, as the main command or `activation
behavior` would have written it), so nothing a single run reports is lost here.
"""

from __future__ import annotations

import shlex
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import msgspec
import orjson

from activation._errors import ExitCode
from activation._models import FLAGGED, Status
from activation.inputs.change_plan import GateKind, GateRun, Plan
from activation.inputs.changes import ChangeKind, ChangeStatus
from activation.inputs.variants import AGENTS_DIFFER
from activation.report import cost_words, follow_up, run_words
from activation.report.junit import count_texts, failing, testcase, written
from activation.report.markdown import escape
from activation.report.matrix import Matrix
from activation.report.views import view_of
from activation.trials.listing.visibility import LessVisible
from activation.trials.stage import CostEstimate, stage_named

CHANGED_SCHEMA = "activation-changed/1"
GATE_TITLES: dict[GateKind, str] = {"activation": "activation gate", "behavior": "behavior suite"}
KIND_TITLES: dict[ChangeKind, str] = {
    "description": "description",
    "body": "body or references",
    "other": "other",
}
ICONS: dict[int, str] = {ExitCode.OK: "✅", ExitCode.INCOMPLETE: "⚠️"}
"""The job summary's mark per exit code; any other is a failure (❌)."""
OUTCOMES: dict[int, str] = {
    ExitCode.OK: "OK",
    ExitCode.REGRESSED: "FAILED",
    ExitCode.INCOMPLETE: "INCOMPLETE",
    ExitCode.INTERRUPTED: "INTERRUPTED",
}
"""A gate's outcome in a word, by its exit code."""


@dataclass(frozen=True, kw_only=True)
class ChangedSkill:
    id: str
    path: str
    status: ChangeStatus
    kinds: tuple[ChangeKind, ...]
    files: tuple[str, ...]
    untested: tuple[ChangeKind, ...] = ()
    """The changed kinds no suite tests."""
    note: str | None = None
    broken: str | None = None
    """Why the agents cannot parse its SKILL.md at the head: a failing finding, unless
    `broken_before`."""
    broken_before: bool = False
    """It did not parse at the base either: not the change's doing, but not tested."""
    breaks: tuple[str, ...] = ()
    """What else the change breaks (a file the SKILL.md refers to, a cases file anchored to
    the skill): a failing finding."""
    known: tuple[str, ...] = ()
    """What was broken at the base already and still is: not the change's doing."""
    renamed_from: str | None = None
    """A renamed skill's id at the base."""


@dataclass(frozen=True, kw_only=True)
class GateResult:
    kind: GateKind
    skill: str
    path: str
    suite: str
    because: tuple[str, ...]
    run: Matrix
    measures_nothing: bool = False
    """Trials ran and none passed in any arm of a cell: its OK cannot see a regression."""

    @property
    def blind(self) -> str | None:
        """Why its OK says nothing, when it `measures_nothing` and passed."""
        if not self.measures_nothing or self.run.exit_code != ExitCode.OK:
            return None
        return next(why for cell in self.run.cells if (why := view_of(cell).blind(cell)))


@dataclass(frozen=True, kw_only=True)
class ChangedReport:
    schema: Literal["activation-changed/1"] = "activation-changed/1"
    version: str
    exit_code: int
    base: str
    head: str
    allow_untested: bool = False
    notice: str | None = None
    """What every output says about the answers, when a gate's are a mock model's (they
    mean nothing about the real agent), as each gate's own report says it."""
    skills: tuple[ChangedSkill, ...] = ()
    gates: tuple[GateResult, ...] = ()
    less_visible: tuple[LessVisible, ...] = ()
    """Each skill an agent shows less of at the head than at the base (no model call): a
    failing finding, tested or not."""

    @property
    def untested(self) -> tuple[ChangedSkill, ...]:
        return tuple(skill for skill in self.skills if skill.untested)

    @property
    def broken(self) -> tuple[ChangedSkill, ...]:
        """The skills whose SKILL.md the change breaks."""
        return tuple(skill for skill in self.skills if skill.broken and not skill.broken_before)

    @property
    def breaking(self) -> tuple[ChangedSkill, ...]:
        """The skills the change breaks something of besides their SKILL.md."""
        return tuple(skill for skill in self.skills if skill.breaks)

    def gates_of(self, skill: str) -> tuple[GateResult, ...]:
        """The gates that ran on `skill`'s own suites."""
        return tuple(gate for gate in self.gates if gate.skill == skill)


def changed_exit(
    runs: Sequence[Matrix], untested: bool, allow_untested: bool, broken: bool = False
) -> int:
    """A regression anywhere, a finding of the change (`broken`: a SKILL.md it broke, a
    skill it hides), or an untested change (unless allowed) fails the gate (1); then the
    worst of the rest (3: missing evidence, 130: interrupted)."""
    codes = [run.exit_code for run in runs]
    if broken or (untested and not allow_untested):
        codes.append(ExitCode.REGRESSED)
    if ExitCode.INTERRUPTED in codes:
        return int(ExitCode.INTERRUPTED)
    if ExitCode.REGRESSED in codes:
        return int(ExitCode.REGRESSED)
    return max(codes, default=int(ExitCode.OK))


def changed_notice(runs: Sequence[tuple[GateRun, Matrix]]) -> str | None:
    """What the gates' answers are (the mock's mean nothing), and which gates it is not
    about: a behavior gate beside mock activation gates ran the real agent."""
    notices = [cell.notice for _gate, run in runs for cell in run.cells if cell.notice]
    if not notices:
        return None
    real = [gate for gate, run in runs if not any(cell.notice for cell in run.cells)]
    said = "; ".join(dict.fromkeys(notices))
    if not real:
        return said
    gates = ", ".join(f"the {gate.kind} gate of {gate.place.id}" for gate in real)
    return f"{said}; not {gates}, whose verdicts are the real agent's"


def build_changed(
    plan: Plan,
    runs: Sequence[tuple[GateRun, Matrix]],
    version: str,
    base: str,
    head: str,
    allow_untested: bool,
    less_visible: tuple[LessVisible, ...] = (),
) -> ChangedReport:
    """The report of a plan whose gates gave `runs` (each gate with its run), and the
    skills the change makes less visible."""
    skills = tuple(
        ChangedSkill(
            id=item.change.id,
            path=item.change.place.path,
            status=item.change.status,
            kinds=item.change.kinds,
            files=item.change.files,
            untested=item.untested,
            note=item.note,
            broken=item.change.broken,
            broken_before=item.change.broken_before,
            breaks=item.breaks,
            known=item.known,
            renamed_from=item.change.renamed_from.id if item.change.renamed_from else None,
        )
        for item in plan.skills
    )
    gates = tuple(
        GateResult(
            kind=gate.kind,
            skill=gate.place.id,
            path=gate.place.path,
            suite=gate.suite,
            because=gate.because,
            run=run,
            measures_nothing=any(view_of(cell).blind(cell) for cell in run.cells),
        )
        for gate, run in runs
    )
    broken = any(item.change.broken and not item.change.broken_before for item in plan.skills)
    found = broken or bool(less_visible) or bool(plan.breaking)
    code = changed_exit([run for _gate, run in runs], bool(plan.untested), allow_untested, found)
    return ChangedReport(
        version=version,
        exit_code=code,
        base=base,
        head=head,
        allow_untested=allow_untested,
        notice=changed_notice(runs),
        skills=skills,
        gates=gates,
        less_visible=less_visible,
    )


# --- words ---------------------------------------------------------------------------------


def changed_text(skill: ChangedSkill) -> str:
    if skill.status == "removed":
        return "removed"
    kinds = ", ".join(KIND_TITLES[kind] for kind in skill.kinds)
    if skill.renamed_from is not None:
        return f"renamed from {skill.renamed_from}" + (f" ({kinds})" if kinds else "")
    return f"added ({kinds})" if skill.status == "added" else kinds


def gate_verdict(gate: GateResult) -> str:
    """The gate's outcome and its cases' statuses over every cell: `FAILED: 9 PASS, 3
    REGRESSED`."""
    counts = Counter(entry.status for cell in gate.run.cells for entry in cell.cases)
    parts = [f"{count} {status.value}" for status, count in counts.items()]
    cells = len(gate.run.cells)
    where = f" over {cells} cells" if cells > 1 else ""
    outcome = OUTCOMES.get(gate.run.exit_code, f"exit {gate.run.exit_code}")
    blind = gate.blind
    if blind is not None:
        return f"{outcome}, but it measures nothing: {', '.join(parts)}{where}; {blind}"
    return f"{outcome}: {', '.join(parts) or 'no case'}{where}"


def cost_text(estimates: Sequence[CostEstimate]) -> str:
    """First round and worst case over some cells' estimates, known only when each is."""
    firsts = [estimate.first_round for estimate in estimates]
    worsts = [estimate.worst_case for estimate in estimates]
    if any(value is None for value in (*firsts, *worsts)):
        return f"unknown ({cost_words.estimate_gaps(estimates)})"
    first = sum(value for value in firsts if value is not None)
    worst = sum(value for value in worsts if value is not None)
    return f"first round {cost_words.money(first)}, worst case {cost_words.money(worst)}"


def gate_lines(gate: GateResult) -> list[str]:
    """One line per case a gate flagged (not PASS or FAIL), then each cell's delta against
    the base branch (`--against`), with its cell when several."""
    cells = gate.run.cells
    where = {cell.cell: f" [{cell.cell}]" if len(cells) > 1 else "" for cell in cells}
    lines = [f"{entry.id}{where[cell.cell]}: {run_words.case_summary(cell, entry)}"
             for cell in cells for entry in cell.cases
             if entry.status not in (Status.PASS, Status.FAIL)]  # fmt: skip
    return lines + [f"{against}{where[cell.cell]}" for cell in cells
                    if (against := run_words.against_line(cell)) is not None]  # fmt: skip


def gate_title(gate: GateResult) -> str:
    title = f"{GATE_TITLES[gate.kind]} of {gate.skill} ({gate.suite})"
    others = [skill for skill in gate.because if skill != gate.skill]
    if others:
        title += f", for {', '.join(others)}"
    return title


def untested_text(skill: ChangedSkill, allowed: bool, base: str) -> str:
    tail = " (allowed by --allow-untested)" if allowed else ""
    if skill.broken is not None and skill.broken_before:
        return f"not tested: {still_broken(skill.broken, base)}{tail}"
    kinds = " and ".join(KIND_TITLES[kind] for kind in skill.untested)
    suites = {"description": "no cases file", "body": "no behavior suite"}
    lacking = " and ".join(suites[kind] for kind in skill.untested if kind in suites)
    return f"not tested: its {kinds} changed and it has {lacking or 'no cases'}{tail}"


def still_broken(broken: str, base: str) -> str:
    """A SKILL.md that did not parse at the base either: not the change's doing, and no
    gate can load it at either version."""
    return (
        f"broken at {base} and still broken (not caused by this change): {broken}; {AGENTS_DIFFER}"
    )


def finding_lines(breaks: Sequence[str], known: Sequence[str], base: str) -> list[str]:
    """What the change breaks, and what was broken before it, a line each."""
    return [f"BROKEN by this change: {line}" for line in breaks] + [
        f"broken at {base} and still broken (not caused by this change): {line}" for line in known
    ]


def skill_findings(
    breaks: Sequence[str],
    known: Sequence[str],
    base: str,
    less_visible: Sequence[LessVisible],
    skill: str,
) -> list[str]:
    """A changed skill's findings, in every output and the dry run alike: what the change
    breaks or found broken, and how it makes the skill less visible, a line each."""
    return [*finding_lines(breaks, known, base), *hidden_lines(less_visible, skill)]


def breaks_text(breaks: Sequence[tuple[str, str]]) -> str:
    """What the change breaks (each skill's id with a finding), in one clause: the skills,
    the first finding, and how many more."""
    ids = ", ".join(dict.fromkeys(skill for skill, _line in breaks))
    more = f" (and {len(breaks) - 1} more)" if len(breaks) > 1 else ""
    return f"the change breaks {ids}: {breaks[0][1]}{more}"


def hidden_text(findings: Sequence[LessVisible]) -> str:
    """What the change hides, in one clause: the skills and the agents."""
    skills = ", ".join(dict.fromkeys(finding.skill for finding in findings))
    agents = ", ".join(dict.fromkeys(finding.agent for finding in findings))
    return f"the change makes {skills} less visible to {agents} (no model call)"


def hidden_lines(findings: Sequence[LessVisible], skill: str) -> list[str]:
    """The findings about `skill`, a line each."""
    return [f"LESS VISIBLE {finding.line}" for finding in findings if finding.skill == skill]


def hidden_siblings(report: ChangedReport) -> list[str]:
    """The skills the change makes less visible though it did not touch them (a sibling
    whose entry a grown one pushed out of the budget)."""
    changed = {skill.id for skill in report.skills}
    return list(dict.fromkeys(f.skill for f in report.less_visible if f.skill not in changed))


def overall(report: ChangedReport) -> str:
    if not report.skills:
        return "OK: no skill changed; nothing to run."
    if report.exit_code == ExitCode.REGRESSED:
        regressed = [gate for gate in report.gates if gate.run.exit_code == ExitCode.REGRESSED]
        if regressed:
            return "FAILED: " + "; ".join(gate_title(gate) for gate in regressed) + " regressed."
        if report.less_visible:
            return f"FAILED: {hidden_text(report.less_visible)}."
        if report.broken:
            ids = ", ".join(skill.id for skill in report.broken)
            return f"FAILED: the change breaks the SKILL.md of {ids} ({AGENTS_DIFFER})."
        if report.breaking:
            found = [(skill.id, line) for skill in report.breaking for line in skill.breaks]
            return f"FAILED: {breaks_text(found)}."
        return "FAILED: a changed skill is not tested (pass --allow-untested to accept it)."
    if report.exit_code == ExitCode.INCOMPLETE:
        return "INCOMPLETE: some trials errored; the evidence is incomplete."
    if report.exit_code == ExitCode.INTERRUPTED:
        return "INTERRUPTED: the run was stopped."
    if not report.gates:
        return "OK: nothing the change touched calls for a gate."
    blind = [gate_title(gate) for gate in report.gates if gate.blind is not None]
    if blind:
        return (
            f"OK, but the {'; the '.join(blind)} measures nothing: it cannot see a regression "
            "(see calibrate --behavior)."
        )
    return "OK: every gate passed."


def next_steps(report: ChangedReport) -> list[tuple[str, str]]:
    """What to run next, each with its heading: every gate's flagged cases with the real
    agent (`changed --real`), and this check again."""
    cells = [cell for gate in report.gates for cell in gate.run.cells]
    if not cells:
        return []
    command = follow_up.command_words(cells[0])
    confirmed = [cell for cell in cells if stage_named(cell.stage).confirmed_by is not None]
    flagged = [id for cell in confirmed for id in cell.ids_with(*FLAGGED)]
    real = follow_up.confirm_command(command, confirmed[0].stage, flagged) if confirmed else None
    steps = [(follow_up.REAL_TITLE, real)] if real else []
    return [*steps, (follow_up.RERUN_TITLE, shlex.join(["activation", *command]))]


def summary_lines(report: ChangedReport) -> list[str]:
    """The plain-text report: per skill, what changed, what ran and the verdicts."""
    lines = [f"activation changed: {report.base} -> {report.head}"]
    if not report.skills:
        lines.append("no skill changed")
    for skill in report.skills:
        lines.append(f"{skill.id} ({skill.path}): {changed_text(skill)}")
        if skill.note:
            lines.append(f"  {skill.note}")
        if skill.untested:
            lines.append(f"  {untested_text(skill, report.allow_untested, report.base)}")
        found = skill_findings(skill.breaks, skill.known, report.base, report.less_visible,
                               skill.id)  # fmt: skip
        lines += [f"  {line}" for line in found]
        for gate in report.gates_of(skill.id):
            lines.append(f"  {gate_title(gate)}: {gate_verdict(gate)}")
            lines += [f"    {line}" for line in gate_lines(gate)]
    changed = {skill.id for skill in report.skills}
    for gate in report.gates:
        if gate.skill not in changed:
            lines.append(f"{gate.skill} ({gate.path}): unchanged, a sibling of a changed skill")
            lines.append(f"  {gate_title(gate)}: {gate_verdict(gate)}")
            lines += [f"    {line}" for line in gate_lines(gate)]
    for sibling in hidden_siblings(report):
        lines.append(f"{sibling}: unchanged, a sibling of a changed skill")
        lines += [f"  {line}" for line in hidden_lines(report.less_visible, sibling)]
    for title, command in next_steps(report):
        lines += [title, f"  {command}"]
    if report.notice:
        lines.append(f"NOTE: {report.notice}")
    lines.append(overall(report))
    return lines


# --- files ---------------------------------------------------------------------------------


def changed_data(report: ChangedReport) -> dict[str, Any]:
    """The report as plain data, each gate's run as its own command saves it (a run of
    one cell as that cell's report)."""
    from activation.report.codec import report_data

    data: dict[str, Any] = msgspec.to_builtins(report)
    for entry, gate in zip(data["gates"], report.gates, strict=True):
        entry["run"] = report_data(gate.run)
    return data


def changed_json(report: ChangedReport) -> bytes:
    return orjson.dumps(changed_data(report), option=orjson.OPT_INDENT_2) + b"\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def render_changed_markdown(report: ChangedReport) -> str:
    """The job summary and pull-request comment: a row per skill, then each gate's
    flagged cases."""
    icon = ICONS.get(report.exit_code, "❌")
    lines = [
        f"### {icon} activation changed: {overall(report)}",
        "",
        f"Base `{report.base}`, head {report.head}.",
        "",
    ]
    if report.notice:
        lines += [f"> **Note:** {escape(report.notice)}", ""]
    if report.skills or report.gates:
        lines += ["| skill | changed | ran | verdict |", "|---|---|---|---|"]
    changed = {skill.id for skill in report.skills}
    for skill in report.skills:
        gates = report.gates_of(skill.id)
        ran = "<br>".join(_cell(gate_title(gate)) for gate in gates) or "nothing"
        verdicts = [_cell(gate_verdict(gate)) for gate in gates]
        if skill.untested:
            verdicts.append(_cell(untested_text(skill, report.allow_untested, report.base)))
        elif skill.note:
            verdicts.append(_cell(skill.note))
        found = skill_findings(skill.breaks, skill.known, report.base, report.less_visible,
                               skill.id)  # fmt: skip
        verdicts += [_cell(line) for line in found]
        row = [f"`{skill.id}`", _cell(changed_text(skill)), ran, "<br>".join(verdicts) or "-"]
        lines.append("| " + " | ".join(row) + " |")
    for gate in report.gates:
        if gate.skill not in changed:
            row = [
                f"`{gate.skill}`",
                "unchanged (a sibling)",
                _cell(gate_title(gate)),
                _cell(gate_verdict(gate)),
            ]
            lines.append("| " + " | ".join(row) + " |")
    for sibling in hidden_siblings(report):
        hidden = "<br>".join(_cell(line) for line in hidden_lines(report.less_visible, sibling))
        lines.append(f"| `{sibling}` | unchanged (a sibling) | visibility | {hidden} |")
    for gate in report.gates:
        flagged = gate_lines(gate)
        if flagged:
            lines += ["", f"**{_cell(gate_title(gate))}**", ""]
            lines += [f"- {_cell(line)}" for line in flagged]
    for title, command in next_steps(report):
        lines += ["", title, "", "```sh", command, "```"]
    return "\n".join(lines) + "\n"


def render_changed_junit(report: ChangedReport) -> bytes:
    """A testsuite per gate (per cell of it), a testcase per case; an untested skill is a
    failing testcase of its own (skipped with --allow-untested)."""
    root = ET.Element("testsuites", {"name": "activation changed"})
    totals = {"tests": 0, "failures": 0, "errors": 0}
    for gate in report.gates:
        for cell in gate.run.cells:
            fails = failing(cell)
            name = f"{GATE_TITLES[gate.kind]} {gate.skill}"
            name += f" [{cell.cell}]" if len(gate.run.cells) > 1 else ""
            counts = {
                "tests": len(cell.cases),
                "failures": sum(cell.count(status) for status in fails),
                "errors": cell.count(Status.ERROR),
            }
            suite = _suite(root, name, counts, report.notice, gate.blind)
            for entry in cell.cases:
                extra = view_of(cell).case_lines(cell, entry)
                testcase(suite, entry, fails, cell, extra, gate.skill)
            for key in totals:
                totals[key] += counts[key]
    untested = report.untested
    if untested:
        failures = 0 if report.allow_untested else len(untested)
        counts = {"tests": len(untested), "failures": failures, "errors": 0}
        suite = _suite(root, "not tested", counts, report.notice)
        for skill in untested:
            case = ET.SubElement(suite, "testcase", classname="untested", name=skill.id)
            text = untested_text(skill, report.allow_untested, report.base)
            if report.allow_untested:
                ET.SubElement(case, "skipped", message=text)
            else:
                ET.SubElement(case, "failure", type="NOT-TESTED", message=text)
        for key in totals:
            totals[key] += counts[key]
    broken = [(skill.id, skill.note or "") for skill in report.broken] + [
        (skill.id, line) for skill in report.breaking for line in skill.breaks
    ]
    if broken:
        counts = {"tests": len(broken), "failures": len(broken), "errors": 0}
        suite = _suite(root, "broken", counts, report.notice)
        for name, message in broken:
            case = ET.SubElement(suite, "testcase", classname="broken", name=name)
            ET.SubElement(case, "failure", type="BROKEN", message=message)
        for key in totals:
            totals[key] += counts[key]
    if report.less_visible:
        hidden = report.less_visible
        counts = {"tests": len(hidden), "failures": len(hidden), "errors": 0}
        suite = _suite(root, "less visible", counts, report.notice)
        for finding in hidden:
            name = f"{finding.skill} [{finding.agent}]"
            case = ET.SubElement(suite, "testcase", classname="less-visible", name=name)
            ET.SubElement(case, "failure", type="LESS-VISIBLE", message=finding.line)
        for key in totals:
            totals[key] += counts[key]
    root.attrib.update(count_texts(totals))
    return written(root)


def _suite(
    root: ET.Element,
    name: str,
    counts: dict[str, int],
    notice: str | None,
    blind: str | None = None,
) -> ET.Element:
    """A testsuite; its properties carry the mock notice and why a passing gate's suite
    measures nothing, where CI shows a suite's."""
    suite = ET.SubElement(root, "testsuite", {"name": name, **count_texts(counts)})
    said = {"notice": notice, "measures_nothing": blind}
    if any(said.values()):
        properties = ET.SubElement(suite, "properties")
        for key, value in said.items():
            if value:
                ET.SubElement(properties, "property", name=key, value=value)
    return suite


def changed_file(name: str, report: ChangedReport, path: Path) -> bytes:
    """The report file `name` (junit, markdown or html) for `path` (the HTML links its
    transcripts relative to the file's folder)."""
    if name == "junit":
        return render_changed_junit(report)
    if name == "markdown":
        return render_changed_markdown(report).encode()
    from activation.report.changed_html import render_changed_html

    return render_changed_html(report, path.absolute().parent).encode()
