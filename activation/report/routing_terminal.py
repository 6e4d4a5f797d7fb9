"""The terminal's routing section: per skill, its recall and precision with intervals and
where its cases went instead or whose it took; the routing matrix as its non-empty cells
(a 40-skill catalog's full matrix would not fit a terminal, and is mostly empty); the cases
with several acceptable skills. Only for a suite that routes among several skills."""

from __future__ import annotations

from rich.console import RenderableType
from rich.table import Table

from activation.report import routing_text
from activation.report.model import Report


def skills_table(report: Report) -> Table:
    table = Table(title=routing_text.SKILLS_TITLE, title_justify="left")
    table.add_column("skill", no_wrap=True)
    table.add_column("recall", justify="right")
    table.add_column("precision", justify="right")
    table.add_column("lost to")
    table.add_column("took from")
    for row in routing_text.skill_rows(report):
        table.add_row(row.skill, row.recall, row.precision, row.lost_to, row.took_from)
    return table


def cells_table(report: Report) -> Table:
    table = Table(title=routing_text.CELLS_TITLE, title_justify="left")
    table.add_column("expected", no_wrap=True)
    table.add_column("first skill fired", no_wrap=True)
    table.add_column("baseline", justify="right")
    table.add_column("candidate", justify="right")
    for expected, went, old, new in routing_text.cell_rows(report):
        table.add_row(expected, went, str(old), str(new))
    return table


def ambiguous_table(report: Report) -> Table | None:
    rows = routing_text.ambiguous_rows(report)
    if not rows:
        return None
    table = Table(title=routing_text.AMBIGUOUS_TITLE, title_justify="left")
    table.add_column("id", no_wrap=True)
    table.add_column("acceptable")
    table.add_column("baseline picked")
    table.add_column("candidate picked")
    for row in rows:
        table.add_row(*row)
    return table


def routing_parts(report: Report) -> list[RenderableType]:
    """The routing section, or nothing for a suite that does not route among skills."""
    if not routing_text.routes_among_skills(report):
        return []
    ambiguous = ambiguous_table(report)
    return [skills_table(report), cells_table(report), *([ambiguous] if ambiguous else [])]
