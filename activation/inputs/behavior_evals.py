"""The seeds' eval folders: `PROMPT.md`, `scaffold/` and a graders file, read as they are.

PROMPT.md has YAML frontmatter (`id`, required, matching ^[a-z][a-z0-9_]{0,63}$; `name`,
default the id; `category`, default the folder above the eval's; `skills`, one name or a
list; `setup_command`; `mcp_servers`, as behavior_mcp.py reads them; `turns`, the prompts
sent after the task, in the same session; any other key is kept for lint to name) and a body
with optional `## System`, `## Agent System` and `## Task` sections. Without any of the three,
the whole body is the task. Only these three headings split the body (a task may have `##`
headings of its own), none inside a fenced code block; text above the first section (a
title) is not sent to the model.

The graders are the case files' primitives, in `graders.json` or `graders.yaml` (`.yml`): a
`graders.ts` is the seeds' TypeScript and cannot be run here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

import orjson
import yaml

from activation._behavior import BehaviorCase, Grader, ScaffoldFile
from activation._errors import InputError
from activation._yaml import load_yaml
from activation.inputs.behavior_cases import parse_turns, unread_keys
from activation.inputs.behavior_graders import parse_graders
from activation.inputs.behavior_mcp import parse_mcp_servers
from activation.inputs.frontmatter import split_document

EVAL_ID = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
PROMPT_FILE = "PROMPT.md"
SCAFFOLD_DIR = "scaffold"
GRADERS_FILES = ("graders.json", "graders.yaml", "graders.yml")
GRADERS_TS = "graders.ts"
FRONT_KEYS = frozenset(
    {"id", "name", "category", "skills", "setup_command", "mcp_servers", "turns"}
)
_SECTIONS = {"system": "system", "agent system": "agent_system", "task": "task"}
_HEADING = re.compile(r"^##[ \t]+(system|agent[ \t]+system|task)[ \t]*#*[ \t]*$", re.IGNORECASE)
_FENCE = re.compile(r"^[ \t]{0,3}(```|~~~)")


def parse_eval(
    prompt_text: str,
    graders_files: Mapping[str, bytes],
    scaffold: tuple[ScaffoldFile, ...],
    source: str,
    category: str | None = None,
) -> BehaviorCase:
    """One eval folder's case. `graders_files` holds the folder's files named `graders.*`
    by name; `source` is the folder's path, `category` the default category (the folder
    above it)."""
    prompt = parse_prompt(prompt_text, f"{source}/{PROMPT_FILE}", category)
    graders = _graders(graders_files, f"{source}: case {prompt.id!r}")
    return replace(prompt, source=source, graders=graders, scaffold=scaffold)


def parse_prompt(text: str, source: str, category: str | None = None) -> BehaviorCase:
    """A PROMPT.md's case, its `source` the file: what the file says, before its folder's
    graders and scaffold."""
    document = split_document(text, source, description_required=False)
    front = document.frontmatter
    eval_id = front.get("id")
    if not isinstance(eval_id, str) or not EVAL_ID.match(eval_id):
        raise InputError(
            f"{source}: the frontmatter's 'id' must match ^[a-z][a-z0-9_]{{0,63}}$ "
            f"(snake_case), got {eval_id!r}"
        )
    where = f"{source}: case {eval_id!r}"
    name = _optional_text(front, "name", where) or eval_id
    sections = _sections(document.body, where)
    task = sections.get("task", "") if sections else document.body.strip()
    if not task:
        raise InputError(f"{where}: the task is empty (write it under '## Task')")
    return BehaviorCase(
        id=eval_id,
        name=name,
        prompt=task,
        source=source,
        category=_optional_text(front, "category", where) or category,
        skills=_skills(front.get("skills"), where),
        setup_command=_optional_text(front, "setup_command", where),
        system=sections.get("system") or None,
        agent_system=sections.get("agent_system") or None,
        unread=unread_keys(front, FRONT_KEYS),
        mcp_servers=parse_mcp_servers(front.get("mcp_servers"), where),
        turns=parse_turns(front.get("turns"), where),
    )


def _sections(body: str, where: str) -> dict[str, str]:
    """The known sections' texts, stripped; empty when the body has none."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    fenced = False
    for line in body.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        heading = None if fenced else _HEADING.match(line)
        if heading:
            key = _SECTIONS[" ".join(heading.group(1).lower().split())]
            if key in found:
                raise InputError(f"{where}: the section '{line.strip()}' appears twice")
            current = found[key] = []
        elif current is not None:
            current.append(line)
    return {key: "\n".join(lines).strip() for key, lines in found.items()}


def _optional_text(front: Mapping[str, object], key: str, where: str) -> str | None:
    value = front.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        raise InputError(f"{where}: the frontmatter's {key!r} must be non-empty text")
    return value.strip()


def _skills(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str) and value.strip():
        return (value.strip(),)
    if isinstance(value, list) and value and all(isinstance(s, str) and s for s in value):
        return tuple(value)
    raise InputError(f"{where}: the frontmatter's 'skills' must be a name or a list of names")


def _graders(files: Mapping[str, bytes], where: str) -> tuple[Grader, ...]:
    given = [name for name in GRADERS_FILES if name in files]
    if len(given) > 1:
        raise InputError(f"{where}: both {given[0]} and {given[1]} are there: keep one")
    if not given:
        if GRADERS_TS in files:
            raise InputError(
                f"{where}: a {GRADERS_TS} cannot be run here: write the same graders "
                "in graders.yaml (or graders.json)"
            )
        raise InputError(f"{where}: no graders.yaml or graders.json beside PROMPT.md")
    name = given[0]
    raw = files[name]
    try:
        data = orjson.loads(raw) if name.endswith(".json") else load_yaml(raw)
    except (orjson.JSONDecodeError, yaml.YAMLError) as error:
        first = str(error).splitlines()[0]
        raise InputError(f"{where}: {name} cannot be parsed ({first})") from None
    return parse_graders(data, f"{where}: {name}")
