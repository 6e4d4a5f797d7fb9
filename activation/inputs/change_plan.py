"""What a change must run, from what it touched (changes.py) and which suites test each
skill: the planner of `activation changed`. Pure: the command finds the suites on disk.

- a skill whose listing changed (description, `when_to_use`, name, hidden or not): the
  activation gate on its own cases and on the cases of every skill of its set, which could
  lose prompts to it or take them from it;
- a skill whose body or references changed: its behavior suite;
- a changed kind with no suite to test it: "not tested";
- an added skill has no baseline of its own: its set's siblings are gated (they may lose
  prompts to it), and it is "not tested" when it has no cases at all; a removed one gates
  its siblings (they may gain its prompts), and so does a renamed one (its folder moved, its
  body the same: a new name, and no baseline at its new path);
- a cases file anchored to a skill the change removes or renames, and a file a changed
  skill refers to that the change removes, are findings: the change breaks them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Literal

from activation.inputs.change_references import ReferenceBreaks
from activation.inputs.changes import CASES_FILE, EVALS_FOLDER, ChangeKind, SkillChange, SkillPlace
from activation.inputs.formats.prompt_text import SUFFIX, folder_of
from activation.inputs.plugin_eval import plugin_evals
from activation.inputs.scenarios import folder_of as scenarios_of
from activation.inputs.variants import AGENTS_DIFFER

GateKind = Literal["activation", "behavior"]


@dataclass(frozen=True)
class Suites:
    """What tests one skill: its activation cases file and its behavior suite, if any."""

    cases: str | None = None
    behavior: str | None = None
    files: tuple[str, ...] = ()
    """The files `cases` stands for when it is a folder of prompt files (else itself)."""
    foreign: str | None = None
    """Why its eval folder is no behavior suite: another tool's, in no format read here."""


@dataclass(frozen=True)
class GateRun:
    """One gate to run: `kind` on `place`'s suite, because of the changes of `because`."""

    kind: GateKind
    place: SkillPlace
    suite: str
    because: tuple[str, ...]
    """The ids of the changed skills that call for it."""
    files: tuple[str, ...] = ()
    """The case files of an activation gate (its suite is their folder, for prompt files)."""


@dataclass(frozen=True)
class SkillPlan:
    """A changed skill: what changed, and what of it no suite tests."""

    change: SkillChange
    untested: tuple[ChangeKind, ...] = ()
    note: str | None = None
    breaks: tuple[str, ...] = ()
    """What else the change breaks, a line each: a file its SKILL.md refers to, a cases file
    anchored to it (a failing finding, like a SKILL.md it breaks)."""
    known: tuple[str, ...] = ()
    """What was broken at the base already and still is (not the change's doing)."""


@dataclass(frozen=True)
class Plan:
    skills: tuple[SkillPlan, ...]
    runs: tuple[GateRun, ...]

    @property
    def untested(self) -> tuple[SkillPlan, ...]:
        return tuple(plan for plan in self.skills if plan.untested)

    @property
    def breaking(self) -> tuple[SkillPlan, ...]:
        """The skills the change breaks something of besides their SKILL.md."""
        return tuple(plan for plan in self.skills if plan.breaks)

    @property
    def relevant(self) -> bool:
        """Whether anything changed that the gates care about."""
        return bool(self.skills)


@dataclass(frozen=True)
class CasesFile:
    """A cases file of the repo (in any format `read_cases` reads), and the skill it is
    about (None: none): its own field, else the skill folder it lies in, else its name."""

    path: str
    written_for: str | None


def owners(file: CasesFile, skills: Mapping[str, SkillPlace]) -> list[str]:
    """The skills a cases file is for: the one it names (by id, or by folder name when
    the id has no plugin, else by its alias; a file in a skill's folder, that one), or, for
    a file that names none, the repo's only skill (skill-creator's `evals/trigger-eval.json`
    at the root of a one-skill repo)."""
    skill = file.written_for
    if skill is None:
        return list(skills) if len(skills) == 1 else []
    found = [
        path
        for path, place in skills.items()
        if place.id == skill or (":" not in skill and place.name == skill)
    ] or [path for path, place in skills.items() if place.alias == skill]
    inside = [path for path in found if file.path.startswith(f"{skills[path].folder}/")]
    return inside or found


def find_suites(
    skills: Mapping[str, SkillPlace],
    cases_files: Sequence[CasesFile],
    folders: frozenset[str],
    behavior_files: Sequence[CasesFile] = (),
    foreign: Mapping[str, str] | None = None,
    plugin_suites: frozenset[str] = frozenset(),
) -> dict[str, Suites]:
    """Each skill's suites, by SKILL.md path (`folders`: the repo's folders that hold
    behavior cases, as repo-relative paths; `cases_files`: its cases files, found or given;
    `behavior_files`: its per-skill JSON files with evals; `foreign`: eval folders in
    another tool's format, and why; `plugin_suites`: those of them that hold Claude Code's
    plugin-eval cases, which are about every skill of their plugin). Its cases: `cases.json`
    beside its SKILL.md, else the first cases file in its folder that is for it (see
    `owners`), else the first anywhere (a prompt file: with the skill's other prompt files
    of its folder). Its behavior suite: `evals/` in its folder, else `evals/<its name>/` at
    the root, else the first behavior file for it, else the repo's `evals/` in a repo of
    one skill."""
    paths = {file.path for file in cases_files}
    named = _first_for(skills, cases_files)
    behavior = _first_for(skills, behavior_files)
    alone = len(skills) == 1
    found = {}
    for path, place in skills.items():
        beside = place.below(CASES_FILE)
        places = (place.below(EVALS_FOLDER), f"{EVALS_FOLDER}/{place.name}")
        root = EVALS_FOLDER if alone and EVALS_FOLDER in folders else None
        evals = next((p for p in places if p in folders), None) or behavior.get(path) or root
        plugin = plugin_evals(place.set_root)
        elsewhere = (
            EVALS_FOLDER if alone else "",
            plugin if plugin in plugin_suites else "",
            f"{place.folder}-workspace",
            scenarios_of(place.name),
        )
        said = [(foreign or {}).get(p) for p in (*places, *elsewhere)]
        own_foreign = next((line for line in said if line), None)
        cases = beside if beside in paths else named.get(path)
        files = _files_of(cases, path, skills, cases_files)
        shown = _shown(files) if len(files) > 1 else cases
        found[path] = Suites(shown, evals, files, None if evals else own_foreign)
    return found


def _files_of(
    first: str | None, skill: str, skills: Mapping[str, SkillPlace], files: Sequence[CasesFile]
) -> tuple[str, ...]:
    """The files a skill's cases are read from: when its first cases file is a prompt file,
    every prompt file of that folder about the skill; else every cases file about it, the
    first first, as the main run reads them (none: the first file alone)."""
    if first is None:
        return ()
    prompts = PurePosixPath(first).suffix.lower() == SUFFIX
    mine = [
        file.path
        for file in files
        if skill in owners(file, skills)
        and (PurePosixPath(file.path).suffix.lower() == SUFFIX) == prompts
        and (not prompts or folder_of(file.path) == folder_of(first))
    ]
    found = tuple(dict.fromkeys([first, *mine]))
    return found if len(found) > 1 else ()


def _shown(files: Sequence[str]) -> str:
    """A gate's several case files in one name: their folder, for prompt files; else the
    files (the first with how many more, past three)."""
    if PurePosixPath(files[0]).suffix.lower() == SUFFIX:
        return f"{folder_of(files[0])}/"
    return ", ".join(files) if len(files) <= 3 else f"{files[0]} and {len(files) - 1} more"


def _first_for(skills: Mapping[str, SkillPlace], files: Sequence[CasesFile]) -> dict[str, str]:
    """Each skill's first file, those in its own folder first."""
    first: dict[str, str] = {}
    for own in (True, False):
        for file in files:
            for path in owners(file, skills):
                if file.path.startswith(f"{skills[path].folder}/") == own:
                    first.setdefault(path, file.path)
    return first


def plan_runs(
    changes: Sequence[SkillChange],
    head: Mapping[str, SkillPlace],
    suites: Mapping[str, Suites],
    cases_files: Sequence[CasesFile] = (),
    references: Mapping[str, ReferenceBreaks] | None = None,
) -> Plan:
    """The gates `changes` call for (`head`: the skills at the head, by SKILL.md path;
    `suites`: each skill's suites, by SKILL.md path; `cases_files`: the repo's, to name those
    about a skill the change removes or renames; `references`: what the change does to the
    files each skill refers to, by SKILL.md path), in skill order, each gate once."""
    activation: dict[str, list[str]] = {}
    behavior: dict[str, list[str]] = {}
    skills = []
    changed = {change.place.path: change for change in changes}
    for change in changes:
        own = suites.get(change.place.path, Suites())
        listing = change.status != "modified" or (
            "description" in change.kinds and not change.broken_before
        )  # one the agents skip at both versions lists the same
        if listing:
            for path, place in head.items():
                sibling = changed.get(path)
                if place.set_root != change.place.set_root or (
                    sibling and sibling.status in ("added", "renamed")
                ):  # no baseline at its path
                    continue
                broken = sibling is not None and sibling.broken is not None
                if suites.get(path, Suites()).cases is not None and not broken:
                    activation.setdefault(path, []).append(change.id)
        loads = change.broken is None
        if change.status == "modified" and "body" in change.kinds and own.behavior and loads:
            behavior.setdefault(change.place.path, []).append(change.id)
        heard = any(change.id in because for because in activation.values())
        stale = [f.path for f in cases_files if _names_gone(f, change, head)]
        refers = (references or {}).get(change.place.path, ReferenceBreaks())
        planned = _skill_plan(change, own, heard)
        breaks = (*refers.caused, *_stale_lines(change, stale))
        skills.append(replace(planned, breaks=breaks, known=refers.before))
    runs = [
        GateRun(
            "activation",
            head[path],
            _suite(suites, path, "activation"),
            tuple(because),
            suites[path].files,
        )
        for path, because in sorted(activation.items())
    ]
    runs += [
        GateRun("behavior", head[path], _suite(suites, path, "behavior"), tuple(because))
        for path, because in sorted(behavior.items())
    ]
    return Plan(tuple(skills), tuple(sorted(runs, key=lambda run: (run.place.path, run.kind))))


def _suite(suites: Mapping[str, Suites], path: str, kind: GateKind) -> str:
    found = suites[path].cases if kind == "activation" else suites[path].behavior
    assert found is not None  # only skills with that suite are planned
    return found


def _names_gone(file: CasesFile, change: SkillChange, head: Mapping[str, SkillPlace]) -> bool:
    """Whether a cases file is about a skill the change removes (and no skill at the head),
    or names a renamed one by its old id (its frontmatter name may still find it, but that
    name no longer matches its folder)."""
    old = change.renamed_from
    if old is not None:
        return file.written_for in (old.id, old.name) and file.written_for != change.id
    gone = change.status == "removed" and file.written_for in (change.id, change.place.name)
    return gone and not owners(file, head)


def _stale_lines(change: SkillChange, stale: Sequence[str]) -> list[str]:
    """A line per cases file anchored to a skill the change removes or renames: its run
    can no longer find the skill."""
    if change.renamed_from is not None:
        old = change.renamed_from.id
        return [
            f"{path} is about {old}, which this change renames to {change.id}: update its 'skill'"
            for path in stale
        ]
    return [
        f"{path} is about {change.id}, which this change removes: anchor it to another skill "
        "or remove it"
        for path in stale
    ]


def _skill_plan(change: SkillChange, own: Suites, heard: bool = True) -> SkillPlan:
    """`heard`: whether a sibling's cases run for it (else the note says none will)."""
    siblings = "its siblings' cases run" if heard else "no sibling has cases of its own to run"
    if change.broken is not None and change.broken_before:
        return SkillPlan(change, change.kinds)  # no gate can load it, before or after
    if change.broken is not None:
        return SkillPlan(change, note=f"broken: {change.broken} ({AGENTS_DIFFER})")
    if change.status == "removed":
        return SkillPlan(change, note=f"removed: {siblings}")
    if change.renamed_from is not None:
        body: tuple[ChangeKind, ...] = ("body",) if "body" in change.kinds else ()
        return SkillPlan(change, body, f"the same body in a new folder: {siblings}")
    if change.status == "added":
        if own.cases is None and own.behavior is None:
            return SkillPlan(change, change.kinds, "added, with no cases")
        return SkillPlan(change, note=f"added: no baseline of its own; {siblings}")
    untested: list[ChangeKind] = []
    if "description" in change.kinds and own.cases is None:
        untested.append("description")
    if "body" in change.kinds and own.behavior is None:
        untested.append("body")
    note = own.foreign if "body" in untested else None
    return SkillPlan(change, tuple(untested), note)
