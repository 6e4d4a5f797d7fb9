"""Static checks on a case matrix and a description: no model call, so they run first.

A green activation run means something only if the cases are sound: every label is justified,
no case is counted twice, every positive has a negative twin that shares its vocabulary (so a
description that merely matches words is caught), and no prompt parrots the description (which
tests string matching, not intent).

Errors: whatever makes the run refuse the file (the one validator in `cases`: shape, fields,
a missing `why`, duplicate ids, identical prompts, a twin that names no case) and a
description over 1,024 characters. Under the suite's policy (`strict`: the bundled suite, or
`lint --strict`) also a positive without a twin, a twin that expects what its case expects,
and a group with no case; for a user's own matrix the twin rules are warnings (none for a
routing suite, whose skills' positives are each other's negatives) and groups are not
checked. A positive is a case that expects a skill: `should_activate`, or an
`expect` naming one; its twin belongs elsewhere (a negative, another skill, or none).
The groups are the bundled suite's (`GROUPS`) for cases that do not route; for cases that
`expect`, the user's own: each skill of the set, and no skill.

Warnings:

- a case without a `why` (read from a format that has none, or `"why": null`): no reason
  is invented, so each is named.
- near-duplicate prompts: rapidfuzz's `fuzz.ratio` (the Indel similarity) >= 0.9 on the
  normalised prompts (lower-cased, whitespace collapsed). A character-level ratio catches
  the copy-and-tweak duplicates (one word or a typo changed) that token overlap misses on
  short prompts.
- a prompt that echoes the description: words are lower-cased tokens (`next.js` and
  `asp.net` stay whole) with a plural `s` stripped from alphanumeric ones; a *content word* is
  one that is not in `STOP_WORDS` (common English plus the generic words of skill
  descriptions: use, app, add, fix, user, ...) and has at least three characters or a digit.
  The description's *distinctive words* are its content words. A prompt echoes the
  description when it shares a run of at least `ECHO_RUN` consecutive words with it that holds
  at least two content words (a copied phrase), or when at least `ECHO_MIN_WORDS` distinct
  distinctive words make up at least `ECHO_MIN_SHARE` of the prompt's content words (a prompt
  assembled from the description's vocabulary). A terse prompt naming one feature and one
  framework stays well clear of both, and so does a long one with pasted error text.

Given the menu the run would list (the measured skill's set, the distractors, the catalog):

- an error for an `expect` or `must_not` id that names no skill of it, or several, or a
  skill the agent hides from the model (`disable-model-invocation`), saying so;
- in a set of several skills, a warning for each skill no case expects: a prompt it loses to
  a sibling would go unseen (an error under a routing suite's policy, for a set of one too;
  not for one skill's own file among the repo's, when `lint` checks them all);
- two skills of the menu, one of them the set's, whose entries read alike (inputs/overlap.py):
  a warning from `SIMILAR_WARN`, an error from `SIMILAR_ERROR` (said once per set, not per
  file, when `lint` checks a whole repo: `overlap_findings`);
- a prompt that echoes a sibling's entry, by the rule above.

Behavior cases (Stage C), per graded case (`lint_behavior`):

- error: a grader's own problem (a pattern that does not compile; the loader refuses one
  too, a case built in code gets the same check);
- error: no positive grader: every negative is void in every trial, so the case never passes
  (`tool_not_used`, `command_not_ran`, `max_turns` or `max_tool_calls` alone would pass
  with the skill not loaded and nothing done);
- error: a trajectory grader that passes when one of the case's skills is merely loaded
  (`tool_used` of a load tool, `command_ran` or `file_read` matching its SKILL.md read):
  it checks the load, not that the body was followed;
- error: a `tool_used` or `tool_not_used` that names `<server>.<tool>` of an MCP server the
  case does not give, or a server's tool in one agent's own form (behavior_mcp.py);
- advice, the seeds' authoring rules (a warning; `--strict` makes it an error, and a run
  never refuses it): every grader but a judge has a level (L1-L5), since per-level results
  are what a user reads first (outputs report the others as unlevelled; a judge with no
  level is a holistic judge); the last grader is a judge with no level, the holistic judge
  ("don't skip the holistic judge").

A manual case (expectations only) gets a warning: it is neither graded nor gated; so does
each key of a case's file that this tool does not use. A grader that already passes on the
scaffold is found in trials/behavior/scaffold_lint.py, which grades the scaffold; the files a
SKILL.md body refers to, in inputs/references.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass
from typing import Literal

from activation._behavior import BehaviorCase
from activation._config import DESCRIPTION_LIMIT, SIMILAR_ERROR, SIMILAR_WARN
from activation._errors import InputError
from activation._models import Case, Skill
from activation.graders.judge import Judge
from activation.graders.tool_used import ToolCalls
from activation.graders.trajectory import Traced
from activation.inputs.behavior_mcp import tool_name_problem
from activation.inputs.cases import CaseFile, normalise_prompt, resolve_ids
from activation.inputs.commands import is_command
from activation.inputs.overlap import listed_text, overlaps
from activation.inputs.words import content_words, is_content, spans, words

Level = Literal["error", "warning"]

GROUPS: tuple[str, ...] = ("keyword-loss", "framework-loss", "indirect", "negative")
"""The four groups the suite's policy asks for: each catches a different way a description
goes wrong."""

NO_WHY = "no 'why' (the file gives none): say why this is the right answer, so it can be reviewed"
NEAR_DUPLICATE_RATIO = 0.9
ECHO_RUN = 4
ECHO_MIN_WORDS = 4
ECHO_MIN_SHARE = 0.6


@dataclass(frozen=True)
class Finding:
    """One problem; `case_id` is None when it concerns the file or the description."""

    level: Level
    case_id: str | None
    message: str


def _shared_runs(prompt: list[str], description: list[str]) -> list[tuple[int, int]]:
    """Every maximal run of consecutive words the two share, as (start, end) in the prompt's
    words, longest first (then by where it starts in the prompt, then in the description)."""
    places: dict[str, list[int]] = {}
    for j, word in enumerate(description):
        places.setdefault(word, []).append(j)
    runs = []
    for i, word in enumerate(prompt):
        for j in places.get(word, ()):
            if i and j and prompt[i - 1] == description[j - 1]:
                continue  # inside a run that starts earlier
            size = 1
            while (
                i + size < len(prompt)
                and j + size < len(description)
                and prompt[i + size] == description[j + size]
            ):
                size += 1
            runs.append((-size, i, j))
    return [(i, i - minus) for minus, i, _j in sorted(runs)]


def echo(prompt: str, description: str, known: frozenset[str] = frozenset()) -> str | None:
    """Why the prompt echoes the description, or None; see the module docstring for the rule.
    What it quotes is the prompt's own text, as written.

    Words of `known` (the content words of text the description keeps from elsewhere) count
    as no content word of either side: only what the description adds can echo a prompt."""

    def counts(word: str) -> bool:
        return is_content(word) and word not in known

    found = spans(prompt)
    prompt_words = [word for word, _start, _end in found]
    for start, end in _shared_runs(prompt_words, words(description)):
        if end - start < ECHO_RUN:
            break
        if sum(map(counts, prompt_words[start:end])) >= 2:
            return f"copies the phrase {prompt[found[start][1] : found[end - 1][2]]!r}"
    content = {word for word in prompt_words if counts(word)}
    shared = content & content_words(description)
    if len(shared) >= ECHO_MIN_WORDS and len(shared) >= ECHO_MIN_SHARE * len(content):
        written = dict.fromkeys(prompt[a:b] for word, a, b in found if word in shared)
        return f"is built from its words {', '.join(written)}"
    return None


@dataclass(frozen=True)
class Menu:
    """The skills a run would list: the measured skill's set (`ours`, the target first) and
    the rest of the menu (distractors, the catalog)."""

    target: str
    ours: tuple[Skill, ...]
    others: tuple[Skill, ...] = ()
    hidden: tuple[str, ...] = ()
    """Skills of the set the agent hides from the model (`disable-model-invocation`)."""
    aliases: Mapping[str, str] | None = None
    """The skills' ids by their frontmatter names (`load.aliases_of`)."""

    @property
    def ids(self) -> list[str]:
        return [skill.name for skill in (*self.ours, *self.others)]


def lint(
    checked: CaseFile,
    description: str | None,
    strict: bool,
    menu: Menu | None = None,
    alone: bool = False,
) -> tuple[Finding, ...]:
    """Every check; `description` None skips those that need one, `menu` None those about
    the skills around it. `alone`: the file is one of several in the repo, each skill's
    own, so the siblings no case of it expects are not its to cover (a routing file still
    covers its set), nor the set's skills that read alike (said once per set, routing file
    or not). Errors first, then warnings."""
    findings = [Finding("error", problem.case_id, problem.message) for problem in checked.problems]
    if description is not None:
        findings += description_findings(description)
    cases: Sequence[Case] = checked.cases
    findings += [Finding("warning", case_id, NO_WHY) for case_id in checked.unexplained]
    if menu is not None:
        try:
            cases = resolve_ids(cases, menu.target, menu.ids, menu.hidden, aliases=menu.aliases)
        except InputError as error:
            findings.append(Finding("error", None, str(error)))
            menu = None
    policy: Level = "error" if strict else "warning"
    target = menu.target if menu is not None else ""
    routes = any(case.expect is not None for case in cases)
    if strict or not routes:
        findings += _twin_findings(cases, policy, target)
    findings += _near_duplicates(cases)
    if description is not None:
        for case in cases:
            reason = echo(case.prompt, description)
            if reason:
                findings.append(
                    Finding(
                        "warning",
                        case.id,
                        f"the prompt echoes the description ({reason}): "
                        "that tests string matching, not intent",
                    )
                )
    if menu is not None:
        covers = not alone or routes
        findings += _menu_findings(cases, menu, policy if strict and routes else "warning", covers)
        findings += [] if alone else overlap_findings(menu)
    if strict:
        findings += _group_findings(cases, routes)
    return tuple(sorted(findings, key=lambda finding: finding.level != "error"))


def description_findings(description: str, where: str = "") -> list[Finding]:
    """A description over the agent's limit (`where`: the SKILL.md, in a lint of several)."""
    if len(description) <= DESCRIPTION_LIMIT:
        return []
    said = f"the description is {len(description):,} characters, over the agent's " + (
        f"{DESCRIPTION_LIMIT:,}-character limit"
    )
    return [Finding("error", None, f"{where}: {said}" if where else said)]


def _group_findings(cases: Sequence[Case], routes: bool) -> list[Finding]:
    """The suite's policy on what the cases cover: the bundled suite's four groups; for a
    routing suite (cases that `expect`), a case that expects no skill (each skill of the
    set needing one of its own is checked with the menu)."""
    if routes:
        if any(case.expect == () for case in cases):
            return []
        return [
            Finding(
                "error",
                None,
                'no case expects no skill: add a prompt no skill should take ("expect": null)',
            )
        ]
    used = {tag for case in cases for tag in case.tags}
    return [
        Finding("error", None, f"no case in group {group!r} (tag a case with it)")
        for group in GROUPS
        if group not in used
    ]


def _menu_findings(
    cases: Sequence[Case], menu: Menu, uncovered: Level, covers: bool = True
) -> list[Finding]:
    """When the file `covers` the set: skills of it no case expects (at `uncovered`: an
    error under a routing suite's strict policy, where even a set of one is checked);
    always, prompts that copy a sibling's entry."""
    findings = []
    several = covers and (len(menu.ours) > 1 or uncovered == "error")  # else a single skill
    for skill in menu.ours if several else ():
        if not any(case.expects(skill.name, menu.target) for case in cases):
            findings.append(
                Finding(
                    uncovered,
                    None,
                    f"no case expects {skill.name}: add positives for it, or a prompt it "
                    "loses to a sibling goes unseen",
                )
            )
    for case in cases:
        for skill in menu.ours[1:]:
            reason = echo(case.prompt, listed_text(skill))
            if reason:
                findings.append(
                    Finding(
                        "warning",
                        case.id,
                        f"the prompt echoes {skill.name}'s description ({reason}): "
                        "that tests string matching, not intent",
                    )
                )
    return findings


def overlap_findings(menu: Menu) -> list[Finding]:
    """Two skills of the menu, one of them the set's, whose entries read alike: a finding
    about the set, which `lint` of a whole repo says once per set. A pair with a command in
    it is a warning at most: a plugin's command is often the user's slash entry to its own
    skill, said in the skill's words, and not a routing mistake to block a commit on."""
    commands = {skill.name for skill in (*menu.ours, *menu.others) if is_command(skill.path)}
    findings = []
    for overlap in overlaps(menu.ours, menu.others, SIMILAR_WARN):
        command = {overlap.first, overlap.second} & commands
        level: Level = "error" if overlap.score >= SIMILAR_ERROR and not command else "warning"
        findings.append(
            Finding(
                level,
                None,
                f"{overlap.first} and {overlap.second} read alike (similarity "
                f"{overlap.score:.2f}, {level} from {_threshold(level):.2f}): the agent may "
                "confuse them",
            )
        )
    return findings


def _threshold(level: Level) -> float:
    return SIMILAR_ERROR if level == "error" else SIMILAR_WARN


def expected_skills(case: Case, target: str) -> tuple[str, ...]:
    """The skills a case expects to fire: its `expect`, else the target for a positive."""
    if case.expect is not None:
        return case.expect
    return (target,) if case.should_activate else ()


def _twin_findings(cases: Sequence[Case], level: Level, target: str) -> list[Finding]:
    """The suite's policy: every positive (a case that expects a skill) has a twin sharing
    its vocabulary that expects none of its skills (a negative, another skill, or none)."""
    by_id = {case.id: case for case in cases}
    findings = []
    for case in cases:
        expects = expected_skills(case, target)
        twin = by_id.get(case.twin) if case.twin is not None else None
        shared = [s for s in expected_skills(twin, target) if s in expects] if twin else []
        routes = case.expect is not None
        if shared and routes:
            findings.append(
                Finding(
                    level,
                    case.id,
                    f"twin {case.twin!r} expects {', '.join(shared)} too: a twin expects "
                    "another skill or none",
                )
            )
        elif shared:
            findings.append(
                Finding(level, case.id, f"twin {case.twin!r} is a positive, not a negative")
            )
        elif case.twin is None and expects:
            need = "a case of another skill or none" if routes else "a negative"
            findings.append(
                Finding(
                    level,
                    case.id,
                    f"positive without a twin: name {need} that shares its vocabulary",
                )
            )
    return findings


def _near_duplicates(cases: Sequence[Case]) -> list[Finding]:
    """Every pair, each in rapidfuzz's compiled ratio (microseconds; numpy is not needed)."""
    from rapidfuzz.fuzz import ratio

    prompts = [normalise_prompt(case.prompt) for case in cases]
    cutoff = NEAR_DUPLICATE_RATIO * 100
    findings = []
    for j, later in enumerate(cases):
        for i in range(j):
            score = ratio(prompts[i], prompts[j], score_cutoff=cutoff)
            if score and prompts[i] != prompts[j]:
                findings.append(
                    Finding(
                        "warning",
                        later.id,
                        f"prompt nearly duplicates {cases[i].id!r} (similarity {score / 100:.2f})",
                    )
                )
                break
    return findings


def lint_behavior(cases: Iterable[BehaviorCase], *, strict: bool = False) -> list[Finding]:
    """Every finding of every case, in case order, after one line for each unused key that
    more than one case of a file carries (32 cases' `category` is one finding, not 32);
    `strict`: advice is an error too."""
    cases = tuple(cases)
    advice: Level = "error" if strict else "warning"
    carriers: dict[tuple[str, str], list[str]] = {}
    for case in cases:
        for key in case.unread:
            carriers.setdefault((case.source, key), []).append(case.id)
    shared = [place for place, ids in carriers.items() if len(ids) > 1]
    return [
        *(
            Finding(advice, None, f"{source}: {unread_text(key, len(carriers[source, key]))}")
            for source, key in shared
        ),
        *(finding for case in cases for finding in _case_findings(case, strict, set(shared))),
    ]


MANUAL = "expectations only (no graders): not graded or gated, review its transcripts by hand"
NO_JUDGE = (
    "the last grader is not a holistic judge (a judge with no level): add one, or the case "
    "has no summary-level signal"
)
NO_LEVEL = (
    "has no level: every grader but a judge should have one of L1-L5 (outputs report it "
    "as unlevelled)"
)
NO_POSITIVE = (
    "no positive grader: its negative graders are void in every trial, so the case can never pass"
)


ON_LOAD = (
    "passes when the skill is merely loaded (its load tool, or a read of its SKILL.md): it "
    "checks the load, which every trial records already, not that the agent followed the skill"
)


def beyond(turn: int, prompts: int) -> str:
    """Why a trajectory grader's `turn` names no turn of a case of `prompts` prompts."""
    sent = "one prompt" if prompts == 1 else f"{prompts} prompts"
    return f"looks at turn {turn}, and the case sends {sent}: it can never pass"


def unread_text(key: str, cases: int = 1) -> str:
    """Why a key of a case file is said; `cases`: how many of the file's cases carry it."""
    whose = f"the key {key!r} of {cases} cases" if cases > 1 else f"its file's key {key!r}"
    return f"{whose} is not used by activation: it changes nothing in a run"


def _case_findings(
    case: BehaviorCase, strict: bool, said: Set[tuple[str, str]] = frozenset()
) -> Iterator[Finding]:
    """The case's findings; `said`: (file, key) of unused keys already said for the file."""
    advice: Level = "error" if strict else "warning"
    unread = (key for key in case.unread if (case.source, key) not in said)
    yield from (Finding(advice, case.id, unread_text(key)) for key in unread)
    if case.manual:
        yield Finding("warning", case.id, MANUAL)
        return
    for number, top in enumerate(case.graders, 1):
        for grader in top.walk():
            for problem in grader.problems():
                yield Finding("error", case.id, f"grader {number}: {problem}")
    for number, grader in enumerate(case.graders, 1):
        if grader.level is None and not isinstance(grader, Judge):
            yield Finding(advice, case.id, f"grader {number} ({grader.description}) {NO_LEVEL}")
    last = case.graders[-1]
    if not isinstance(last, Judge) or last.level is not None:
        yield Finding(advice, case.id, NO_JUDGE)
    if all(grader.negative for grader in case.graders):
        yield Finding("error", case.id, NO_POSITIVE)
    names = [skill.rpartition(":")[2] for skill in case.skills] or ["skill"]
    for number, top in enumerate(case.graders, 1):
        for grader in top.walk():
            if not isinstance(grader, Traced):
                continue
            if any(map(grader.passes_on_load, names)):
                yield Finding("error", case.id, f"grader {number} ({grader.description}) {ON_LOAD}")
            servers = [server.name for server in case.mcp_servers]
            named = isinstance(grader, ToolCalls) and tool_name_problem(grader.name, servers)
            if named:
                yield Finding("error", case.id, f"grader {number} ({grader.description}) {named}")
            if grader.turn is not None and grader.turn > len(case.prompts):
                why = beyond(grader.turn, len(case.prompts))
                yield Finding("error", case.id, f"grader {number} ({grader.description}) {why}")


def unread_warning(cases: Iterable[BehaviorCase], suite: str) -> list[str]:
    """The keys of the cases' files this tool does not use, in one line for a run to warn
    (lint names each by case): a key is never dropped without a word."""
    keys = dict.fromkeys(key for case in cases for key in case.unread)
    if not keys:
        return []
    return [
        f"{suite}: keys not used by activation (they change nothing in this run): "
        f"{', '.join(keys)}; see activation lint --behavior {suite}"
    ]
