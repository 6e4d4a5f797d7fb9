"""One JSON file per skill holding both layers: `skill_name`, a `trigger` part
(`positive: [{prompt}]`, `negative: [{prompt, owner}]`) and behavioral `evals`
(`[{id, prompt, expected_output, files, expectations}]`, skill-creator's `evals.json`).

The trigger part becomes routing cases: a positive should fire the file's skill; a
negative should not, and its `owner` (when given) is the skill that should fire instead
(`expect`), "" or null for none. Ids are `<skill>-positive-<n>` and `<skill>-negative-<n>`.

The evals part becomes behavior cases (`activation behavior --suite FILE`), read by
inputs/behavior_skill_creator.py.
"""

from __future__ import annotations

from collections.abc import Mapping

from activation._models import Case
from activation.inputs.cases import CaseFile, Problem, collect
from activation.inputs.formats import SKILL_JSON
from activation.inputs.formats.shape import Document, Fit, owner, reason, skill_named, text

SKILL_KEYS = ("skill_name", "skill")
BEHAVIOR_ONLY = (
    "a 'trigger' part (its 'evals' are behavior cases: pass it to activation behavior --suite)"
)


def fit(document: Document) -> Fit:
    data = document.data
    if not isinstance(data, Mapping):
        return Fit(SKILL_JSON, "a 'trigger' object", 0)
    trigger = data.get("trigger")
    if isinstance(trigger, Mapping) and ("positive" in trigger or "negative" in trigger):
        return Fit(SKILL_JSON, None)
    if has_evals(document):
        return Fit(SKILL_JSON, BEHAVIOR_ONLY, 60)
    if isinstance(trigger, Mapping):
        return Fit(SKILL_JSON, "'positive' or 'negative' in its 'trigger'", 50)
    return Fit(SKILL_JSON, "a 'trigger' object", 10 if skill_named(data, *SKILL_KEYS) else 0)


def has_evals(document: Document) -> bool:
    """Whether the file has behavioral evals: `evals` items with a prompt and no
    `should_trigger` (which would make them skill-creator's trigger eval set)."""
    data = document.data
    evals = data.get("evals") if isinstance(data, Mapping) else None
    return (
        isinstance(evals, list)
        and bool(evals)
        and all(isinstance(item, Mapping) and "should_trigger" not in item for item in evals)
    )


def skill_of(document: Document) -> str | None:
    data = document.data
    named = skill_named(data, *SKILL_KEYS) if isinstance(data, Mapping) else None
    return named or document.folder_skill


def read(document: Document) -> CaseFile:
    skill = skill_of(document)
    name = skill.rsplit(":", 1)[-1] if skill else document.stem
    data = document.data if isinstance(document.data, Mapping) else {}
    trigger = data.get("trigger")
    trigger = trigger if isinstance(trigger, Mapping) else {}
    cases: list[Case] = []
    problems: list[Problem] = []
    for part, should in (("positive", True), ("negative", False)):
        items = trigger.get(part) or []
        if not isinstance(items, list):
            problems.append(Problem(None, f"'trigger.{part}' must be a list"))
            continue
        for number, item in enumerate(items, 1):
            parsed = _case(item, f"{name}-{part}-{number}", should)
            if isinstance(parsed, Problem):
                problems.append(parsed)
            else:
                cases.append(parsed)
    return collect(cases, problems, skill, SKILL_JSON)


def _case(item: object, case_id: str, should: bool) -> Case | Problem:
    if isinstance(item, str) and item.strip():
        item = {"prompt": item}
    if not isinstance(item, Mapping):
        return Problem(case_id, "must be a prompt, or an object with a 'prompt'")
    prompt = text(item, "prompt")
    if prompt is None:
        return Problem(case_id, "'prompt' must be non-empty text")
    tags = ("positive",) if should else ("negative",)
    if should or "owner" not in item:
        return Case(case_id, prompt, should, reason(item), tags)
    expect = owner(item["owner"], "'owner'")
    if isinstance(expect, Problem):
        return Problem(case_id, expect.message)
    return Case(case_id, prompt, False, reason(item), tags, expect=expect)
