"""The page of `activation history`: one static file, each series' metrics as inline SVG
charts (a point per run, its interval as a bar, a dashed line where the description or body
was edited), with no script, font or style loaded from anywhere else."""

from __future__ import annotations

from dataclasses import dataclass

from activation.report.history import METRICS, TITLES, History, Point, Series, delta_text
from activation.report.html import environment

WIDTH = 420
HEIGHT = 140
LEFT = 44
RIGHT = 12
TOP = 10
BOTTOM = 20


@dataclass(frozen=True)
class Dot:
    x: float
    y: float
    low: float | None
    high: float | None
    change: str
    green: bool
    title: str


@dataclass(frozen=True)
class Chart:
    metric: str
    title: str
    dots: tuple[Dot, ...]
    path: str
    """The polyline through the dots."""
    edits: tuple[float, ...]
    """The x of each point whose description or body moved since the one before."""
    ticks: tuple[tuple[float, str], ...]


def _scale(metric: str, values: list[float]) -> tuple[float, float]:
    """The y axis' range: a share from 0 to 1, the lift from -1 to 1, cost from 0 up."""
    if metric == "lift":
        return -1.0, 1.0
    if metric == "cost_usd":
        return 0.0, max(values) or 1.0
    return 0.0, 1.0


def _tick(metric: str, value: float) -> str:
    if metric == "cost_usd":
        return f"${value:.4f}"
    return f"{value:+.0%}" if metric == "lift" else f"{value:.0%}"


def _title(point: Point, metric: str) -> str:
    figure = point.figures[metric]
    interval = "" if figure.low is None or figure.high is None else (
        f" (95% {figure.low:.0%}-{figure.high:.0%})" if metric != "lift"
        else f" ({figure.low:+.0%} to {figure.high:+.0%})")  # fmt: skip
    return (f"{point.run}: {figure.text}{interval}; exit {point.exit_code}; {point.change}; "
            f"description {point.description}; body {point.body or '-'}; "
            f"agent {point.agent_version or '-'}; activation {point.version}")  # fmt: skip


def chart(series: Series, metric: str) -> Chart | None:
    """The metric's chart over the series, or None when no point measured it."""
    count = len(series.points)
    measured = [(i, p) for i, p in enumerate(series.points) if metric in p.figures]
    if not measured:
        return None
    bottom, top = _scale(metric, [p.figures[metric].value for _, p in measured])
    span = WIDTH - LEFT - RIGHT

    def x(index: int) -> float:
        return round(LEFT + (span * index / (count - 1) if count > 1 else span / 2), 1)

    def y(value: float) -> float:
        return round(TOP + (HEIGHT - TOP - BOTTOM) * (top - value) / (top - bottom), 1)

    def maybe(value: float | None) -> float | None:
        return None if value is None else y(value)

    dots = tuple(
        Dot(x(i), y(p.figures[metric].value), maybe(p.figures[metric].low),
            maybe(p.figures[metric].high), p.change, p.green, _title(p, metric))
        for i, p in measured
    )  # fmt: skip
    return Chart(
        metric,
        TITLES[metric],
        dots,
        " ".join(f"{dot.x},{dot.y}" for dot in dots),
        tuple(x(i) for i, p in enumerate(series.points) if p.change == "edit"),
        tuple((y(v), _tick(metric, v)) for v in (bottom, (bottom + top) / 2, top)),
    )


def render_history_html(found: History) -> str:
    """The whole page."""
    deltas = found.deltas or {}
    sections = [
        {
            "series": series,
            "anchor": f"series-{number}",
            "charts": [c for metric in METRICS if (c := chart(series, metric)) is not None],
            "delta": [(TITLES[m], delta_text(m, v)) for m, v in deltas[series.key].changes.items()]
            if series.key in deltas else None,
        }
        for number, series in enumerate(found.series, 1)
    ]  # fmt: skip
    template = environment().get_template("history.html.j2")
    return template.render(
        history=found, sections=sections, width=WIDTH, height=HEIGHT, left=LEFT,
        right=WIDTH - RIGHT, top=TOP, bottom=HEIGHT - BOTTOM,
    )  # fmt: skip
