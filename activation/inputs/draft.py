"""`activation init`'s drafting, pure: what a model is asked for one skill, the suite built
from its answer (or the mock's labelled placeholders), and the files it is written as.

A draft follows the seeds' case matrix: positives in the user's own words in three groups
(`keyword-loss`, `framework-loss`, `indirect`), each with a near-miss negative twin that
reuses its vocabulary; for a skill with siblings, a case per sibling that `expect`s it
(twinned with one of the skill's positives: the pair tells the two apart); and prompts whose
right answer is no skill. Every case has a `why`. A prompt that echoes the skill's (or a
sibling's) description is refused with lint's own rule, and a prompt said twice is kept once:
a refused positive takes its twin with it, so no case points at a case that is not there.

A skill alone writes `should_activate` cases tagged with the four groups; a skill with
siblings writes routing cases (`expect`), so the set's routing is drafted with it. Either
way the draft meets `lint --strict`'s policy when nothing is refused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import orjson

from activation._models import Case
from activation.inputs.cases import NATIVE, CaseFile, normalise_prompt
from activation.inputs.lint import echo

POSITIVE_GROUPS = ("keyword-loss", "framework-loss", "indirect")
"""The seeds' groups of positives: literal trigger words, named frameworks, neither."""
NEGATIVE = "negative"
NO_SKILL = "none"
PLACEHOLDER = "[draft placeholder]"
"""What starts every prompt the mock drafts: no one mistakes it for a real user's words."""
REVIEW = (
    "a draft to review, not to trust: read every prompt and why, rewrite what no user of "
    "yours would type, then run lint --strict"
)
UNSAID = (
    "no field for a case's twin or group, so lint --strict finds positives without twins "
    "there (--format activation keeps both)"
)
"""What a draft in another tool's format loses."""

SCHEMA = {
    "type": "object",
    "properties": {
        "positives": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "group": {"type": "string", "enum": list(POSITIVE_GROUPS)},
                    "prompt": {"type": "string"},
                    "why": {"type": "string"},
                    "twin_prompt": {"type": "string"},
                    "twin_why": {"type": "string"},
                },
                "required": ["group", "prompt", "why", "twin_prompt", "twin_why"],
                "additionalProperties": False,
            },
        },
        "siblings": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "skill": {"type": "string"},
                    "prompt": {"type": "string"},
                    "why": {"type": "string"},
                },
                "required": ["skill", "prompt", "why"],
                "additionalProperties": False,
            },
        },
        "no_skill": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"prompt": {"type": "string"}, "why": {"type": "string"}},
                "required": ["prompt", "why"],
                "additionalProperties": False,
            },
        },
    },
    "required": ["positives", "siblings", "no_skill"],
    "additionalProperties": False,
}
"""The answer a drafting model gives: structured output, read by `read_answer`."""


@dataclass(frozen=True)
class Listed:
    """A skill as the agent lists it: the id cases name it by, and its description."""

    id: str
    description: str

    @property
    def short(self) -> str:
        """The name a case's `expect` uses (the id's last part, as the billing suite's)."""
        return self.id.rsplit(":", 1)[-1]


@dataclass(frozen=True)
class Ask:
    """One skill to draft for: it, and its set's other skills."""

    skill: Listed
    siblings: tuple[Listed, ...] = ()
    body: str = ""


@dataclass(frozen=True)
class Pair:
    """A positive and its near-miss twin, as the model (or the mock) wrote them."""

    group: str
    prompt: str
    why: str
    twin_prompt: str
    twin_why: str


@dataclass(frozen=True)
class Answer:
    """What a drafting model answered for one skill."""

    positives: tuple[Pair, ...]
    siblings: tuple[tuple[str, str, str], ...]
    """(sibling's short name, prompt, why)."""
    no_skill: tuple[tuple[str, str], ...]
    """(prompt, why)."""


@dataclass(frozen=True)
class Draft:
    """The cases drafted for one skill, and each prompt left out and why."""

    skill: Listed
    cases: tuple[Case, ...]
    refused: tuple[str, ...]


def instructions(ask: Ask, per_group: int) -> str:
    """The drafting request: the seeds' authoring rules, the skill and its siblings."""
    siblings = "\n".join(f"- {s.short}: {s.description}" for s in ask.siblings) or "(none)"
    body = ask.body[:4000]
    return (
        "You write evaluation prompts for an AI coding agent's skill: does the agent pick "
        "this skill when, and only when, it should?\n\n"
        f"Skill {ask.skill.short}: {ask.skill.description}\n\n"
        f"Its body, for what it really covers:\n{body}\n\n"
        f"Sibling skills listed beside it:\n{siblings}\n\n"
        f"Write {per_group} positives in each group: keyword-loss (the literal trigger words "
        "a user would type: an error message, a feature name), framework-loss (a framework or "
        "tool the skill covers, named), indirect (no skill name, no framework, no feature "
        "name: the need only). Write each as a user types it, terse and concrete, never a "
        "sentence shaped like the description: do not reuse its phrases. For each positive, "
        "a twin: a near-miss prompt that reuses the positive's vocabulary but whose right "
        "answer is not this skill, with why. For each sibling, one prompt that belongs to the "
        "sibling and not to this skill (skill: the sibling's name). Write two prompts no "
        "skill should take (a neighbouring task). Every why says why the answer is right, in "
        "one sentence. Skip prompts with no defensible right answer."
    )


def read_answer(data: object) -> Answer | None:
    """A model's answer as drafted cases; None when it is not of the schema's shape."""
    if not isinstance(data, Mapping):
        return None
    try:
        positives = tuple(
            Pair(
                str(item["group"]),
                str(item["prompt"]),
                str(item["why"]),
                str(item["twin_prompt"]),
                str(item["twin_why"]),
            )
            for item in data["positives"]
        )
        siblings = tuple(
            (str(item["skill"]), str(item["prompt"]), str(item["why"])) for item in data["siblings"]
        )
        no_skill = tuple((str(item["prompt"]), str(item["why"])) for item in data["no_skill"])
    except (KeyError, TypeError):
        return None
    if not positives or any(pair.group not in POSITIVE_GROUPS for pair in positives):
        return None
    return Answer(positives, siblings, no_skill)


def answer_data(answer: Answer) -> dict[str, Any]:
    """An answer as plain data, as `read_answer` reads it back (the cache keeps it so)."""
    return {
        "positives": [vars(pair) for pair in answer.positives],
        "siblings": [{"skill": s, "prompt": p, "why": w} for s, p, w in answer.siblings],
        "no_skill": [{"prompt": p, "why": w} for p, w in answer.no_skill],
    }


def placeholders(ask: Ask) -> Answer:
    """The mock's draft: deterministic prompts that say they are placeholders and what to
    write in their place, in the matrix's shape (one positive per group, a twin each, a
    case per sibling, one for no skill)."""
    name = ask.skill.short
    hints = {
        "keyword-loss": ("its trigger words", "those trigger words, for a task it does not do"),
        "framework-loss": ("a framework it covers", "that framework, for work outside it"),
        "indirect": ("the need alone, no names", "a neighbouring need, met elsewhere"),
    }
    pairs = tuple(
        Pair(
            group,
            f"{PLACEHOLDER} {name}, {group}: what a user types that needs it ({hint})",
            f"{PLACEHOLDER} why {name} is right for it",
            f"{PLACEHOLDER} twin of {name}-{group}-1: {twin}",
            f"{PLACEHOLDER} why {name} is not",
        )
        for group, (hint, twin) in hints.items()
    )
    siblings = tuple(
        (
            s.short,
            f"{PLACEHOLDER} {s.short}, not {name}: a task only {s.short} takes",
            f"{PLACEHOLDER} why it is {s.short}'s",
        )
        for s in ask.siblings
    )
    none = ((f"{PLACEHOLDER} a task near {name} that no skill takes", f"{PLACEHOLDER} why none"),)
    return Answer(pairs, siblings, none)


def _echoes(prompt: str, ask: Ask) -> str | None:
    """Why the prompt echoes the skill's or a sibling's description, or None."""
    for listed in (ask.skill, *ask.siblings):
        reason = echo(prompt, listed.description)
        if reason is not None:
            return f"echoes {listed.short}'s description ({reason})"
    return None


def build(ask: Ask, answer: Answer) -> Draft:
    """The answer as cases: echoing and repeated prompts left out (each said), ids by group,
    twins linked, routing cases when the skill has siblings."""
    name = ask.skill.short
    routes = bool(ask.siblings)
    siblings = {s.short for s in ask.siblings}
    seen: set[str] = set()
    refused: list[str] = []

    def keep(prompt: str, case_id: str) -> bool:
        text = prompt.strip()
        reason = "empty" if not text else _echoes(text, ask)
        if reason is None and normalise_prompt(text) in seen:
            reason = "a prompt already drafted"
        if reason is not None:
            refused.append(f"{case_id}: left out, {reason}")
            return False
        seen.add(normalise_prompt(text))
        return True

    def case(case_id: str, prompt: str, why: str, expect: str | None, tag: str) -> Case:
        should = expect == name
        return Case(
            case_id,
            prompt.strip(),
            should,
            why.strip(),
            (tag,),
            expect=((expect,) if expect else ()) if routes else None,
        )

    cases: list[Case] = []
    counts: dict[str, int] = {}
    for pair in answer.positives:
        counts[pair.group] = counts.get(pair.group, 0) + 1
        case_id = f"{name}-{pair.group}-{counts[pair.group]}"
        twin_id = f"{case_id}-twin"
        if not keep(pair.prompt, case_id):
            continue
        if not keep(pair.twin_prompt, twin_id):
            seen.discard(normalise_prompt(pair.prompt))
            refused.append(f"{case_id}: left out with its twin")
            continue
        positive = case(case_id, pair.prompt, pair.why, name, pair.group)
        cases.append(replace(positive, twin=twin_id))
        cases.append(case(twin_id, pair.twin_prompt, pair.twin_why, None, NEGATIVE))
    positives = [c.id for c in cases if c.twin is not None]
    for number, (sibling, prompt, why) in enumerate(answer.siblings, 1):
        case_id = f"{name}-routes-{sibling}-{number}"
        if sibling not in siblings:
            refused.append(f"{case_id}: left out, {sibling!r} is no sibling of {name}")
        elif positives and keep(prompt, case_id):
            routed = case(case_id, prompt, why, sibling, "routing")
            cases.append(replace(routed, twin=positives[(number - 1) % len(positives)]))
    for number, (prompt, why) in enumerate(answer.no_skill, 1):
        case_id = f"{name}-{NO_SKILL}-{number}"
        if keep(prompt, case_id):
            cases.append(case(case_id, prompt, why, None, NEGATIVE if not routes else NO_SKILL))
    return Draft(ask.skill, tuple(cases), tuple(refused))


def _expected(case: Case) -> str | None:
    """The one skill a routing case expects (a draft's expect one at most), or None."""
    return case.expect[0] if case.expect else None


def native(draft: Draft) -> bytes:
    """This tool's format, as its own writer writes it."""
    from activation.inputs.formats.native import write

    about = f"Drafted by `activation init` for {draft.skill.id}: {REVIEW}."
    return write(CaseFile(draft.cases, (), draft.skill.id, NATIVE), about)


def skill_creator(draft: Draft) -> bytes:
    """skill-creator's trigger eval set: `query`, `should_trigger`, `expected_skill` on a
    routing case, and the `why` it reads as the reason (twins and groups have no field)."""
    rows = []
    for case in draft.cases:
        row: dict[str, object] = {"query": case.prompt, "should_trigger": case.should_activate}
        if case.expect is not None:
            row["expected_skill"] = _expected(case)
        row["why"] = case.why
        rows.append(row)
    document = {"skill_name": draft.skill.id, "evals": rows}
    return orjson.dumps(document, option=orjson.OPT_INDENT_2) + b"\n"


def jsonl(draft: Draft) -> tuple[bytes, bytes]:
    """JSON Lines of prompts: the skill's positives, and its negatives file whose rows name
    the skill that owns each prompt (`expected_skill`, "" for none)."""
    positives = b"".join(
        orjson.dumps({"id": c.id, "prompt": c.prompt, "why": c.why}) + b"\n"
        for c in draft.cases
        if c.should_activate
    )
    negatives = b"".join(
        orjson.dumps(
            {"id": c.id, "prompt": c.prompt, "expected_skill": _expected(c) or "", "why": c.why}
        )
        + b"\n"
        for c in draft.cases
        if not c.should_activate
    )
    return positives, negatives


def trigger_yaml(draft: Draft) -> bytes:
    """Trigger tests in YAML: the skill's should and should-not prompts, each with its
    reason (routing is not said: a sibling's prompt is a should-not of this skill)."""
    document = {
        "skill": draft.skill.id,
        "should_trigger_prompts": [
            {"prompt": c.prompt, "reason": c.why} for c in draft.cases if c.should_activate
        ],
        "should_not_trigger_prompts": [
            {"prompt": c.prompt, "reason": c.why} for c in draft.cases if not c.should_activate
        ],
    }
    import yaml

    return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100).encode()


def file_names(name: str, format: str) -> tuple[str, ...]:
    """Where a draft in `format` goes in the skill's folder (where the loader finds a
    skill's cases), before anything is drafted: an existing file stops `init` first."""
    return {
        "activation": ("cases.json",),
        "skill-creator": ("evals/trigger-evals.json",),
        "jsonl": (f"evals/{name}.jsonl", "evals/negatives.jsonl"),
        "yaml": ("trigger_tests.yaml",),
    }[format]


def rendered(draft: Draft, format: str) -> dict[str, bytes]:
    """The draft's files in `format`, by their name in the skill's folder."""
    contents: tuple[bytes, ...]
    if format == "activation":
        contents = (native(draft),)
    elif format == "skill-creator":
        contents = (skill_creator(draft),)
    elif format == "jsonl":
        contents = jsonl(draft)
    else:
        contents = (trigger_yaml(draft),)
    return dict(zip(file_names(draft.skill.short, format), contents, strict=True))


def behavior_folder(name: str) -> str:
    """The behavior skeleton's eval folder in the skill's folder (an id the loader takes)."""
    return (
        f"evals/{re.sub(r'[^a-z0-9_]', '_', name.lower()).lstrip('_0123456789') or 'skill'}_draft"
    )


def behavior_names(name: str) -> tuple[str, ...]:
    folder = behavior_folder(name)
    return (f"{folder}/PROMPT.md", f"{folder}/graders.yaml", f"{folder}/scaffold/README.md")


def behavior_skeleton(ask: Ask) -> dict[str, bytes]:
    """A behavior case to fill in: its task, a scaffold placeholder, and a grader at each
    level (L1 presence to L5 version) and the holistic judge, every value a TODO that fails
    until it is replaced (nothing passes on the scaffold as it is)."""
    name = ask.skill.short
    folder = behavior_folder(name)
    prompt = (
        f"---\nid: {folder.rsplit('/', 1)[-1]}\nname: TODO a task that needs {name}\n"
        f"skills: {name}\n---\n\n## Task\n\n"
        f"TODO: the task as a user of {name} would ask it, about the files in scaffold/.\n"
    )
    graders = [
        {
            "type": "contains",
            "value": "TODO-a-name-the-skill-teaches",
            "description": "TODO L1 presence: the skill's API is used",
            "level": "L1",
        },
        {
            "type": "not_matches",
            "pattern": "TODO-a-name-that-does-not-exist",
            "description": "TODO L2 hallucination: no name the skill does not have",
            "level": "L2",
        },
        {
            "type": "matches",
            "pattern": "TODO-the-safe-way",
            "description": "TODO L3 security: the safe way the skill teaches",
            "level": "L3",
        },
        {
            "type": "command",
            "command": "echo 'TODO: a command that checks the result'; exit 1",
            "description": "TODO L4 structure: the result runs",
            "level": "L4",
            "timeout": 30,
        },
        {
            "type": "contains",
            "value": "TODO-the-current-api",
            "description": "TODO L5 version: the current API, not a removed one",
            "level": "L5",
        },
        {"type": "judge", "question": f"TODO: did the agent do the task as {name} teaches?"},
    ]
    import yaml

    scaffold = f"TODO: replace with the files the task of {name} starts from.\n"
    contents = (
        prompt.encode(),
        yaml.safe_dump(graders, sort_keys=False, allow_unicode=True, width=100).encode(),
        scaffold.encode(),
    )
    return dict(zip(behavior_names(name), contents, strict=True))
