"""What the SKILL.md texts of a set, read at one spec, become: the variant (the measured
skill's text and description) and its siblings as the agent lists them.

Pure, so that both readers build on it and import nothing of each other: load.py reads the
texts from disk, git_tree.py from a ref.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath

from activation._errors import InputError
from activation._models import Skill, Target, Variant, skill_id
from activation.inputs.frontmatter import listing_problem, read_listed, split_document
from activation.inputs.target import SKILL_FILE_NAME, nested_in_skill
from activation.inputs.variants import decode_skill

AgentFiles = tuple[tuple[str, str], ...]
"""A skill folder's per-agent metadata files: (path below the folder, text)."""


def sibling(
    target: Target,
    folder: str,
    path: str,
    text: str,
    agent_files: AgentFiles = (),
    owner: PurePath | None = None,
) -> Skill:
    """A skill of the set as the agent lists it (one whose frontmatter does not parse has
    no fields: each agent's renderer reads its text its own way). One inside the folder of
    the skill whose SKILL.md is `owner` is nested: its id is made of its folder's path from
    the skills folder (`issuance/issuance-config`), unique whatever its name."""
    document = read_listed(text, path)
    description = document.frontmatter.get("description")
    shown = document.name if document.name not in (None, folder) else None
    below = owner.parent.parent if owner is not None else None
    nested = PurePath(path).parent.relative_to(below).as_posix() if below is not None else ""
    return Skill(
        name=skill_id(target.plugin_name, nested or folder),
        description=description.strip() or None if isinstance(description, str) else None,
        when_to_use=document.when_to_use,
        display=shown,
        source="plugin" if target.in_plugin else "project",
        path=path,
        text=text,
        listed=document.listed,
        agent_files=agent_files,
        nested=nested,
    )


Found = tuple[str, str, bytes, AgentFiles]
"""A skill of the set as read: (folder, repo-relative path, its bytes, metadata files);
decoded here, so a sibling that is not UTF-8 is left out: no agent reads it."""


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
    sibling by its path after `shown`, e.g. `git:HEAD:`). A sibling whose frontmatter does
    not parse, or whose description is not text, stays in the set with a line saying why
    (`unparsed`): the agents differ on it (Claude Code lists a project skill by its body's
    first line); one that is not UTF-8 is left out (`skipped`). The measured skill's own
    SKILL.md must parse."""
    document = split_document(text, source)
    skills = [PurePath(path) for _, path, _, _ in found if PurePath(path).name == SKILL_FILE_NAME]
    owners = nested_in_skill([PurePath(target.skill_path), *skills])
    siblings, skipped, unparsed = [], [], []
    for folder, path, data, files in found:
        try:
            sibling_text = decode_skill(data, f"{shown}{path}")
        except InputError as error:
            skipped.append(str(error))
            continue
        kept = sibling(target, folder, path, sibling_text, files, owners.get(PurePath(path)))
        problem = listing_problem(read_listed(sibling_text, f"{shown}{path}"), f"{shown}{path}")
        if problem is not None:
            unparsed.append((kept.name, problem))
        siblings.append(kept)
    return Variant(spec, document.description, text, source, document.when_to_use,
                   tuple(siblings), agent_files=agent_files,
                   skipped=tuple(skipped), unparsed=tuple(unparsed))  # fmt: skip
