"""Prompts as JSON Lines, one file per skill: each row `{"id", "prompt"}` is a positive of
the file's skill (named by its file, `<skill>.jsonl`, or by the skill folder it lies in),
and a shared negatives file beside them, whose rows carry `"expected_skill": ""` (no skill
should fire) or name the sibling that owns the prompt.

A positives file is read with the negatives files beside it (load.py finds them: every row
of theirs has `expected_skill`), so the cases of a run are the skill's positives and the
shared negatives. An id a shared file repeats is kept apart as `<file>/<id>`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from activation._models import Case
from activation.inputs.cases import CaseFile, Problem, collect
from activation.inputs.formats import PROMPTS_JSONL
from activation.inputs.formats.shape import Document, Fit, owner, reason, rows, text


def fit(document: Document) -> Fit:
    listed = rows(document.data) if document.kind == "jsonl" else None
    if listed is None:
        return Fit(PROMPTS_JSONL, "JSON Lines of {id, prompt}", 0)
    missing = next((n for n, row in enumerate(listed, 1) if "prompt" not in row), None)
    if missing is None:
        return Fit(PROMPTS_JSONL, None)
    return Fit(PROMPTS_JSONL, f"'prompt' in row {missing}", 50)


def is_negatives(document: Document) -> bool:
    """Whether every row of the file carries `expected_skill`: a shared negatives file."""
    listed = rows(document.data) if document.kind == "jsonl" else None
    return listed is not None and all("expected_skill" in row for row in listed)


def skill_of(document: Document) -> str | None:
    """The skill a positives file is about: its folder's skill, else its name's stem."""
    if is_negatives(document):
        return None
    return document.folder_skill or document.stem


def read(document: Document, shared: Sequence[Document] = ()) -> CaseFile:
    skill = skill_of(document)
    cases: list[Case] = []
    problems: list[Problem] = []
    origin: list[tuple[str, str]] = []
    taken: set[str] = set()
    for part in (document, *shared):
        for number, row in enumerate(rows(part.data) or (), 1):
            case_id = _id(row, part, number)
            if part is not document and case_id in taken:
                case_id = f"{part.stem}/{case_id}"
            taken.add(case_id)
            parsed = _case(row, case_id, skill)
            if isinstance(parsed, Problem):
                problems.append(Problem(parsed.case_id, f"{parsed.message} ({part.name})"))
                continue
            cases.append(parsed)
            origin.append((case_id, part.name))
    return collect(cases, problems, skill, PROMPTS_JSONL, origin if shared else ())


def _id(row: Mapping[str, object], part: Document, number: int) -> str:
    given = row.get("id")
    if isinstance(given, str) and given.strip():
        return given.strip()
    if isinstance(given, int) and not isinstance(given, bool):
        return str(given)
    return f"{part.stem}-{number}"


def _case(row: Mapping[str, object], case_id: str, skill: str | None) -> Case | Problem:
    prompt = text(row, "prompt")
    if prompt is None:
        return Problem(case_id, "'prompt' must be non-empty text")
    if "expected_skill" not in row:
        return Case(case_id, prompt, True, reason(row), ("positive",))
    expect = owner(row["expected_skill"], "'expected_skill'")
    if isinstance(expect, Problem):
        return Problem(case_id, expect.message)
    return Case(case_id, prompt, False, reason(row), ("negative",), expect=expect)
