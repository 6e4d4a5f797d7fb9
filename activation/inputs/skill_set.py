"""What the SKILL.md texts of a set, read at one spec, become: the variant (the measured
skill's text and description) and its siblings as the agent lists them; and, since that
depends on the set, which distractors the menu adds to it.

Pure, so that both readers build on it and import nothing of each other: load.py reads the
texts from disk, git_tree.py from a ref.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from activation._errors import InputError
from activation._models import Skill, Target, Variant, skill_id
from activation.inputs.frontmatter import read_sibling, split_document
from activation.inputs.suite import BUNDLED_DISTRACTORS

AgentFiles = tuple[tuple[str, str], ...]
"""A skill folder's per-agent metadata files: (path below the folder, text)."""


def sibling(
    target: Target, folder: str, path: str, text: str, agent_files: AgentFiles = ()
) -> Skill:
    """A skill of the set as the agent lists it."""
    document = read_sibling(text, path)
    description = document.frontmatter.get("description")
    shown = document.name if document.name not in (None, folder) else None
    return Skill(
        name=skill_id(target.plugin_name, folder),
        description=description.strip() or None if isinstance(description, str) else None,
        when_to_use=document.when_to_use,
        display=shown,
        source="plugin" if target.in_plugin else "project",
        path=path,
        text=text,
        listed=document.listed,
        agent_files=agent_files,
    )


Found = tuple[str, str, str, AgentFiles]
"""A skill of the set as read: (folder, repo-relative path, text, metadata files)."""


def variant_of(
    spec: str,
    text: str,
    source: str,
    found: Sequence[Found],
    target: Target,
    agent_files: AgentFiles = (),
    shown: str = "",
) -> Variant:
    """The measured skill at `spec` and the rest of its set (`found`; a problem names a
    sibling by its path after `shown`, e.g. `git:HEAD:`). A sibling the agent cannot parse
    (broken YAML, a description that is not text) is left out with a line saying why, as
    the agents skip it; the measured skill's own SKILL.md must parse."""
    document = split_document(text, source)
    siblings, skipped = [], []
    for folder, path, sibling_text, files in found:
        try:
            read_sibling(sibling_text, f"{shown}{path}")
        except InputError as error:
            skipped.append(str(error))
            continue
        siblings.append(sibling(target, folder, path, sibling_text, files))
    return Variant(spec, document.description, text, source, document.when_to_use,
                   tuple(siblings), agent_files=agent_files,
                   skipped=tuple(skipped))  # fmt: skip


# --- distractors ------------------------------------------------------------------------

NO_DISTRACTORS: Literal["none"] = "none"
"""`--distractors none`: the menu lists the set (and the catalog) alone."""
DistractorsChoice = Path | Literal["none"] | None
"""`--distractors`: a folder, `none`, or unset (decided by the set: `distractors_folder`)."""
BUNDLED_ORIGIN = "the bundled auth0-adjacent distractors (activation/suite/distractors)"


def distractors_folder(choice: DistractorsChoice, siblings: bool, catalog: bool) -> Path | None:
    """The folder whose skills the menu adds, or None for none. Unset, the bundled ones only
    keep a skill that would be alone on the menu company (alone it primes a yes, and every
    negative means nothing); a set with siblings, or a `--catalog`, already gives each
    prompt other homes, and the auth-adjacent bundle would take real trials and listing
    budget from them."""
    if choice == NO_DISTRACTORS:
        return None
    if choice is not None:
        return Path(choice)
    return None if siblings or catalog else BUNDLED_DISTRACTORS


def distractors_note(distractors: Sequence[Skill]) -> str | None:
    """Where the menu's distractors come from, said whenever a run lists some: the bundled
    ones are auth0-adjacent, written for the bundled suite, and take trials and listing
    budget from any other skill."""
    if not distractors:
        return None
    folders = {Path(skill.path).parent for skill in distractors if skill.path}
    count = f"{len(distractors)} distractor skill(s)"
    if folders == {BUNDLED_DISTRACTORS}:
        return (
            f"the menu adds {count}: {BUNDLED_ORIGIN}, written for the bundled auth0 suite; "
            "they can take trials from your skills (--distractors DIR for your own, "
            "--distractors none for none)"
        )
    where = ", ".join(sorted(str(folder) for folder in folders))
    return f"the menu adds {count} from {where} (--distractors; none: --distractors none)"
