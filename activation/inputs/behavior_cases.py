"""The seeds' behavior case files, read as they are: one JSON object per file, `{slug,
origin_skill, evals: [{prompt, expectations, turns}], graders: [...] | null, scaffold: {path:
text}, mcp_servers: {name: {command, args, env}}}`. `turns` and `mcp_servers` are this tool's
own: an eval's `turns` lists the prompts sent after its first, in the same session;
`mcp_servers` are read by behavior_mcp.py.

Each eval of a file is a case of its own (ids `slug`, `slug-2`, ...) with the file's graders
and scaffold. A file whose `graders` is null or missing is expectations-only: its cases are
kept, marked manual, and neither graded nor gated. Other keys are tolerated (the files are
the seeds' own) and kept in `BehaviorCase.unread`, which lint names; graders are checked
strictly (behavior_graders.py).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping

from activation._behavior import BehaviorCase, ScaffoldFile
from activation._errors import InputError
from activation.inputs.behavior_graders import parse_graders
from activation.inputs.behavior_mcp import parse_mcp_servers

SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
FILE_KEYS = frozenset({"slug", "origin_skill", "evals", "graders", "scaffold", "mcp_servers"})
EVAL_KEYS = frozenset({"prompt", "expectations", "turns"})


def parse_case_file(data: object, source: str) -> tuple[BehaviorCase, ...]:
    """The cases of one parsed case file; `source` (its path) names it in every error."""
    if not isinstance(data, Mapping):
        raise InputError(f"{source}: a case file must be a JSON object with a 'slug'")
    slug = data.get("slug")
    if not isinstance(slug, str) or not SLUG.match(slug):
        raise InputError(f"{source}: 'slug' must be text of letters, digits, '.', '_' or '-'")
    where = f"{source}: case {slug!r}"
    origin = data.get("origin_skill")
    if origin is not None and not isinstance(origin, str):
        raise InputError(f"{where}: 'origin_skill' must be text")
    evals = data.get("evals")
    if not isinstance(evals, list) or not evals:
        raise InputError(f"{where}: 'evals' must be a non-empty list of {{prompt, expectations}}")
    raw_graders = data.get("graders")
    graders = () if raw_graders is None else parse_graders(raw_graders, where)
    scaffold = _scaffold(data.get("scaffold"), where)
    servers = parse_mcp_servers(data.get("mcp_servers"), where)
    unread = unread_keys(data, FILE_KEYS)
    cases = []
    for number, raw in enumerate(evals, 1):
        case_id = slug if number == 1 else f"{slug}-{number}"
        where_eval = f"{source}: case {case_id!r}"
        prompt, expectations = _eval(raw, where_eval)
        turns = parse_turns(raw.get("turns"), where_eval)
        unread += unread_keys(raw, EVAL_KEYS)
        cases.append(
            BehaviorCase(
                id=case_id,
                name=case_id,
                prompt=prompt,
                source=source,
                expectations=expectations,
                graders=graders,
                scaffold=scaffold,
                origin_skill=origin,
                unread=unread,
                mcp_servers=servers,
                turns=turns,
            )
        )
        unread = ()
    return tuple(cases)


def unread_keys(data: object, known: frozenset[str]) -> tuple[str, ...]:
    """The keys of an object this tool does not use (`_` comments aside), for lint to name."""
    keys = data if isinstance(data, Mapping) else ()
    return tuple(str(key) for key in keys if str(key) not in known and not str(key).startswith("_"))


def parse_turns(raw: object, where: str) -> tuple[str, ...]:
    """A case's `turns`: the prompts sent after its first, each non-empty text (none: one
    prompt)."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not all(isinstance(t, str) and t.strip() for t in raw):
        raise InputError(
            f"{where}: 'turns' must be a list of non-empty prompts, sent after the first in order"
        )
    return tuple(raw)


def _eval(raw: object, where: str) -> tuple[str, tuple[str, ...]]:
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: each eval must be an object with a 'prompt'")
    prompt = raw.get("prompt")
    if not isinstance(prompt, str) or not prompt.strip():
        raise InputError(f"{where}: the eval's 'prompt' must be non-empty text")
    expectations = raw.get("expectations", [])
    if not isinstance(expectations, list) or not all(isinstance(e, str) for e in expectations):
        raise InputError(f"{where}: 'expectations' must be a list of text")
    return prompt, tuple(expectations)


def _scaffold(raw: object, where: str) -> tuple[ScaffoldFile, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Mapping):
        raise InputError(f"{where}: 'scaffold' must be an object of {{path: content}}")
    files: dict[str, str] = {}
    for path, content in raw.items():
        if not isinstance(content, str):
            raise InputError(f"{where}: the scaffold file {path!r} must have text content")
        relative = scaffold_path(path, where)
        if relative in files:
            raise InputError(f"{where}: the scaffold names {relative!r} twice")
        files[relative] = content
    return tuple(sorted(files.items()))


def scaffold_path(path: object, where: str) -> str:
    """A scaffold file's path, normalised: relative, in POSIX form, inside the workspace."""
    if not isinstance(path, str) or not path.strip() or "\\" in path or "\0" in path:
        raise InputError(f"{where}: the scaffold path {path!r} is not a relative POSIX path")
    normal = posixpath.normpath(path)
    if posixpath.isabs(normal) or normal == "." or normal.split("/")[0] == "..":
        raise InputError(f"{where}: the scaffold path {path!r} leaves the workspace")
    return normal
