"""Visibility before activation: can the model see a skill, and can the agent load it?

Before a model can choose a skill the agent must list it: whole, cut at its per-entry
limit, reduced to its name by its listing budget, or not at all (too long for that agent,
no `name`, implicit invocation turned off by a frontmatter field or the agent's own policy
file). Each agent says its rules in its own package (`visibility` beside its `listing`,
trials/agents/<agent>/listing.py); this module holds what every agent's verdict is made of
and the one comparison the gate needs: a candidate less visible than its baseline.

Pure: the records, the ranking and the comparison; no agent is named here.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, replace

from activation.trials.listing.model import Entry, ListedSkill, Listing, Seen

RANK: Mapping[Seen, int] = {"full": 0, "cut": 1, "collapsed": 2, "hidden": 3}
"""How much of a skill the model sees, most first."""
SEEN_WORDS: Mapping[Seen, str] = {
    "full": "listed whole",
    "cut": "cut",
    "collapsed": "name only",
    "hidden": "not listed",
}


@dataclass(frozen=True)
class Visibility:
    """How one agent shows one skill to the model, and whether a run can load it.

    `chars` is the length of the text the agent would list for it whole (its description,
    with what the agent appends), `kept` how many of those characters the listing sends
    (all when `full`, 0 when `collapsed` or `hidden`). `rule` names the agent's rule that
    made it so ("" when listed whole); `budget_by`, for a skill the budget reduced or left
    out, the skills that kept their text in that budget. `loadable` says whether a headless
    run of the agent, as this tool starts it, can load it; `load_rule` why not, or what
    this tool opens for it."""

    id: str
    state: Seen
    chars: int
    kept: int
    rule: str = ""
    budget_by: tuple[str, ...] = ()
    loadable: bool = True
    load_rule: str = ""

    @property
    def words(self) -> str:
        """The verdict in a few words: "cut (1,535 of 2,000 characters): <rule>"."""
        head = SEEN_WORDS[self.state]
        if self.state == "cut":
            head += f" ({self.kept:,} of {self.chars:,} characters)"
        if self.rule:
            head += f": {self.rule}"
        if not self.loadable and self.state != "hidden":
            head += f"; cannot be loaded ({self.load_rule})"
        return head

    def less_visible_than(self, other: Visibility) -> bool:
        """Whether the model sees less of this skill than of `other`: a worse state, fewer
        characters kept of a cut entry, or a load the other allows and this one not."""
        if RANK[self.state] != RANK[other.state]:
            return RANK[self.state] > RANK[other.state]
        if self.state == "cut" and self.kept < other.kept:
            return True
        return other.loadable and not self.loadable


@dataclass(frozen=True)
class LessVisible:
    """A skill of the set that the candidate shows less of than the baseline, in one cell:
    a finding of its own, which fails the gate without a model call."""

    cell: str
    agent: str
    """The agent's title and version ("Codex CLI 0.171.0")."""
    skill: str
    baseline: Visibility
    candidate: Visibility

    @property
    def line(self) -> str:
        """One line naming the agent, the skill and the rule."""
        return (
            f"{self.agent}: {self.skill} is less visible in the candidate: "
            f"{self.baseline.words} -> {self.candidate.words}"
        )


def less_visible(
    cell: str,
    agent: str,
    baseline: Sequence[Visibility],
    candidate: Sequence[Visibility],
) -> tuple[LessVisible, ...]:
    """Each skill both variants have that the candidate shows less of (a skill the
    candidate adds or drops is a change of the set, not of its visibility). Two copies of
    one id (a user's and a project's) are paired by their order, the same in both."""
    before = dict(zip(_copy_keys(baseline), baseline, strict=True))
    return tuple(
        LessVisible(cell, agent, seen.id, before[key], seen)
        for key, seen in zip(_copy_keys(candidate), candidate, strict=True)
        if key in before and seen.less_visible_than(before[key])
    )


def _copy_keys(verdicts: Sequence[Visibility]) -> list[tuple[str, int]]:
    """Each verdict's id and how many verdicts of that id come before it."""
    count: dict[str, int] = {}
    keys = []
    for seen in verdicts:
        keys.append((seen.id, count.get(seen.id, 0)))
        count[seen.id] = count.get(seen.id, 0) + 1
    return keys


# --- helpers the agents' rules share -------------------------------------------------------


def budget_takers(listing: Listing) -> tuple[str, ...]:
    """The entries that kept their text in an over-budget listing, the widest first: who
    took the budget the reduced ones lack."""
    kept = [entry for entry in listing.entries if entry.state != "collapsed"]
    kept.sort(key=lambda entry: -len(entry.line))
    return tuple(entry.id for entry in kept)


def over_budget(listing: Listing) -> bool:
    return listing.full_width > listing.budget


def from_entry(
    entry: Entry,
    chars: int,
    kept: int,
    listing: Listing,
    cut_rule: str,
    budget_rule: str,
) -> Visibility:
    """The verdict on a listed skill: whole, cut (by `cut_rule`, the agent's per-entry
    limit), or collapsed by its budget (`budget_rule`)."""
    if entry.state == "full":
        return Visibility(entry.id, "full", chars, chars)
    if entry.state == "cut":
        return Visibility(entry.id, "cut", chars, kept, cut_rule)
    return Visibility(entry.id, "collapsed", chars, 0, budget_rule, budget_takers(listing))


def hidden(skill_id: str, chars: int, rule: str, budget_by: tuple[str, ...] = ()) -> Visibility:
    """The verdict on a skill the agent does not list: `rule` says why. The model is never
    told it exists, so no run loads it but by chance."""
    return Visibility(skill_id, "hidden", chars, 0, rule, budget_by, loadable=False,
                      load_rule="not listed, so the model is never told of it")  # fmt: skip


def entry_visibility(skills: Sequence[ListedSkill], listing: Listing) -> tuple[Visibility, ...]:
    """The verdicts read from the listing alone, for an agent whose package says no rules
    of its own yet: each entry's state, its text's length from its lines, and "not listed
    by the agent" for a skill without an entry. An agent's own `visibility` says more (how
    many characters survive a cut, which rule hid a skill)."""
    out = []
    for skill in skills:
        entry = listing.entry(skill.id)
        if entry is None:
            out.append(hidden(skill.id, 0, "not listed by the agent"))
            continue
        whole, shown = len(entry.full_line), len(entry.line)
        out.append(from_entry(entry, whole, min(shown, whole), listing,
                              "cut by the agent", "over the agent's listing budget"))  # fmt: skip
    return tuple(out)


def beside_builtins(
    verdicts: Sequence[Visibility],
    skills: Sequence[ListedSkill],
    builtins: Collection[str],
    name_of: Callable[[ListedSkill], str],
    says: Callable[[str], str],
) -> tuple[Visibility, ...]:
    """The verdicts, each listed skill whose name (`name_of`, the name the agent lists it
    by) is one of the agent's `builtins` saying in its rule what the agent does with the
    two (`says` of the name: the user's replaces the built-in, or both are listed), the
    agent's own rule, read in its source or measured."""
    names = {skill.id: name_of(skill) for skill in skills}
    return tuple(
        replace(seen, rule="; ".join(filter(None, (seen.rule, says(names[seen.id])))))
        if seen.state != "hidden" and names.get(seen.id) in builtins
        else seen
        for seen in verdicts
    )


def whole_or_hidden(
    skills: Sequence[ListedSkill],
    listing: Listing,
    name_of: Callable[[ListedSkill], str | None],
    hidden_rule: Callable[[ListedSkill, Entry | None], str],
    beside: tuple[Collection[str], Callable[[str], str]],
    load_rule: str = "",
) -> tuple[Visibility, ...]:
    """The verdicts of an agent that cuts nothing and has no budget and lists one skill per
    name (`name_of`): a skill is listed whole when the listing's entry of its name is its
    own (its id from its source; of two such, the later), else hidden, and `hidden_rule`
    says why from the entry that took its name (None: the agent skips its file, `name_of`
    None). `beside` is the
    agent's built-ins and what it does with a skill named like one (`beside_builtins`);
    `load_rule`, what this tool opens for a listed skill to be loaded."""
    by_name = {entry.name: entry for entry in listing.entries}

    def entry_of(skill: ListedSkill) -> Entry | None:
        name = name_of(skill)
        return None if name is None else by_name.get(name)

    owner: dict[str, ListedSkill] = {}  # the last skill of an entry's id and source
    for skill in skills:
        entry = entry_of(skill)
        if entry is not None and (entry.id, entry.source) == (skill.id, skill.source):
            owner[entry.name] = skill
    out = []
    for skill in skills:
        chars = len(skill.description) if isinstance(skill.description, str) else 0
        entry = entry_of(skill)
        if entry is None or owner.get(entry.name) is not skill:
            out.append(hidden(skill.id, chars, hidden_rule(skill, entry)))
        else:
            seen = from_entry(entry, chars, chars, listing, "", "")
            out.append(replace(seen, load_rule=load_rule))
    builtins, says = beside
    return beside_builtins(out, skills, builtins, lambda skill: str(name_of(skill)), says)


def own_entry(listing: Listing, skill: ListedSkill) -> Entry | None:
    """The skill's own entry: of its id and its source (a user's copy of a project skill
    has the id of the project's)."""
    key = (skill.id, skill.source)
    return next((entry for entry in listing.entries if (entry.id, entry.source) == key), None)


def replaced_by(entry: Entry, skill: ListedSkill, rule: str) -> str:
    """Why `skill` is not listed when `entry`, another skill's, holds the name it would be
    listed by: the other's source when it differs (a user's copy of a project skill), and
    the agent's `rule` of which one wins."""
    other = "a skill" if entry.source == skill.source else f"a {entry.source} skill"
    return f"{other} of the same name ({entry.name!r}) replaces it: {rule}"


def copies_told_apart(
    verdicts: Sequence[Visibility], skills: Sequence[ListedSkill]
) -> tuple[Visibility, ...]:
    """The verdicts (one per skill, in `skills`' order), each of two skills sharing an id
    (a user's copy of a project skill) saying which copy it is, so its line and its twin's
    are told apart."""
    sources: dict[str, set[str]] = {}
    for skill in skills:
        sources.setdefault(skill.id, set()).add(skill.source)
    return tuple(
        replace(seen, rule="; ".join(filter(None, (f"the {skill.source}'s copy", seen.rule))))
        if len(sources[skill.id]) > 1
        else seen
        for seen, skill in zip(verdicts, skills, strict=True)
    )
