"""The visibility gate of `activation changed`: a change to what an agent lists of a skill
(its frontmatter, or a per-agent metadata file such as Codex's `agents/openai.yaml`) can hide
it, or cut it, with no case able to say so. Each set with such a change is compared base vs
head for every agent of the run, as `activation visibility --baseline` compares it (no model
call); a skill the head shows less of fails the change, tested or not.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from activation._models import VARIANTS

if TYPE_CHECKING:
    from activation._models import Target
    from activation.commands.requests import ChangedRequest
    from activation.inputs.changes import SkillChange
    from activation.trials.listing.visibility import LessVisible


def listing_changed(change: SkillChange) -> bool:
    """A skill that is at both versions and readable at the head, whose listing inputs
    changed: the one kind of change a comparison of its visibility can judge."""
    return change.status == "modified" and not change.broken and "description" in change.kinds


def less_visible_sets(
    repo: Path, changes: Sequence[SkillChange], args: ChangedRequest
) -> tuple[LessVisible, ...]:
    """Every skill that the head shows less of than the base, in each set a change to a
    skill's listing touched, for each agent and model of the run, beside its `--catalog`."""
    from activation.commands.visibility import first_of_each_set, set_inputs
    from activation.inputs.load import resolve_target
    from activation.report.visibility import agent_view

    targets: list[Target] = [
        resolve_target(repo, change.place.path, Path.cwd())
        for change in changes
        if listing_changed(change)
    ]
    found: dict[str, LessVisible] = {}
    for target in first_of_each_set(targets):
        inputs = set_inputs(target, args.head, args.base, args.catalog)
        for agent in args.agent:
            for model in args.model or (None,):
                for finding in agent_view(agent, inputs, model, VARIANTS).less_visible:
                    found.setdefault(finding.line, finding)
    return tuple(found.values())
