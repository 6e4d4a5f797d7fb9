"""Claude Code's own plugin-eval suites (`claude plugin eval`): found and named, never read.

The CLI runs `<eval dir>/**/prompt.md` (or `case.yaml`) cases, the eval dir being `evals/`
at the plugin's root, each graded by its `graders/*.md` (frontmatter `type:` regex,
tool_order, tool_used, file_exists, llm or baseline). Such a suite is not read here: its
`llm` rubrics and its regex graders with no file target score the agent's reply, and a
case's score is a weighted mean of its graders, while this tool grades the files the agent
leaves and passes a trial when every grader passes. Read with its reply graders left out, a
case would measure something else under its author's name, so the folder is named instead:
a change to the skills it tests is "not tested", with why. Pure but for `why_none`, which
lists a folder's files.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from activation.inputs.changes import EVALS_FOLDER

CASE_FILES = ("prompt.md", "case.yaml")
GRADERS_FOLDER = "graders"
REASON = (
    "Claude Code plugin-eval cases (prompt.md + graders/): their llm rubrics and regex "
    "graders score the agent's reply, weighted, and this tool grades the files the agent "
    "leaves"
)


def suites(paths: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """The plugin-eval folders among POSIX paths, each with its cases (their folders,
    relative to it): a case file below an `evals/` folder (the nearest one is the suite),
    or a `prompt.md` beside a `graders/` folder of `.md` files (its parent is the suite)."""
    given = list(paths)
    graded = {
        PurePosixPath(path).parent.parent
        for path in given
        if PurePosixPath(path).parent.name == GRADERS_FOLDER and path.endswith(".md")
    }
    found: dict[str, list[str]] = {}
    for path in given:
        case = PurePosixPath(path)
        if case.name not in CASE_FILES:
            continue
        folder = case.parent
        if EVALS_FOLDER in folder.parts:
            last = len(folder.parts) - folder.parts[::-1].index(EVALS_FOLDER)
            suite = PurePosixPath(*folder.parts[:last])
        elif case.name == CASE_FILES[0] and folder in graded:
            suite = folder.parent
        else:
            continue
        shown = case.name if folder == suite else folder.relative_to(suite).as_posix()
        found.setdefault(suite.as_posix(), []).append(shown)
    return {suite: tuple(sorted(set(cases))) for suite, cases in sorted(found.items())}


def plugin_evals(set_root: str) -> str:
    """Where the plugin-eval cases of a skill are, by the folder of its set (`<plugin>/skills`):
    `evals/` at its plugin's root; "" for a set outside a `skills/` folder."""
    root = PurePosixPath(set_root)
    return (root.parent / EVALS_FOLDER).as_posix() if root.name == "skills" else ""


def why_none(folder: Path, holder: str = "it") -> str:
    """Why a folder of no case this tool reads holds none, when it holds plugin-eval cases
    (read from disk, by its files' absolute paths): their format, and why it is not read;
    else empty."""
    if not folder.is_dir():
        return ""
    files = (path.as_posix() for path in folder.resolve().rglob("*") if path.is_file())
    return f": {holder} holds {REASON}: not read" if suites(files) else ""
