"""Several case files made one (`activation import`): per-skill files that share their
negatives repeat prompts, and a case twice makes a file unusable, so each prompt becomes one
case, the union of what its copies expect.

Files about one skill (or none named) keep their cases as they are: "should fire" and
"should not fire" stay about the skill measured. Files about several skills are a routing
suite: a positive of skill S becomes `expect: [S]` (S should fire first) and a negative of
S, `must_not: [S]` and nothing else (`expect: "*"`: any other skill, or none, is right,
whichever skill a run measures; S's file says nothing of the others). A copy that says a
skill should fire and another that it must not, or one that no skill should fire and
another that one should, is a conflict: a problem, never a guess; a copy that expects any
skill gives way to one that names where the prompt belongs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import PurePath

from activation._models import ANY_SKILL, Case
from activation.inputs.cases import CaseFile, Problem, collect, normalise_prompt

MERGED = "merged"
"""The format name of a merged file."""


@dataclass(frozen=True)
class Merged:
    """The one file, and each case made of several copies with the files they came from."""

    file: CaseFile
    repeats: tuple[tuple[str, tuple[str, ...]], ...]


def _prefix(source: str, checked: CaseFile, routing: bool) -> str:
    """What sets apart a case whose id another file took: in a suite of several skills, the
    skill its file is about (every skill's file may share one name: `skill-tests.yaml`),
    else the file's name."""
    if routing and checked.written_for:
        return checked.written_for.rsplit(":", 1)[-1]
    return PurePath(source).stem


def merge(files: Sequence[tuple[str, CaseFile]]) -> Merged:
    """`files` as (path, its cases), in order; the first copy of a prompt gives the id."""
    skills = {checked.written_for for _path, checked in files}
    routing = len(skills - {None}) > 1
    kept: dict[str, Case] = {}
    sources: dict[str, list[str]] = {}
    problems: list[Problem] = []
    taken: set[str] = set()
    for path, checked in files:
        origin = dict(checked.origin)
        problems += [replace(p, message=f"{p.message} ({_name(path)})") for p in checked.problems]
        for case in checked.cases:
            source = origin.get(case.id, _name(path))
            case = _absolute(case, checked.written_for) if routing else case
            key = normalise_prompt(case.prompt)
            first = kept.get(key)
            if first is None:
                if case.id in taken:
                    case = replace(case, id=f"{_prefix(source, checked, routing)}/{case.id}")
                taken.add(case.id)
                kept[key] = case
                sources[key] = [source]
                continue
            joined = _join(first, case, None if routing else checked.written_for)
            if isinstance(joined, Problem):
                where = f" ({', '.join(dict.fromkeys([*sources[key], source]))})"
                problems.append(Problem(first.id, joined.message + where))
                continue
            kept[key] = joined
            sources[key].append(source)
    written_for = None if routing else next(iter(skills), None)
    repeats = tuple(
        (kept[key].id, tuple(dict.fromkeys(found)))
        for key, found in sources.items()
        if len(set(found)) > 1  # one file read twice (shared negatives) repeats nothing
    )
    merged = collect(list(kept.values()), problems, written_for, MERGED)
    return Merged(merged, repeats)


def _name(path: str) -> str:
    return PurePath(path).name


def _absolute(case: Case, skill: str | None) -> Case:
    """A case about "the skill measured" made about its file's skill, by name."""
    if case.expect is not None or skill is None:
        return case
    if case.should_activate:
        return replace(case, expect=(skill,))
    return replace(
        case, expect=(ANY_SKILL,), must_not=tuple(dict.fromkeys((*case.must_not, skill)))
    )


def _join(first: Case, other: Case, skill: str | None) -> Case | Problem:
    """One case that asks what both ask, or the conflict between them. `skill` is the
    skill of every file when they share one (None in a routing merge, whose cases are
    already about their files' skills)."""
    why = "; ".join(dict.fromkeys(w for w in (first.why, other.why) if w))
    tags = tuple(dict.fromkeys((*first.tags, *other.tags)))
    if first.expect is None and other.expect is None:
        if first.should_activate != other.should_activate:
            return Problem(
                first.id, "one copy says the skill should fire, another that it should not"
            )
        must_not = tuple(dict.fromkeys((*first.must_not, *other.must_not)))
        return replace(first, why=why, tags=tags, must_not=must_not)
    copies = (_absolute(first, skill), _absolute(other, skill))
    if any(copy.expect is None and copy.should_activate for copy in copies):
        return Problem(
            first.id,
            "one copy says the measured skill should fire, another names a skill: "
            "name the skill of each file",
        )
    expects = [copy.expect for copy in copies if copy.expect is not None]
    named = [found for found in expects if ANY_SKILL not in found]
    expects = named or expects[:1]  # "any skill" gives way to a copy that names one, or none
    expect = tuple(dict.fromkeys(name for found in expects for name in found))
    if expect and () in expects:
        return Problem(first.id, f"one copy expects no skill, another {', '.join(expect)}")
    must_not = tuple(dict.fromkeys(name for copy in copies for name in copy.must_not))
    clash = [name for name in expect if name in must_not]
    if clash:
        return Problem(
            first.id, f"one copy expects {', '.join(clash)}, another says it must not fire"
        )
    should = any(copy.should_activate for copy in copies if copy.expect is not None)
    return replace(
        first, why=why, tags=tags, expect=expect, must_not=must_not, should_activate=should
    )
