"""The trigger eval sets of Anthropic's skill-creator (`run_eval.py --eval-set`): a list of
`{"query", "should_trigger"}`, the same list under an `evals` or `queries` key beside the
`skill_name` it is about (as repos that keep one file per skill write it; `prompt` may stand
for `query`), and an optional `expected_skill` naming a sibling, or null for no skill. The
skill-test GitHub Action's `skill-tests.yaml` is the same rows under `tests`, beside the
`skill` it is about (its `model` is the action's, not read).

`should_trigger` is about the file's skill (the one measured): true says it should fire,
false that it should not. `expected_skill` makes the case a routing case: the named skill
should fire first (`expect`), null or "" that none should. The format has no ids and no
reasons: ids are the file's name and the row number, after the skill's name when the file
names its skill or lies in its folder (every skill's file is `trigger-eval.json`, so ids are
unique per skill: `commit-trigger-eval-1`), and no reason is made up.
"""

from __future__ import annotations

from collections.abc import Mapping

from activation._models import Case
from activation.inputs.cases import CaseFile, Problem, collect
from activation.inputs.formats import SKILL_CREATOR
from activation.inputs.formats.shape import Document, Fit, owner, reason, rows, share, text

_PROMPT = ("query", "prompt")
_LISTS = ("evals", "queries", "tests")


def _items(document: Document) -> list[Mapping[str, object]] | None:
    data = document.data
    if isinstance(data, Mapping):
        data = next((data[key] for key in _LISTS if key in data), None)
    return rows(data) if document.kind != "jsonl" else None


def fit(document: Document) -> Fit:
    items = _items(document)
    if items is None:
        return Fit(SKILL_CREATOR, "a list of {query, should_trigger}", 0)
    if all("should_trigger" in item for item in items):
        return Fit(SKILL_CREATOR, None)
    first = next(item for item in items if "should_trigger" not in item)
    has_prompt = any(key in first for key in _PROMPT)
    lacks = "'should_trigger'" + ("" if has_prompt else " and 'query'")
    number = items.index(first) + 1
    return Fit(SKILL_CREATOR, f"{lacks} in item {number}", share(has_prompt, 2))


def read(document: Document) -> CaseFile:
    data = document.data
    named = text(data, "skill_name", "skill") if isinstance(data, Mapping) else None
    skill = named or document.folder_skill
    prefix = _prefix(document.stem, skill)
    cases: list[Case] = []
    problems: list[Problem] = []
    for number, item in enumerate(_items(document) or (), 1):
        case_id = _id(item, prefix, number)
        parsed = _case(item, case_id)
        if isinstance(parsed, Problem):
            problems.append(parsed)
        else:
            cases.append(parsed)
    return collect(cases, problems, skill, SKILL_CREATOR)


def _prefix(stem: str, skill: str | None) -> str:
    """The ids' stem: the file's name, after its skill's unless the name starts with it."""
    name = skill.rsplit(":", 1)[-1] if skill else None
    return stem if name is None or stem.startswith(name) else f"{name}-{stem}"


def _id(item: Mapping[str, object], prefix: str, number: int) -> str:
    given = item.get("id")
    if isinstance(given, str) and given.strip():
        return given.strip()
    if isinstance(given, int) and not isinstance(given, bool):
        return f"{prefix}-{given}"
    return f"{prefix}-{number}"


def _case(item: Mapping[str, object], case_id: str) -> Case | Problem:
    prompt = text(item, *_PROMPT)
    if prompt is None:
        return Problem(case_id, "'query' must be non-empty text")
    should = item.get("should_trigger")
    if not isinstance(should, bool):
        return Problem(case_id, "'should_trigger' must be true or false")
    tags = ("positive",) if should else ("negative",)
    if "expected_skill" not in item:
        return Case(case_id, prompt, should, reason(item), tags)
    expect = owner(item["expected_skill"], "'expected_skill'")
    if isinstance(expect, Problem):
        return Problem(case_id, expect.message)
    if should and not expect:
        return Problem(case_id, "'should_trigger' is true but 'expected_skill' names no skill")
    return Case(case_id, prompt, should, reason(item), tags, expect=expect)
