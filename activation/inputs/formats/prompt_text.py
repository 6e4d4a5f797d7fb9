"""Plain-text prompts, one a file (obra/superpowers' `tests/explicit-skill-requests/prompts/`):
the whole file is the prompt, its stem the case's id (a file named `prompt.txt`, one folder a
case, takes its folder's name).

Such a file has no field to name its skill, so its place does (`skill_of`): the nearest of
its folders named like a skill (`tests/brainstorming/prompts/ask.txt`), else the skill its
file name holds as whole words (`use-systematic-debugging.txt`); a file that names none is
about the skill measured, as any file that names no skill. A prompt is a positive (the
skill should fire) unless one of its folders says it is not: `negative`, `negatives`,
`should-not-trigger`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from pathlib import PurePosixPath

from activation._models import Case
from activation.inputs.cases import CaseFile, Problem, collect
from activation.inputs.formats import PROMPT_TEXT

SUFFIX = ".txt"
PROMPTS = "prompts"
PROMPT_STEM = "prompt"
PROMPT_FILE = f"{PROMPT_STEM}{SUFFIX}"
"""One folder a case: the prompt file is named so, and the folder names the case."""
NEGATIVE_FOLDERS = frozenset({"negative", "negatives", "should-not-trigger", "should_not_trigger"})


def skill_of(path: str, skills: Collection[str]) -> str | None:
    """The skill a prompt file is named for: by its folders (nearest first), else by the
    longest skill name its stem holds as whole `-`/`_`-separated words."""
    pure = PurePosixPath(path)
    for folder in reversed(pure.parent.parts):
        if folder in skills:
            return folder
    words = pure.stem.replace("_", "-").split("-")
    held = [
        name
        for name in skills
        if any(
            words[start : start + len(name.split("-"))] == name.split("-")
            for start in range(len(words))
        )
    ]
    return max(held, key=len) if held else None


def folder_of(path: str) -> str:
    """The folder a prompt file is shown and read with: its nearest `prompts/` folder (a
    `prompts/negative/` file goes with its positives), else its own."""
    parts = PurePosixPath(path).parent.parts
    if PROMPTS in parts:
        return PurePosixPath(*parts[: len(parts) - parts[::-1].index(PROMPTS)]).as_posix()
    return PurePosixPath(path).parent.as_posix()


def is_negative(path: str) -> bool:
    return any(part.lower() in NEGATIVE_FOLDERS for part in PurePosixPath(path).parent.parts)


def case_id(path: str) -> str:
    """A prompt file's case id: its stem, or, for a file named only `prompt.txt` (one
    folder a case: `scenarios/<case>/prompt.txt`), its folder's name."""
    pure = PurePosixPath(path)
    if pure.stem.lower() == PROMPT_STEM and pure.parent.name:
        return pure.parent.name
    return pure.stem


def read(path: str, text: str, skill: str | None) -> CaseFile:
    """One prompt file's one case: about `skill` (None: the skill measured)."""
    prompt = text.strip()
    stem = case_id(path)
    if not prompt:
        return collect((), (Problem(None, "the prompt file is empty"),), skill, PROMPT_TEXT)
    should = not is_negative(path)
    case = Case(stem, prompt, should, "", ("positive",) if should else ("negative",))
    return collect((case,), (), skill, PROMPT_TEXT)


def prompt_files(paths: Sequence[str]) -> list[str]:
    """The prompt files among `paths`."""
    return [path for path in paths if PurePosixPath(path).suffix.lower() == SUFFIX]
