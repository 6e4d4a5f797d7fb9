"""skill-creator's `evals/evals.json` as behavior cases: `{skill_name, evals: [{id, prompt,
expected_output, files, expectations, assertions}]}` (its references/schemas.md; its SKILL.md
tells authors to add `assertions`, its schema names `expectations`: both are read).

Each field does what skill-creator's own runs and grader (agents/grader.md) do with it:

- `skill_name`: the skill the cases are about (else the folder the file is in);
- `id`: the case's id, `<skill>-<id>`; `name`: its readable name (else the id);
  `prompt`: the task;
- `files`: input files, relative to the skill's root (its schema's words): the skill's
  folder, or the folder holding `evals/` (a plugin's root, where the suite sits beside
  `skills/`), laid into the workspace at that path; a folder is laid in whole;
- `expectations` and `assertions`: each one judge (a model answers YES or NO about the
  files), as its grader passes or fails each expectation on its own; the case passes when
  every one does. Each is text, or an object whose `description` (or `text`, as its
  grader's grading.json writes one, or `check`, as authors also write it) is the check and
  whose `name` labels it (its SKILL.md asks for assertions "with descriptive names");
- `expected_output`: the human-readable description of success, which skill-creator's grader
  is never given: kept as the case's first expectation, and judged only when the eval has no
  expectation or assertion (skill-creator's first draft), so a case is never left ungraded
  that has a statement of success.

An eval with none of the three is manual. Every other key is kept in `BehaviorCase.unread`,
which lint names (never silently dropped). The judge sees the files the agent leaves, not
its transcript, so an expectation about the process ("used script Y") is judged from the
files alone.
"""

from __future__ import annotations

from collections.abc import Mapping

from activation._behavior import BehaviorCase, ScaffoldFile
from activation._errors import InputError
from activation.graders.judge import Judge
from activation.inputs.behavior_cases import scaffold_path, unread_keys
from activation.inputs.formats.shape import Document, text
from activation.inputs.formats.skill_json import skill_of

FILE_KEYS = frozenset({"skill_name", "skill", "evals", "trigger"})
"""The file's keys read here or by `--cases` (skill_json.py reads `trigger`)."""
EVAL_KEYS = frozenset(
    {"id", "name", "prompt", "expected_output", "files", "expectations", "assertions"}
)
CHECKS = ("expectations", "assertions")
CHECK_TEXT = ("description", "text", "check")
"""The keys an expectation object's text is read from, first found wins."""


def eval_files(document: Document) -> tuple[str, ...]:
    """Every input path the evals name, relative to the skill's folder, once each, as
    written (a folder's files are read by the loader)."""
    found: dict[str, None] = {}
    for item in _evals(document):
        files = item.get("files") if isinstance(item, Mapping) else None
        for path in files if isinstance(files, list) else ():
            if isinstance(path, str):
                found.setdefault(path, None)
    return tuple(found)


def _evals(document: Document) -> list[object]:
    data = document.data
    evals = data.get("evals") if isinstance(data, Mapping) else None
    return evals if isinstance(evals, list) else []


def behavior_cases(document: Document, files: Mapping[str, bytes]) -> tuple[BehaviorCase, ...]:
    """The evals as behavior cases. `files` holds every file the evals name, by its
    normalised path (a named folder: each file under it). A malformed eval is an InputError
    naming the file and the eval."""
    skill = skill_of(document)
    name = skill.rsplit(":", 1)[-1] if skill else document.stem
    evals = _evals(document)
    if not evals:
        raise InputError(f"{document.path}: 'evals' must be a non-empty list")
    top_unread = unread_keys(document.data, FILE_KEYS)
    cases = []
    for number, item in enumerate(evals, 1):
        if not isinstance(item, Mapping):
            raise InputError(f"{document.path}: eval {number} must be an object")
        case_id = f"{name}-{item.get('id', number)}"
        where = f"{document.path}: case {case_id!r}"
        prompt = text(item, "prompt")
        if prompt is None:
            raise InputError(f"{where}: 'prompt' must be non-empty text")
        labelled = _checks(item, where)
        checks = tuple(labelled)
        expected = text(item, "expected_output")
        described = (expected.strip(),) if expected and expected.strip() else ()
        unread = unread_keys(item, EVAL_KEYS)
        cases.append(
            BehaviorCase(
                id=case_id,
                name=text(item, "name") or case_id,
                prompt=prompt,
                source=document.path,
                expectations=tuple(dict.fromkeys(described + checks)),
                graders=tuple(
                    judge(check, labelled.get(check, check)) for check in checks or described
                ),
                scaffold=_scaffold(item, files, where),
                skills=(skill,) if skill else (),
                unread=(top_unread if number == 1 else ()) + unread,
            )
        )
    return tuple(cases)


def _checks(item: Mapping[str, object], where: str) -> dict[str, str]:
    """The eval's expectations, then its assertions, each once, stripped: each check's text
    and its label (its `name`, else the text itself)."""
    found: dict[str, str] = {}
    for key in CHECKS:
        listed = item.get(key, [])
        if not isinstance(listed, list):
            raise InputError(f"{where}: {key!r} must be a list")
        for each in listed:
            check, label = _check(each)
            if check is None:
                raise InputError(
                    f"{where}: each of {key!r} must be text or an object with a 'description' "
                    "(or 'text' or 'check') and an optional 'name'"
                )
            if check:
                found.setdefault(check, label or check)
    return found


def _check(each: object) -> tuple[str | None, str | None]:
    """One expectation's text and label; None as its text when it has no text."""
    if isinstance(each, str):
        return each.strip(), None
    if not isinstance(each, Mapping):
        return None, None
    return text(each, *CHECK_TEXT), text(each, "name")


def judge(expectation: str, label: str | None = None) -> Judge:
    """One expectation's judge, named by its label, else by the expectation (as
    skill-creator's grading.json names each by its text)."""
    question = f"Do the files meet this expectation?\n- {expectation}"
    return Judge(description=label or expectation, question=question)


def _scaffold(
    item: Mapping[str, object], files: Mapping[str, bytes], where: str
) -> tuple[ScaffoldFile, ...]:
    listed = item.get("files", [])
    if not isinstance(listed, list):
        raise InputError(f"{where}: 'files' must be a list of paths")
    scaffold: dict[str, bytes] = {}
    for path in listed:
        relative = scaffold_path(path, where)
        inside = {
            name: content
            for name, content in files.items()
            if name == relative or name.startswith(f"{relative}/")
        }
        if not inside:
            raise InputError(f"{where}: the input file {path!r} is missing (or an empty folder)")
        scaffold.update(inside)
    return tuple(sorted(scaffold.items()))
