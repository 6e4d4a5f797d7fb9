"""What the proposing model is told, and what a proposal must be, for `activation suggest`.

The proposer sees the train split's failures only as categories of intent (a group, the
skill the prompts belong to, where they went), never the prompts' words: a description
that quotes the cases it is tuned on scores well on them and tells the agent nothing about
the next user's words. For the same reason a proposal that echoes a train prompt (by the
rule `lint` uses for prompts that echo a description) is rejected, judged only on what it
adds: the words it keeps from the current description or shares with a sibling's are no
echo of a prompt, or a suite where a prompt already echoes the current description would rule
out every proposal that keeps it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from activation import _config
from activation._models import NONE, OTHER, CaseVerdict
from activation.inputs.lint import echo
from activation.inputs.words import content_words


def _where(verdict: CaseVerdict, target: str) -> tuple[str, str]:
    """Where a failing case's prompt went, as (skill it went to, kind): the most frequent
    wrong first skill of its candidate trials (`none` when nothing fired), and whether that
    is `missed`, `leaked` (the target fired where it does not belong) or `stolen` (another
    skill fired); `must not` when only a skill the case forbids, fired later, made it wrong."""
    tally = verdict.candidate
    wrong = {
        route: count
        for route, count in tally.routes.items()
        if not verdict.is_right(() if route == NONE else (route,), target)
    }
    if wrong:
        route = min(wrong, key=lambda name: (-wrong[name], name))
        if route == NONE:
            return NONE, "missed"
        return route, "leaked" if route == target else "stolen"
    if 2 * tally.activated >= tally.valid and not verdict.expects(target, target):
        return target, "leaked"  # it fired after another skill, or only whether it fired is known
    return " or ".join(verdict.must_not) or target, "must not"


def _belonging(expected: str, target: str, one: bool) -> str:
    if expected == NONE:
        return "that should load no skill"
    if expected == OTHER:
        return f"that should not load {target}"
    skills = expected.split("|")
    listed = " or ".join(skills)
    belong = "belongs" if one else "belong"
    return f"that should load {listed}" if target in skills else f"that {belong} to {listed}"


def _outcome(skill: str, kind: str, one: bool) -> str:
    if kind == "missed":
        return "went to none (missed)"
    if kind == "leaked":
        return f"loaded {skill} (leaked)"
    if kind == "stolen":
        return f"loaded {skill} instead (stolen by {skill})"
    return f"loaded {skill}, which {'it' if one else 'they'} must not load"


def failure_categories(verdicts: Sequence[CaseVerdict], target: str) -> tuple[str, ...]:
    """The failures among `verdicts` (pass the train split's only) as one line per
    (group, expected skill, where the prompts went), most prompts first: what went wrong,
    in words that carry no prompt's. A failure is a case whose candidate is not right by
    majority; a case with no valid candidate trial is evidence of nothing and left out."""
    counts: Counter[tuple[str, str, str, str]] = Counter()
    for verdict in verdicts:
        tally = verdict.candidate
        if tally.valid == 0 or tally.right:
            continue
        skill, kind = _where(verdict, target)
        counts[(verdict.group, verdict.expected(target), skill, kind)] += 1
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return tuple(
        f"{count} {'prompt' if count == 1 else 'prompts'} tagged {group!r} "
        f"{_belonging(expected, target, count == 1)} {_outcome(skill, kind, count == 1)}"
        for (group, expected, skill, kind), count in ordered
    )


def proposal_problems(
    text: str, train_prompts: Sequence[str], limit: int, kept: Sequence[str] = ()
) -> tuple[str, ...]:
    """Why a proposed description cannot be measured, or () when it can. `limit` is the
    smallest that applies (the Agent Skills spec's 1,024 characters, each cell's cut of a
    listing entry); `kept`: the current description and the siblings' (their words echo no
    prompt); a prompt it echoes is named by its position, never by its words."""
    if not text.strip():
        return ("it is empty",)
    problems = []
    if len(text) > limit:
        problems.append(f"it is {len(text):,} characters, over the limit of {limit:,}")
    if text.splitlines() != [text]:
        problems.append("it has a line break (a description is one line)")
    known = frozenset().union(*map(content_words, kept))
    for position, prompt in enumerate(train_prompts, 1):
        reason = echo(prompt, text, known)
        if reason is not None:
            how = "copies a phrase of" if reason.startswith("copies") else "is built from"
            problems.append(f"it echoes train prompt {position} (it {how} its words)")
    return tuple(problems)


def _cut(body: str) -> str:
    size = _config.SUGGEST_BODY_CHARS
    body = body.strip()
    if len(body) <= size:
        return body
    return f"{body[:size]}\n[... the rest of the body, {len(body) - size:,} characters, is cut]"


def proposer_instructions(
    current: str,
    body: str,
    categories: Sequence[str],
    count: int,
    limit: int,
    skill_id: str,
    siblings: Sequence[tuple[str, str]],
) -> str:
    """The proposing model's prompt: the skill, its siblings (whose territory it must not
    claim), how the current description fails, and the rules a proposal is checked by. It
    holds nothing but its arguments, and no example prompt is among them."""
    sibling_lines = [f"- {name}: {description}" for name, description in siblings]
    failure_lines = [f"- {category}" for category in categories] or [
        "- none: every training prompt went where it belongs; look for a clearer wording"
    ]
    rules = [
        f"- Propose {count} different descriptions.",
        f"- Each is a single line of at most {limit:,} characters.",
        "- Each says when to use the skill: the situations, tasks and intents it is for.",
        "- Do not claim what the other skills are for: a prompt that belongs to one of them "
        "must still go there.",
        "- Do not paste words of example prompts (none are given here): describe intents, "
        "not sentences a user might type.",
        "- Keep what already works in the current description.",
    ]
    sections = [
        "You write the `description` of an Agent Skill: the one line a coding agent reads "
        "when it decides whether to load the skill for a user's request.",
        f"The skill's id: {skill_id}",
        f"Its current description:\n{current}",
        f"Its SKILL.md body (what the skill does once loaded):\n{_cut(body)}",
        "The other skills listed next to it:\n" + "\n".join(sibling_lines or ["- none"]),
        "How the current description fails on the training prompts:\n" + "\n".join(failure_lines),
        "Rules:\n" + "\n".join(rules),
    ]
    return "\n\n".join(sections) + "\n"
