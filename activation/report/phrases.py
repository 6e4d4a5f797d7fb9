"""The phrasing every document shares: numbers, money, rates and intervals, counts, a
word diff, the agent and stage a run names. Plain text only (no markup); each renderer
escapes or styles it its own way, so the outputs never say the same thing two ways."""

from __future__ import annotations

import difflib

from activation._config import AGENT
from activation._models import NONE, CaseVerdict, RunSettings, Status, Tally
from activation.report.model import Report
from activation.trials.agents import agent_named, known
from activation.verdicts.figures import Count, Interval

NO_RATE = "n/a (no case to count)"


def cut(text: str, width: int) -> str:
    """The text on one line, cut to `width` characters."""
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def number(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}" if value >= 0.001 else f"{value:.0e}"


def tally_cell(tally: Tally) -> str:
    """Activated of valid trials, with the errored ones."""
    return count_cell(tally.activated, tally)


def right_cell(tally: Tally) -> str:
    """Right (or, graded, passed) of valid trials, with the errored ones."""
    return count_cell(tally.correct, tally)


def count_cell(hits: int, tally: Tally) -> str:
    cell = f"{hits}/{tally.valid}"
    return f"{cell} +{tally.errors} err" if tally.errors else cell


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


def agent_title(name: str) -> str:
    """How people call an agent; a saved report's agent this tool no longer knows by name."""
    return agent_named(name).title if name in known() else name


def agent_label(report: RunSettings) -> str | None:
    """ "OpenCode 1.18.33": the agent a Stage B run ran and the version it said it is."""
    if report.agent is None or not report.agent.version:
        return None
    return f"{agent_title(report.coding_agent)} {report.agent.version}"


def sandbox_text(report: RunSettings) -> str:
    """ ", in a bwrap sandbox": where the agent's runs happened (`--sandbox`); in docker,
    with the image they ran in."""
    if report.agent is None:
        return ""
    if report.agent.sandbox == "host":
        return ", on the host (no sandbox)"
    if report.agent.sandbox == "docker":
        return f", in a docker sandbox ({report.agent.image})"
    return f", in a {report.agent.sandbox} sandbox"


STAGE_AGENT = {"A": "in {agent}'s listing"}
"""How a stage meets an agent, where it does not run it ("on {agent}"): Stage A shows the
agent's listing to a model."""


def stage_text(spec: RunSettings) -> str:
    """ "Stage A", and whose listing it shows (Stage B: which agent runs) when that is not
    the default agent's."""
    if spec.coding_agent == AGENT:
        return f"Stage {spec.stage}"
    met = STAGE_AGENT.get(spec.stage, "on {agent}")
    return f"Stage {spec.stage} {met.format(agent=agent_title(spec.coding_agent))}"


def model_text(spec: RunSettings) -> str:
    return spec.model or "the CLI's default model"


def status_text(entry: CaseVerdict) -> str:
    return entry.status.value + (" (partial)" if entry.partial else "")


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


def signed(value: float) -> str:
    return f"{value * 100:+.0f}"


def route_text(tally: Tally) -> str:
    """Where trials went, most first: "billing:refunds 2/3, no skill 1/3"."""
    ordered = sorted(tally.routes.items(), key=lambda item: (-item[1], item[0]))
    return ", ".join(
        f"{'no skill' if route == NONE else route} {n}/{tally.valid}" for route, n in ordered
    )
