"""The menu a run's agent would list, from a run's inputs: the skill set of a variant (the
measured skill and its siblings), then Stage A's distractors and the `--catalog`, and the
agent's own built-ins, rendered by the agent's listing rules (claude_code.py).

Each skill's listing fields are read from its SKILL.md text when there is one, as Claude
Code reads them (a numeric description is listed as its digits, a missing one falls back
to the body's first line, a frontmatter that does not parse gives none), with the
frontmatter's own text and YAML error for the agents that parse it another way, so both
stages and the report see the same entries. The measured
skill lists each variant's description and `when_to_use` with everything else of its
working-tree SKILL.md (its name, its body), as Stage B's copies have it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import PurePosixPath

from activation._config import AGENT
from activation._errors import InputError
from activation._models import VARIANTS, Inputs, Skill, SkillSource, Variant, VariantName
from activation.inputs.commands import is_command
from activation.inputs.frontmatter import read_listed, read_sibling
from activation.trials.agents import agent_named
from activation.trials.listing.model import ListedSkill, Listing
from activation.trials.listing.visibility import Visibility, copies_told_apart


def target_skill(inputs: Inputs, variant: Variant) -> Skill:
    """The measured skill as the variant has it."""
    target = inputs.target
    source: SkillSource = "plugin" if target.in_plugin else "project"
    return Skill(
        target.skill_id,
        variant.description,
        variant.when_to_use,
        source=source,
        path=target.skill_path.as_posix(),
        text=variant.text,
    )


def set_skills(inputs: Inputs, name: VariantName) -> tuple[Skill, ...]:
    """The variant's skill set, the measured skill first."""
    variant = inputs.variant(name)
    return (target_skill(inputs, variant), *variant.siblings)


def listed_skill(skill: Skill) -> ListedSkill:
    """A skill as the listing rules take it: its frontmatter's own values when its text is
    known, else the fields the record has."""
    path = PurePosixPath(skill.path)
    own = skill.nested or (path.parent.name if path.name == "SKILL.md" else "")
    folder = own or skill.name.rsplit(":", 1)[-1]  # a root skill is installed by its name
    if not skill.text:  # a distractor: named by its frontmatter, else by its file
        return ListedSkill(
            skill.name, folder, skill.source, skill.description, skill.when_to_use,
            skill.display or folder, disable_model_invocation=not skill.listed,
            files=skill.agent_files,
        )  # fmt: skip
    document = read_listed(skill.text, skill.path or skill.name)
    fields = document.frontmatter
    return ListedSkill(
        id=skill.name,
        folder=folder,
        source=skill.source,
        description=fields.get("description"),
        when_to_use=fields.get("when_to_use"),
        name=fields.get("name"),
        body=document.body,
        disable_model_invocation=not document.listed,
        files=skill.agent_files,
        command=is_command(skill.path),
        nested=bool(skill.nested),
        yaml_error=document.yaml_error or "",
        parsed=document.broken is None,
        frontmatter_text=document.frontmatter_text,
    )


def target_listed(inputs: Inputs, variant: Variant) -> ListedSkill:
    """The measured skill's entry fields: the variant's description and `when_to_use`, the
    rest of the working tree's SKILL.md; whether the agent may list it at all (its
    `disable-model-invocation` and metadata files) as the variant's spec has it."""
    skill = target_skill(inputs, variant)
    base = listed_skill(replace(skill, text=inputs.working_text or variant.text))
    return replace(
        base,
        description=variant.description,
        when_to_use=variant.when_to_use,
        disable_model_invocation=_hidden_at(variant, base.disable_model_invocation),
        files=variant.agent_files,
    )


def _hidden_at(variant: Variant, otherwise: bool) -> bool:
    """Whether the variant's own SKILL.md says `disable-model-invocation: true` (a text
    that is no SKILL.md, as a test's made-up variant, leaves `otherwise`)."""
    try:
        return not read_sibling(variant.text, variant.source).listed
    except InputError:
        return otherwise


def menu_listed(
    inputs: Inputs, name: VariantName, *, distractors: bool = True
) -> list[ListedSkill]:
    """Everything the variant's agent lists but its built-ins: the set, the distractors
    (Stage A's stand-ins for other installed skills), the catalog."""
    variant = inputs.variant(name)
    others: Iterable[Skill] = (
        *variant.siblings,
        *(inputs.distractors if distractors else ()),
        *inputs.catalog,
    )
    return [target_listed(inputs, variant), *(listed_skill(skill) for skill in others)]


def plugin_order(inputs: Inputs) -> list[str]:
    """The `--plugin-dir` order: the measured plugin, then the catalog's plugins."""
    own = [inputs.target.plugin_name] if inputs.target.plugin_name else []
    catalog = [skill.name.split(":", 1)[0] for skill in inputs.catalog if skill.source == "plugin"]
    return list(dict.fromkeys([*own, *catalog]))


def variant_listings(
    inputs: Inputs, model: str | None, *, distractors: bool = True, agent: str = AGENT
) -> dict[VariantName, Listing]:
    """Both variants' listings, as `agent` lists them."""
    order = plugin_order(inputs)
    return {
        name: agent_listing(
            agent, menu_listed(inputs, name, distractors=distractors), model, inputs, order
        )
        for name in VARIANTS
    }


def agent_listing(
    agent: str, skills: list[ListedSkill], model: str | None, inputs: Inputs, order: list[str]
) -> Listing:
    """The skills as `agent` lists them (its own renderer, trials/agents/<agent>/listing)."""
    return agent_named(agent).listing(lists(agent, skills), model, inputs, order)


def lists(agent: str, skills: list[ListedSkill]) -> list[ListedSkill]:
    """What `agent` may list of `skills`: Claude Code's command files only Claude Code, a
    SKILL.md inside another skill's folder only an agent that walks the whole tree."""
    nested = agent_named(agent).nested_skills
    return [
        skill
        for skill in skills
        if (agent == AGENT or not skill.command) and (nested or not skill.nested)
    ]


def variant_visibility(
    inputs: Inputs, listings: Mapping[VariantName, Listing], agent: str = AGENT
) -> dict[VariantName, tuple[Visibility, ...]]:
    """How `agent` shows each skill of each variant's set and of the catalog in that
    variant's listing (`listings`, its own rendering: Stage A's with the distractors too),
    by the agent's rules."""
    verdicts = {}
    for name in VARIANTS:
        skills = lists(agent, menu_listed(inputs, name, distractors=False))
        seen = agent_named(agent).visibility(skills, listings[name])
        verdicts[name] = copies_told_apart(seen, skills)
    return verdicts


def listing_warnings(listings: Mapping[VariantName, Listing], target: str) -> list[str]:
    """One line for each variant whose listing cuts or drops the measured skill's entry."""
    warnings = []
    for name, shown in listings.items():
        entry = shown.entry(target)
        if entry is None:
            warnings.append(
                f"the {name}'s listing does not show {target} at all (the agent's rule is "
                "in the report's visibility lines)"
            )
        elif entry.state == "cut":
            warnings.append(
                f"the {name}'s listing cuts {target}'s entry at the agent's per-entry limit: "
                "the model never sees its end"
            )
        elif entry.state == "collapsed":
            warnings.append(
                f"the {name}'s listing is over the agent's budget ({shown.full_width:,} of "
                f"{shown.budget:,} columns) and shows {target} by its id alone, without "
                "its description"
            )
    return warnings


def unparsed_words(inputs: Inputs, agents: Sequence[str]) -> dict[str, str]:
    """For each sibling of either variant whose frontmatter does not parse or whose
    description is missing or not text, its problem line and that line saying what each of
    `agents` does with it (the agents differ: "...: Claude Code 2.1.332 lists it as
    'Content Auditor' (its body's first line); Codex 0.171.0 skips it")."""
    lines: dict[str, str] = {}
    for name in VARIANTS:
        variant = inputs.variant(name)
        skills = {skill.name: skill for skill in variant.siblings}
        for id, problem in variant.unparsed:
            if problem not in lines:
                lines[problem] = f"{problem}: {_agents_do(inputs, skills[id], agents)}"
    return lines


def _agents_do(inputs: Inputs, skill: Skill, agents: Sequence[str]) -> str:
    """What each agent does with `skill` listed alone, agents that agree named together."""
    said: dict[str | None, list[str]] = {}
    listed = listed_skill(skill)
    for agent in agents:
        record = agent_named(agent)
        shown = agent_listing(agent, lists(agent, [listed]), None, inputs, plugin_order(inputs))
        entry = shown.entry(skill.name)
        menu = (record.read_back(shown.text) or []) if entry is not None else []
        text = next((text for named, text in menu if entry and named == entry.name), None)
        said.setdefault(text, []).append(record.label())
    return "; ".join(
        _agreed(labels, "skip it" if text is None else f"list it as {_quoted(text, listed)}")
        for text, labels in said.items()
    )


def _agreed(labels: Sequence[str], verb: str) -> str:
    """ "A, B and C list it" / "A lists it"."""
    if len(labels) == 1:
        head, _space, rest = verb.partition(" ")
        return f"{labels[0]} {head}s {rest}"
    return f"{', '.join(labels[:-1])} and {labels[-1]} {verb}"


def _quoted(text: str, skill: ListedSkill, limit: int = 80) -> str:
    """The listed text on one line, cut at `limit` characters; said to be the body's first
    line when it is that and not the description."""
    line = " ".join(text.split())
    shown = repr(line if len(line) <= limit else line[: limit - 1] + "\u2026")
    first = next((part.strip() for part in skill.body.split("\n") if part.strip()), "")
    if line != skill.description and line == first.lstrip("#").strip():
        return f"{shown} (its body's first line)"
    return shown
