"""What the SKILL.md texts of a set, read at one spec, become: the variant (the measured
skill's text and description) and its siblings as the agent lists them.

Pure, so that both readers build on it and import nothing of each other: load.py reads the
texts from disk, git_tree.py from a ref.
"""

from __future__ import annotations

from collections.abc import Sequence

from activation._models import Skill, Target, Variant, skill_id
from activation.inputs.frontmatter import read_sibling, split_document

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


def variant_of(
    spec: str, text: str, source: str, siblings: Sequence[Skill], agent_files: AgentFiles = ()
) -> Variant:
    document = split_document(text, source)
    return Variant(spec, document.description, text, source, document.when_to_use,
                   tuple(siblings), agent_files=agent_files)  # fmt: skip
