"""Grading a workspace: pure, with the judge's answers and the commands' results given in.

Semantics (the seeds'):

- `contains`, `contains_any`: some file holds the value (any of the values); case is
  ignored unless the grader is `case_sensitive`, as for every text and regex grader.
- `not_contains`, `not_contains_any`: no file holds it; `not_contains_in_source` the same
  over source files only (`is_source`: configuration may hold a client id, code may not).
- `matches`, `not_matches`: the regex (multiline) matches in some file / in none; each file
  is searched on its own.
- `file_contains`: some file matching the glob holds the value; fails when no file matches
  the glob. A glob without `/` matches file names in any folder; one with `/` matches the
  whole relative path, `*` crossing folders, and `**/` also matching no folder at all.
- `all`: every part passes (an error in a part is the `all`'s error).
- `command`: exit code 0 passes; a non-zero exit or a time-out fails; a command that could
  not be run is an error.
- `judge`: YES passes, NO fails, no answer (None) is an error of the trial, never a vote.

Negative graders are void in a trial where no positive grader passed, so an empty workspace
scores nothing. A trial passes when no grader is in error, at least one applies, and every
one that applies passes.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fnmatch import fnmatchcase
from typing import Literal

from activation._behavior import LEVELS, Grader, Level
from activation.trials.behavior.workspace import Workspace

Outcome = Literal["passed", "failed", "void", "error"]
Found = tuple[str, int]
"""Where a value was found: the file and the line (1-based)."""

CONFIG_SUFFIXES = (
    ".json",
    ".plist",
    ".toml",
    ".yaml",
    ".yml",
    ".ini",
    ".cfg",
    ".conf",
    ".xml",
    ".properties",
)
"""`not_contains_in_source` skips files with these suffixes, `.env*` files, `*.config.*`
files (next.config.js, vite.config.ts) and `.*rc` files (.npmrc, .babelrc): configuration,
where a client id or a domain belongs."""
VOID_WHY = "void: no positive grader passed"


@dataclass(frozen=True)
class CommandResult:
    """How a `command` grader's command ended in the workspace. `exit_code` None and not
    `timed_out`: it could not be run at all. `output` is the end of what it printed."""

    exit_code: int | None
    timed_out: bool = False
    output: str = ""


@dataclass(frozen=True)
class GraderResult:
    grader: Grader
    outcome: Outcome
    why: str


@dataclass(frozen=True)
class Grading:
    """A trial's graders. `levels` holds, per level that has graders, the worst outcome of
    its graders (error, then failed, then passed, then void)."""

    results: tuple[GraderResult, ...]
    levels: Mapping[Level, Outcome]
    passed: bool
    error: bool


def grade(
    graders: Sequence[Grader],
    workspace: Workspace,
    *,
    judged: Mapping[str, bool | None],
    commands: Mapping[str, CommandResult],
) -> Grading:
    """Grade a workspace. `judged` answers every judge question (by question) and `commands`
    gives every command's result (by command line): `judge_questions` and `commands_of` say
    which. A missing one is the caller's bug (ValueError), not a trial's outcome."""
    raw = [_check(grader, workspace.files, judged, commands) for grader in graders]
    pairs = list(zip(graders, raw, strict=True))
    any_positive = any(outcome == "passed" for grader, (outcome, _) in pairs if not grader.negative)
    results = tuple(
        GraderResult(grader, "void", VOID_WHY)
        if grader.negative and not any_positive
        else GraderResult(grader, outcome, why)
        for grader, (outcome, why) in pairs
    )
    error = any(result.outcome == "error" for result in results)
    applied = [result for result in results if result.outcome != "void"]
    passed = not error and bool(applied) and all(r.outcome == "passed" for r in applied)
    return Grading(results, _levels(results), passed, error)


def judge_questions(graders: Iterable[Grader]) -> tuple[Grader, ...]:
    """The judge graders whose questions must be answered, once per question, in order
    (those inside an `all` included)."""
    return _unique(graders, "judge", lambda grader: grader.question)


def commands_of(graders: Iterable[Grader]) -> tuple[Grader, ...]:
    """The command graders whose commands must be run, once per command line, in order."""
    return _unique(graders, "command", lambda grader: grader.command)


def _unique(
    graders: Iterable[Grader], kind: str, key: Callable[[Grader], str | None]
) -> tuple[Grader, ...]:
    seen: dict[str | None, Grader] = {}
    for top in graders:
        for grader in top.walk():
            if grader.type == kind:
                seen.setdefault(key(grader), grader)
    return tuple(seen.values())


def is_source(path: str) -> bool:
    """Whether `not_contains_in_source` looks at this file (see `CONFIG_SUFFIXES`)."""
    name = posixpath.basename(path).lower()
    if name.startswith(".env") or name.endswith(CONFIG_SUFFIXES) or ".config." in name:
        return False
    return not (name.startswith(".") and name.endswith("rc"))


def glob_matches(pattern: str, path: str) -> bool:
    """Whether a relative POSIX path matches a `file_contains` glob (see above)."""
    pattern = pattern.removeprefix("./")
    if "/" not in pattern:
        return fnmatchcase(posixpath.basename(path), pattern)
    tries = {pattern, pattern.replace("/**/", "/"), pattern.removeprefix("**/")}
    return any(fnmatchcase(path, each) for each in tries)


def _check(
    grader: Grader,
    files: Sequence[tuple[str, str]],
    judged: Mapping[str, bool | None],
    commands: Mapping[str, CommandResult],
) -> tuple[Outcome, str]:
    """The grader's own outcome, before voiding."""
    kind = grader.type
    if kind in ("contains", "contains_any", "not_contains", "not_contains_any"):
        values = grader.values or (grader.value or "",)
        return _presence(values, files, grader.case_sensitive, kind.startswith("not_"))
    if kind == "not_contains_in_source":
        source = [(path, text) for path, text in files if is_source(path)]
        return _presence((grader.value or "",), source, grader.case_sensitive, True, "source ")
    if kind in ("matches", "not_matches"):
        return _regex(grader, files)
    if kind == "file_contains":
        pattern = grader.file_pattern or ""
        matching = [(path, text) for path, text in files if glob_matches(pattern, path)]
        if not matching:
            return "failed", f"no file matches {pattern!r}"
        return _presence((grader.value or "",), matching, grader.case_sensitive, False)
    if kind == "all":
        return _all(grader, files, judged, commands)
    if kind == "command":
        return _command(grader, commands)
    return _judge(grader, judged)


def _presence(
    values: Sequence[str],
    files: Sequence[tuple[str, str]],
    case_sensitive: bool,
    negative: bool,
    kind: str = "",
) -> tuple[Outcome, str]:
    for value in values:
        found = _find(value, files, case_sensitive)
        if found is not None:
            where = f"{value!r} found in {found[0]}:{found[1]}"
            return ("failed" if negative else "passed"), where
    if len(values) == 1:
        absent = f"{values[0]!r} is in {_none_of(len(files), kind)}"
    else:
        absent = f"none of {', '.join(map(repr, values))} is in {_any_of(len(files), kind)}"
    return ("passed" if negative else "failed"), absent


def _find(value: str, files: Sequence[tuple[str, str]], case_sensitive: bool) -> Found | None:
    needle = value if case_sensitive else value.lower()
    for path, text in files:
        hay = text if case_sensitive else text.lower()
        at = hay.find(needle)
        if at >= 0:
            return path, hay.count("\n", 0, at) + 1
    return None


def _regex(grader: Grader, files: Sequence[tuple[str, str]]) -> tuple[Outcome, str]:
    regex = grader.regex()
    negative = grader.type == "not_matches"
    for path, text in files:
        match = regex.search(text)
        if match is not None:
            line = text.count("\n", 0, match.start()) + 1
            return (
                "failed" if negative else "passed"
            ), f"/{regex.pattern}/ matched in {path}:{line}"
    return ("passed" if negative else "failed"), (
        f"/{regex.pattern}/ matches {_none_of(len(files))}"
    )


def _all(
    grader: Grader,
    files: Sequence[tuple[str, str]],
    judged: Mapping[str, bool | None],
    commands: Mapping[str, CommandResult],
) -> tuple[Outcome, str]:
    parts = [_check(part, files, judged, commands) for part in grader.graders]
    for outcome in ("error", "failed"):
        for number, (part_outcome, why) in enumerate(parts, 1):
            if part_outcome == outcome:
                return outcome, f"part {number} ({grader.graders[number - 1].type}): {why}"
    return "passed", f"all {len(parts)} parts passed"


def _command(grader: Grader, commands: Mapping[str, CommandResult]) -> tuple[Outcome, str]:
    command = grader.command or ""
    if command not in commands:
        raise ValueError(f"no result given for the command {command!r}")
    result = commands[command]
    tail = _last_line(result.output)
    if result.timed_out:
        return "failed", f"timed out after {grader.timeout:g} s"
    if result.exit_code is None:
        return "error", "could not be run" + (f": {tail}" if tail else "")
    if result.exit_code == 0:
        return "passed", "exited 0"
    return "failed", f"exited {result.exit_code}" + (f": {tail}" if tail else "")


def _judge(grader: Grader, judged: Mapping[str, bool | None]) -> tuple[Outcome, str]:
    question = grader.question or ""
    if question not in judged:
        raise ValueError(f"no answer given for the judge question {question!r}")
    answer = judged[question]
    if answer is None:
        return "error", "the judge could not answer"
    return ("passed", "the judge answered YES") if answer else ("failed", "the judge answered NO")


def _levels(results: Sequence[GraderResult]) -> dict[Level, Outcome]:
    rank: dict[Outcome, int] = {"void": 0, "passed": 1, "failed": 2, "error": 3}
    levels: dict[Level, Outcome] = {}
    for result in results:
        level = result.grader.level
        if level is not None and rank[result.outcome] >= rank[levels.get(level, "void")]:
            levels[level] = result.outcome
    return {level: levels[level] for level in LEVELS if level in levels}


def _none_of(count: int, kind: str = "") -> str:
    return f"no {kind}file (there is none)" if count == 0 else f"none of {_files(count, kind)}"


def _any_of(count: int, kind: str = "") -> str:
    return f"no {kind}file (there is none)" if count == 0 else f"any of {_files(count, kind)}"


def _files(count: int, kind: str) -> str:
    return f"{count} {kind}file{'s' if count > 1 else ''}"


def _last_line(output: str) -> str:
    lines = [line.strip() for line in output.strip().splitlines() if line.strip()]
    return lines[-1][:200] if lines else ""
