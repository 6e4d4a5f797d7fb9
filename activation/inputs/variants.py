"""The two descriptions being compared: what a `--baseline`/`--candidate` SPEC means.

A SPEC is `git:<ref>` (the SKILL.md at that ref of the target repo) or a path.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from activation._config import DESCRIPTION_LIMIT
from activation._errors import InputError
from activation._models import Target, Variant

GIT_PREFIX = "git:"


def working_tree_spec(target: Target) -> str:
    """The default candidate: the SKILL.md as it is on disk now."""
    return str(target.skill_file)


def git_ref(spec: str) -> str | None:
    """The ref of a `git:<ref>` spec, None for a path spec; an empty ref is an error."""
    if not spec.startswith(GIT_PREFIX):
        return None
    ref = spec.removeprefix(GIT_PREFIX).strip()
    if not ref:
        raise InputError(f"{spec!r}: 'git:' needs a ref (a branch, tag or commit), e.g. git:HEAD")
    return ref


def unknown_ref_message(
    spec: str,
    ref: str,
    repo: Path,
    shallow: bool = False,
    remotes: Sequence[str] = (),
    branches: Sequence[str] = (),
) -> str:
    """The commonest cause in CI is a shallow checkout that never fetched the base branch;
    the hint names only what the repo has: its remotes, its history, its branches."""
    relative = ref.startswith("HEAD") or any(mark in ref for mark in "~^@")
    remote = next((r for r in remotes if ref.startswith(f"{r}/")), remotes[0] if remotes else None)
    said = f"{spec}: no commit {ref!r} in {repo}"
    if remote is not None and not relative:
        fetch = f"`git fetch {remote} {ref.removeprefix(f'{remote}/')}`"
    elif shallow:
        fetch = "`git fetch --unshallow`"  # a revision expression: more history, not a branch
    else:
        if not branches:
            return f"{said} (it has no branch yet: commit first)"
        return said + ("" if relative else f" (its branches: {', '.join(branches[:5])})")
    if shallow:
        return f"{said} (a shallow clone: it may need {fetch}, or a checkout with fetch-depth: 0)"
    return f"{said} (if {remote} has it: {fetch})"


def missing_path_message(spec: str, path: Path, names_ref: bool) -> str:
    """A path SPEC with no file there; one that names a ref of the repo meant `git:<ref>`."""
    hint = f": for the ref {spec}, pass git:{spec}" if names_ref else ""
    return f"{spec}: no such file ({path}){hint}"


def description_warnings(variant: Variant) -> list[str]:
    """The agent cuts descriptions at DESCRIPTION_LIMIT, so a longer one is not what it sees;
    no agent reads a skill of the set that is not UTF-8, so the menu lacks that one; and
    the agents differ on one whose frontmatter does not parse."""
    skipped = [
        *skipped_warnings((variant,)),
        *(f"{line}: {UNPARSED}" for _, line in variant.unparsed),
    ]
    length = len(variant.description)
    if length <= DESCRIPTION_LIMIT:
        return skipped
    return [
        f"{variant.spec}: the description is {length:,} characters, "
        f"over the agent's limit of {DESCRIPTION_LIMIT:,}",
        *skipped,
    ]


def skipped_warnings(variants: Sequence[Variant]) -> list[str]:
    """One line for each sibling the variants leave out because it does not parse, once."""
    problems = dict.fromkeys(problem for variant in variants for problem in variant.skipped)
    return [f"{problem}: left out of the set ({SKIPPED})" for problem in problems]


SKIPPED = "no agent reads a skill that is not UTF-8; `activation lint` shows it"
AGENTS_DIFFER = (
    "the agents differ on it: some skip it, Claude Code lists a project skill by the first "
    "line of its body; `activation visibility` says what each does"
)
UNPARSED = (
    "kept in the set: each agent lists it or skips it as its own parser reads it "
    "(`activation visibility` says which)"
)


def decode_skill(data: bytes, source: str) -> str:
    """SKILL.md files are UTF-8; a BOM is tolerated because editors on Windows add one."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{source}: not UTF-8 text (byte {error.start})") from None
