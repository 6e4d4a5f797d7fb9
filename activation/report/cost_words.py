"""What a run spent, in words every output shares: its cost and where it comes from (or
what keeps it unknown), usage, concurrency, the cost ceiling; a matrix's whole cost."""

from __future__ import annotations

from collections.abc import Sequence

from activation.report.matrix import Matrix
from activation.report.model import Report
from activation.report.phrases import (
    agent_title,
)
from activation.trials.stage import CostEstimate, stage_named


def money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def cost_line(report: Report) -> str:
    """The run's cost, and where it comes from; unknown is said, never shown as $0, with
    what is missing (`unknown_cost`)."""
    cost, basis = report.usage.cost_usd, stage_named(report.stage).cost_basis(report.spec)
    if cost is not None and basis is not None:
        return f"cost ${cost:.4f} ({basis})"
    return f"cost unknown ({unknown_cost(report)})"


def unknown_cost(report: Report) -> str:
    """What keeps a run's cost unknown: a price (the stage's `unpriced`, which a plan says
    too), or the tokens of an agent's runs (a stream that carries none, a run stopped at a
    load before the agent reported them), which no price can replace."""
    gap = stage_named(report.stage).unpriced(report.spec)
    ran = [trial.usage for case in report.cases for trial in case.trials if not trial.cached]
    blind = [u for u in ran if u.cost_usd is None and not (u.input_tokens or u.output_tokens)]
    if report.agent is None or not blind:
        return gap or "a trial reported no cost"
    agent = agent_title(report.coding_agent)
    if report.trial_detail == "all" and len(blind) == len(ran):
        return f"{agent}'s stream carried no token counts in any of {len(ran)} trials"
    counted = f"{len(blind)} of {len(ran)}" if report.trial_detail == "all" else "some"
    tokens = f"{counted} trials stopped before {agent} reported tokens"
    priced = stage_named(report.stage).cost_basis(report.spec) is not None
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


def matrix_cost_line(matrix: Matrix) -> str:
    """The whole run's cost: unknown when any cell's is, with what each such cell lacks;
    never a $0 for "unknown"."""
    cost = matrix.usage.cost_usd
    unknown = [
        f"{cell.cell}: {unknown_cost(cell)}"
        for cell in matrix.cells
        if cell.usage.cost_usd is None or stage_named(cell.stage).cost_basis(cell.spec) is None
    ]
    spent = f"cost unknown ({'; '.join(unknown)})" if unknown else f"cost {money(cost)}"
    return f"{spent} over {len(matrix.cells)} cells, {matrix.usage.requests:,} request(s)"
