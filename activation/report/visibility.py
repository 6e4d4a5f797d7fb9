"""What each agent shows of a skill set before any model call: `activation visibility`,
and the lines a dry run prints per cell.

For each agent, the listing as it would be sent, its size against the agent's budget, and
every skill of the set and catalog as visible as the agent makes it (listed whole, cut,
name only, not listed, each with the agent's rule); with a baseline, the skills the
candidate shows less of. Pure: built from the inputs and the agents' own renderers, turned
into plain data by msgspec for `--json`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from activation._errors import ExitCode
from activation._models import VARIANTS, Inputs, VariantName
from activation.inputs.lint import Finding
from activation.trials.agents import agent_named
from activation.trials.listing.menu import variant_listings, variant_visibility
from activation.trials.listing.model import UNBOUNDED, EntryState, Listing
from activation.trials.listing.visibility import SEEN_WORDS, LessVisible, Visibility, less_visible

TAKERS_SHOWN = 5
"""How many of the skills that took the budget a line names (the JSON has them all)."""


@dataclass(frozen=True)
class BuiltinSeen:
    """One of the agent's own built-in skills that its listing does not show whole."""

    id: str
    state: EntryState
    """`cut` at the per-entry limit, or `collapsed`: by name only, over the budget."""


@dataclass(frozen=True)
class ListingView:
    """One variant's listing in one agent: as sent, its size and every skill's verdict."""

    variant: VariantName
    text: str
    """The listing section exactly as the agent would send it (empty: it sends none)."""
    unit: str
    width: int
    full_width: int
    """Its size with no entry cut by the budget."""
    budget: int | None
    """The agent's budget in `unit`; None when it has none."""
    skills: tuple[Visibility, ...]
    builtins: tuple[BuiltinSeen, ...] = ()
    """The agent's own built-in skills it does not list whole: where a budget's cut fell
    when every skill of the set is listed whole."""


@dataclass(frozen=True)
class AgentView:
    agent: str
    """Its name in `--agent`."""
    label: str
    """Its title and pinned version ("Codex CLI 0.171.0")."""
    model: str | None
    """The model the listing was rendered for (None: the CLI's default)."""
    listings: tuple[ListingView, ...]
    less_visible: tuple[LessVisible, ...] = ()
    skill_set: str | None = None
    """The set shown, in a repo of several (its skills folder); None: the only one."""


@dataclass(frozen=True)
class VisibilityReport:
    schema: Literal["activation-visibility/1"]
    exit_code: int
    agents: tuple[AgentView, ...]


def listing_view(name: VariantName, listing: Listing, seen: tuple[Visibility, ...]) -> ListingView:
    budget = None if listing.budget == UNBOUNDED else listing.budget
    ours = {skill.id for skill in seen}
    builtins = (
        *(
            BuiltinSeen(entry.name, entry.state)
            for entry in listing.entries
            if entry.source == "builtin" and entry.state != "full"
        ),
        *(BuiltinSeen(name, "collapsed") for name, named in listing.named if named not in ours),
    )
    return ListingView(name, listing.as_sent, listing.unit, listing.width, listing.full_width,
                       budget, seen, builtins)  # fmt: skip


def agent_view(
    agent: str,
    inputs: Inputs,
    model: str | None,
    variants: Sequence[VariantName],
    skill_set: str | None = None,
) -> AgentView:
    """What `agent` shows of the inputs' set and catalog in each of `variants`, with the
    skills the candidate shows less of when both are asked; `skill_set` names the set in a
    report of several."""
    listings = variant_listings(inputs, model, distractors=False, agent=agent)
    seen = variant_visibility(inputs, listings, agent)
    record = agent_named(agent)
    found = (
        less_visible("visibility", record.label(), seen["baseline"], seen["candidate"])
        if len(variants) == len(VARIANTS)
        else ()
    )
    views = tuple(listing_view(name, listings[name], seen[name]) for name in variants)
    return AgentView(agent, record.label(), model, views, found, skill_set)


def visibility_report(views: Sequence[AgentView]) -> VisibilityReport:
    """The agents' views; a candidate less visible in any agent fails (exit 1)."""
    failed = any(view.less_visible for view in views)
    code = ExitCode.REGRESSED if failed else ExitCode.OK
    return VisibilityReport("activation-visibility/1", int(code), tuple(views))


# --- in words -------------------------------------------------------------------------------


def size_line(view: ListingView) -> str:
    """ "12,345 of 30,000 columns (34,567 whole): 40 listed whole, 2 cut, 18 name only"."""
    size = f"{view.width:,} {view.unit}, no budget"
    if view.budget is not None:
        size = f"{view.width:,} of {view.budget:,} {view.unit}"
        if view.full_width > view.width:
            whole = "every entry, the agent's built-ins too," if view.builtins else "every entry"
            size += f" ({view.full_width:,} if {whole} were whole)"
    counts = {state: sum(seen.state == state for seen in view.skills) for state in SEEN_WORDS}
    said = ", ".join(f"{count} {SEEN_WORDS[state]}" for state, count in counts.items() if count)
    return f"{size}: {said or 'no skill'}"


def builtins_line(view: ListingView) -> str | None:
    """Which of the agent's own built-ins lost their descriptions, in one line (None when
    every built-in is listed whole)."""
    if not view.builtins:
        return None
    said = "; ".join(
        f"{', '.join(b.id for b in view.builtins if b.state == state)} {BUILTIN_WORDS[state]}"
        for state in BUILTIN_WORDS
        if any(b.state == state for b in view.builtins)
    )
    return f"the agent's own built-in skills not listed whole: {said}"


BUILTIN_WORDS: Mapping[EntryState, str] = {
    "collapsed": "by name only, without a description (over the budget)",
    "cut": "cut at the per-entry limit",
}


def skill_line(seen: Visibility) -> str:
    line = f"{seen.id}: {seen.words}"
    if seen.budget_by:
        shown = ", ".join(seen.budget_by[:TAKERS_SHOWN])
        more = len(seen.budget_by) - TAKERS_SHOWN
        line += f"; the budget went to {shown}" + (f" and {more} more" if more > 0 else "")
    return line


def view_lines(view: ListingView, *, every: bool = True) -> list[str]:
    """A listing's size and its skills' verdicts (`every` False: only those not listed
    whole)."""
    lines = [f"{view.variant}: {size_line(view)}"]
    builtins = builtins_line(view)
    lines += [] if builtins is None else [f"  {builtins}"]
    lines += [f"  {skill_line(seen)}" for seen in view.skills if every or seen.state != "full"]
    return lines


def render_visibility(report: VisibilityReport, *, listing: bool = True) -> str:
    """The terminal view: per agent, the listing as sent (`listing`), its size against
    the budget, every skill's verdict, and the skills the candidate shows less of."""
    lines: list[str] = []
    for view in report.agents:
        model = view.model or "its default model"
        where = f": {view.skill_set}" if view.skill_set else ""
        lines.append(f"== {view.label} ({model}){where}")
        for shown in view.listings:
            lines += view_lines(shown)
            if listing:
                lines += ["  listing as sent:", *(f"    {line}" for line in shown.text.split("\n"))]
        lines += [f"LESS VISIBLE {finding.line}" for finding in view.less_visible]
        lines.append("")
    failed = sum(len(view.less_visible) for view in report.agents)
    lines.append(
        f"FAILED: {failed} skill(s) less visible in the candidate."
        if failed
        else "OK: no skill is less visible in the candidate."
        if any(len(view.listings) == len(VARIANTS) for view in report.agents)
        else "OK: shown; pass --baseline to compare."
    )
    return "\n".join(lines)


def lint_findings(view: AgentView, shown: Mapping[str, str]) -> list[Finding]:
    """What `lint` says of one agent's listing: a warning for each skill of `shown` (id ->
    its SKILL.md) the agent does not list whole, with the agent and its rule. Skills that
    hide themselves from the model are left out of `shown`: hiding them is their choice."""
    return [
        Finding("warning", None, f"{shown[seen.id]}: {view.label}: {seen.words}")
        for listing in view.listings
        for seen in listing.skills
        if seen.id in shown and seen.state != "full"
    ]


def cell_lines(
    listings: Mapping[VariantName, Listing],
    seen: Mapping[VariantName, tuple[Visibility, ...]],
    found: Sequence[LessVisible],
) -> list[str]:
    """What a dry run prints of a cell: each variant's listing size and the skills it does
    not list whole, then the skills the candidate shows less of."""
    lines = ["visibility (no model call):"]
    for name in VARIANTS:
        lines += [f"  {line}" for line in view_lines(
            listing_view(name, listings[name], seen[name]), every=False)]  # fmt: skip
    lines += [f"  LESS VISIBLE {finding.line}" for finding in found]
    return lines
