"""The labelled case matrix: the one validator, shared by the run and by `lint`.

The format is the Node harness's `cases.json` (an object with a `cases` list, or a bare
list); its files must load unchanged, so unknown keys are tolerated and `_`-keys ignored. A
top-level `skill` says which skill the matrix was written for.

`check_cases` finds every reason a file is not a valid matrix; the run refuses a file with
any (naming the first), and `lint` lists them all, so the two never disagree on validity.

A `why` is required, but `"why": null` says plainly that the case has none (a case imported
from a format without reasons): no reason is ever invented, and lint and the run count them.
Other tools' formats are read into the same `CaseFile` by the modules of `formats/`.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from activation._errors import InputError
from activation._models import ANY_SKILL, Case

_REQUIRED: tuple[tuple[str, type], ...] = (
    ("prompt", str),
    ("should_activate", bool),
    ("why", str),
)
_WHY = "missing 'why': it is what makes the ground truth reviewable"
NATIVE = "activation"
"""This tool's own format's name (`--cases-format activation`)."""


@dataclass(frozen=True)
class Problem:
    """Why a file is not a valid matrix; `case_id` is None for the file or an unnamed case."""

    case_id: str | None
    message: str

    def __str__(self) -> str:
        return self.message if self.case_id is None else f"case {self.case_id!r}: {self.message}"


@dataclass(frozen=True)
class CaseFile:
    """The well-formed cases of a file (or of a file and the files it shares cases with)
    and every problem found in it. `origin` names the file of each case read from several
    files; `format` is the format it was read in."""

    cases: tuple[Case, ...]
    problems: tuple[Problem, ...]
    written_for: str | None = None
    format: str = NATIVE
    origin: tuple[tuple[str, str], ...] = ()

    @property
    def unexplained(self) -> tuple[str, ...]:
        """The ids of the cases read without a `why`, in file order."""
        return tuple(case.id for case in self.cases if not case.why)


def unexplained_line(count: int) -> str | None:
    """The run's and the report's line about the cases without a reason, if any."""
    if not count:
        return None
    if count == 1:
        return "1 case has no 'why': its ground truth cannot be reviewed"
    return f"{count} cases have no 'why': their ground truth cannot be reviewed"


def normalise_prompt(prompt: str) -> str:
    return " ".join(prompt.casefold().split())


def check_cases(data: object) -> CaseFile:
    """Validate parsed JSON: the shape, every field of every case, and the references."""
    written_for: str | None = None
    if isinstance(data, dict):
        skill = data.get("skill")
        if skill is not None and not (isinstance(skill, str) and skill.strip()):
            return CaseFile((), (Problem(None, "'skill' must be a skill id like plugin:skill"),))
        written_for = skill
        if "cases" not in data:
            return CaseFile((), (Problem(None, "expected a 'cases' list or a bare list of cases"),))
        data = data["cases"]
    if not isinstance(data, list):
        return CaseFile((), (Problem(None, "'cases' must be a list"),))
    if not data:
        return CaseFile((), (Problem(None, "the case list is empty"),))
    cases: list[Case] = []
    problems: list[Problem] = []
    for position, raw in enumerate(data):
        parsed = _parse_case(raw, position)
        if isinstance(parsed, Case):
            cases.append(parsed)
        else:
            problems.append(parsed)
    named = [raw.get("id") for raw in data if isinstance(raw, dict)]
    problems += _duplicate_ids(named)
    problems += identical_prompts(cases)
    problems += [
        Problem(case.id, f"twin {case.twin!r} names no case")
        for case in cases
        if case.twin is not None and case.twin not in named
    ]
    return CaseFile(tuple(cases), tuple(problems), written_for)


def parse_cases(data: object, source: str) -> CaseFile:
    """The checked cases, or an InputError naming the first problem and counting the rest."""
    return refuse_problems(check_cases(data), source)


def refuse_problems(checked: CaseFile, source: str) -> CaseFile:
    """`checked` when it has no problem, else an InputError naming the first one."""
    if checked.problems:
        first, more = checked.problems[0], len(checked.problems) - 1
        extra = f" (and {more} more: `activation lint --cases {source}` lists them)" if more else ""
        raise InputError(f"{source}: {first}{extra}")
    return checked


def _parse_case(raw: object, position: int) -> Case | Problem:
    if not isinstance(raw, dict):
        return Problem(None, f"case #{position + 1} is not an object")
    case_id = raw.get("id")
    if not isinstance(case_id, str) or not case_id.strip():
        return Problem(None, f"case #{position + 1}: 'id' is missing or not a non-empty string")
    routes = "expect" in raw
    for field, kind in _REQUIRED:
        value = raw.get(field)
        if field == "why" and value is None and field in raw:
            continue  # no reason, said plainly: kept, and counted
        if field == "why" and not (isinstance(value, str) and value.strip()):
            return Problem(case_id, _WHY)
        if field == "should_activate" and routes and field not in raw:
            continue  # a routing case says which skill should fire instead
        if field not in raw:
            return Problem(case_id, f"missing '{field}'")
        if not isinstance(value, kind) or (isinstance(value, str) and not value.strip()):
            expected = "true or false" if kind is bool else "a non-empty string"
            return Problem(case_id, f"'{field}' must be {expected}")
    tags = raw.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        return Problem(case_id, "'tags' must be a list of strings")
    spot_check = raw.get("spot_check", False)
    if not isinstance(spot_check, bool):
        return Problem(case_id, "'spot_check' must be true or false")
    twin = raw.get("twin")
    if twin is not None and not isinstance(twin, str):
        return Problem(case_id, "'twin' must be a case id")
    expect = _ids(raw.get("expect"), nullable=True)
    if routes and isinstance(expect, Problem):
        return Problem(case_id, f"'expect' {expect.message}")
    must_not = _ids(raw.get("must_not", []), nullable=False)
    if isinstance(must_not, Problem):
        return Problem(case_id, f"'must_not' {must_not.message}")
    if routes and isinstance(expect, tuple) and ANY_SKILL in expect:
        if len(expect) > 1:
            return Problem(case_id, f"'expect' {ANY_SKILL!r} (any skill) stands alone")
        if not must_not:
            return Problem(
                case_id, f"'expect' {ANY_SKILL!r} needs 'must_not': else any answer is right"
            )
    return Case(
        id=case_id,
        prompt=raw["prompt"],
        should_activate=raw.get("should_activate", False),
        why=raw["why"] or "",
        tags=tuple(tags),
        spot_check=spot_check,
        twin=twin,
        expect=expect if routes and not isinstance(expect, Problem) else None,
        must_not=must_not or (),
    )


def _ids(value: object, nullable: bool) -> tuple[str, ...] | Problem | None:
    """A skill id, a list of them, or (`nullable`) null for no skill at all: as ids."""
    if value is None and nullable:
        return ()
    if isinstance(value, str) and value.strip():
        return (value.strip(),)
    if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
        return tuple(dict.fromkeys(v.strip() for v in value))
    must = "a skill id, a list of skill ids" + (" or null" if nullable else "")
    return Problem(None, f"must be {must}")


def resolve_ids(
    cases: Sequence[Case],
    target: str,
    menu: Sequence[str],
    hidden: Sequence[str] = (),
    elsewhere: Mapping[str, str] | None = None,
    aliases: Mapping[str, str] | None = None,
) -> tuple[Case, ...]:
    """The cases with their skill ids resolved against the menu's (a bare name stands for
    the one `plugin:name` it names), and a routing case's `should_activate` derived from
    whether it expects the target. An id that names no skill, or several, is an input
    error: a case pointing nowhere would be judged wrong for ever; so is one naming a skill
    of `hidden`, which the agent keeps from the model. A case that expects any skill but
    its `must_not` (`*`), when the target is one of them, is a negative of the target.
    `elsewhere`: the skills of the repo's other plugins (id -> the plugin's folder), which
    the error for such an id names the way to list; `aliases`: the menu's skills by their
    frontmatter names (`Skill.alias` -> id), which Claude Code resolves to them."""

    named = aliases or {}

    def resolve(case: Case, given: str) -> str:
        if given in menu or given == ANY_SKILL:
            return given
        if named.get(given) in menu:
            return named[given]
        found = [skill for skill in menu if skill.rsplit(":", 1)[-1] == given]
        if len(found) == 1:
            return found[0]
        if found:
            raise InputError(f"case {case.id!r}: {given!r} is ambiguous ({', '.join(found)})")
        if any(given in (skill, skill.rsplit(":", 1)[-1]) for skill in hidden):
            raise InputError(
                f"case {case.id!r}: {given!r} is hidden from the model (its SKILL.md says "
                "disable-model-invocation: true), so no prompt can make it fire"
            )
        other = next((s for s in elsewhere or {} if given in (s, s.rsplit(":", 1)[-1])), None)
        if other is not None and elsewhere is not None:
            raise InputError(
                f"case {case.id!r}: {given!r} names no skill of the menu: {other} is a skill "
                f"of another plugin of this repo's marketplace; pass --catalog "
                f"{elsewhere[other]} to list it"
            )
        bare = {skill.rsplit(":", 1)[-1]: skill for skill in menu}
        close = difflib.get_close_matches(given.rsplit(":", 1)[-1], list(bare), n=1)
        hint = f"did you mean {bare[close[0]]}?" if close else f"it has {', '.join(sorted(menu))}"
        raise InputError(f"case {case.id!r}: {given!r} names no skill of the menu ({hint})")

    resolved = []
    for case in cases:
        expect = None if case.expect is None else tuple(resolve(case, s) for s in case.expect)
        must_not = tuple(resolve(case, s) for s in case.must_not)
        should = case.should_activate if expect is None else target in expect
        if expect is not None and ANY_SKILL in expect and target in must_not:
            expect = None  # "anything but the target": a plain negative of it
        resolved.append(replace(case, expect=expect, must_not=must_not, should_activate=should))
    return tuple(resolved)


def collect(
    cases: Sequence[Case],
    problems: Sequence[Problem],
    written_for: str | None,
    format: str,
    origin: Sequence[tuple[str, str]] = (),
) -> CaseFile:
    """A CaseFile of cases read in another format, with the checks every file gets: no id
    twice, no prompt twice (naming the files of each, when they came from several)."""
    found = [*problems, *_duplicate_ids([case.id for case in cases])]
    found += identical_prompts(cases, dict(origin))
    return CaseFile(tuple(cases), tuple(found), written_for, format, tuple(origin))


def _duplicate_ids(ids: Sequence[object]) -> list[Problem]:
    counts = Counter(case_id for case_id in ids if isinstance(case_id, str))
    return [
        Problem(case_id, f"duplicate id: {count} cases share it")
        for case_id, count in counts.items()
        if count > 1
    ]


def identical_prompts(
    cases: Sequence[Case], origin: Mapping[str, str] | None = None
) -> list[Problem]:
    """One problem per case whose prompt an earlier case has; `origin` (case id -> file)
    names both files when they differ, so a merge of several files says where to look."""
    origin = origin or {}
    first: dict[str, str] = {}
    problems = []
    for case in cases:
        key = normalise_prompt(case.prompt)
        if key in first and first[key] != case.id:
            earlier = first[key]
            where = ""
            if origin.get(earlier, "") != origin.get(case.id, ""):
                where = f" (in {origin.get(earlier)} and {origin.get(case.id)})"
            problems.append(Problem(case.id, f"same prompt as {earlier!r}{where}"))
        first.setdefault(key, case.id)
    return problems


def parse_only(value: str) -> tuple[str, ...]:
    """`--only a,b` as ids, in order, without blanks or repeats."""
    return tuple(dict.fromkeys(part.strip() for part in value.split(",") if part.strip()))


def select(cases: Sequence[Case], only: Iterable[str]) -> tuple[Case, ...]:
    """The named cases in file order; unknown ids are an input error that lists them."""
    wanted = set(only)
    if not wanted:
        raise InputError("--only names no case id")
    unknown = sorted(wanted - {case.id for case in cases})
    if unknown:
        raise InputError(f"--only names unknown case ids: {', '.join(unknown)}")
    return tuple(case for case in cases if case.id in wanted)
