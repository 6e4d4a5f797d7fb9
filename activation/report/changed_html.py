"""The HTML page of `activation changed`: a row per changed skill (what changed, what ran,
the verdicts), then every gate's cells, each the section the single-run page shows (its
cases, charts, trials and transcript links), from the same template partials."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath

from activation.report.changed import (
    GATE_TITLES,
    ChangedReport,
    changed_text,
    gate_title,
    gate_verdict,
    hidden_lines,
    hidden_siblings,
    overall,
    skill_findings,
    untested_text,
)
from activation.report.html import Section, environment, section, shared

HEADING_LEVEL = 3
"""A cell's own headings sit under its gate's."""


@dataclass(frozen=True)
class Line:
    text: str
    anchor: str | None
    """The id of the gate's first section, for a link (None: the gate ran no cell)."""


@dataclass(frozen=True)
class Row:
    skill: str
    changed: str
    ran: tuple[Line, ...]
    verdicts: tuple[str, ...]


def render_changed_html(report: ChangedReport, base: PurePath | None = None) -> str:
    """The page; `base` is the folder it will be saved in, for relative transcript links."""
    sections: list[tuple[str, Section]] = []
    anchors: dict[int, str] = {}
    for number, gate in enumerate(report.gates, 1):
        for index, cell in enumerate(gate.run.cells, 1):
            prefix = f"gate-{number}-cell-{index}-"
            anchors.setdefault(number, f"{prefix}report")
            where = f", cell {cell.cell}" if len(gate.run.cells) > 1 else ""
            title = f"{GATE_TITLES[gate.kind]} of {gate.skill}{where}"
            sections.append((title, section(cell, base, prefix, HEADING_LEVEL)))
    rows = []
    for skill in report.skills:
        numbered = [(n, g) for n, g in enumerate(report.gates, 1) if g.skill == skill.id]
        verdicts = [gate_verdict(gate) for _n, gate in numbered]
        if skill.untested:
            verdicts.append(untested_text(skill, report.allow_untested, report.base))
        elif skill.note:
            verdicts.append(skill.note)
        verdicts += skill_findings(skill.breaks, skill.known, report.base, report.less_visible,
                                   skill.id)  # fmt: skip
        ran = tuple(Line(gate_title(gate), anchors.get(n)) for n, gate in numbered)
        rows.append(Row(skill.id, changed_text(skill), ran, tuple(verdicts)))
    changed = {skill.id for skill in report.skills}
    for number, gate in enumerate(report.gates, 1):
        if gate.skill not in changed:
            ran = (Line(gate_title(gate), anchors.get(number)),)
            rows.append(Row(gate.skill, "unchanged (a sibling)", ran, (gate_verdict(gate),)))
    for sibling in hidden_siblings(report):
        hidden = tuple(hidden_lines(report.less_visible, sibling))
        rows.append(Row(sibling, "unchanged (a sibling)", (), hidden))
    template = environment().get_template("changed.html.j2")
    return template.render(
        report=report,
        title=f"activation changed: {report.base} -> {report.head}",
        verdict=overall(report),
        rows=rows,
        sections=sections,
        prefixes=[part.prefix for _title, part in sections],
        **shared(),
    )
