"""Trigger tests in YAML (`trigger_tests.yaml` beside an eval suite): a top-level `skill`,
`should_trigger_prompts` and `should_not_trigger_prompts`, each item a prompt as text or
`{prompt, reason}` (other keys, such as `confidence`, are left alone).

A should-trigger prompt is a positive of the skill, a should-not-trigger prompt a negative
of it ("anything but this skill"); `reason` is the case's `why`. Ids are
`<skill>-should-<n>` and `<skill>-should-not-<n>`.
"""

from __future__ import annotations

from collections.abc import Mapping

from activation._models import Case
from activation.inputs.cases import CaseFile, Problem, collect
from activation.inputs.formats import TRIGGER_YAML
from activation.inputs.formats.shape import Document, Fit, reason, skill_named, text

LISTS = {"should_trigger_prompts": True, "should_not_trigger_prompts": False}


def fit(document: Document) -> Fit:
    data = document.data
    if isinstance(data, Mapping) and any(key in data for key in LISTS):
        return Fit(TRIGGER_YAML, None)
    return Fit(TRIGGER_YAML, "'should_trigger_prompts' or 'should_not_trigger_prompts'", 0)


def read(document: Document) -> CaseFile:
    data = document.data if isinstance(document.data, Mapping) else {}
    skill = skill_named(data, "skill") or document.folder_skill
    name = skill.rsplit(":", 1)[-1] if skill else document.stem
    cases: list[Case] = []
    problems: list[Problem] = []
    for key, should in LISTS.items():
        items = data.get(key) or []
        label = "should" if should else "should-not"
        if not isinstance(items, list):
            problems.append(Problem(None, f"'{key}' must be a list"))
            continue
        for number, item in enumerate(items, 1):
            case_id = f"{name}-{label}-{number}"
            prompt = item.strip() if isinstance(item, str) else None
            if isinstance(item, Mapping):
                prompt = text(item, "prompt")
            if not prompt:
                problems.append(Problem(case_id, f"item {number} of '{key}' has no prompt"))
                continue
            why = reason(item) if isinstance(item, Mapping) else ""
            tags = ("positive",) if should else ("negative",)
            cases.append(Case(case_id, prompt, should, why, tags))
    return collect(cases, problems, skill, TRIGGER_YAML)
