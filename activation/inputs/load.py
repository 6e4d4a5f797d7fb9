"""Reading a run's inputs from disk (and, through git_tree.py, from git), for both kinds of
case: trigger cases (`load_inputs`) and behavior cases (`load_behavior_inputs`, with the
set's files an installed copy holds, installed.py). With git_tree.py and installed.py the
only modules of `inputs` that do I/O.

Everything it reads is validated by the pure modules beside it, and every problem is an
InputError with one line a person can act on, raised before any model call.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from importlib.resources import files
from pathlib import Path, PurePath

import orjson
import yaml

from activation._behavior import BehaviorCase, BehaviorRunInputs, BehaviorSuite, ScaffoldFile
from activation._config import (
    AGENT_METADATA,
    AGENT_METADATA_LIMIT,
    BASELINE,
    PLUGINS_DIR,
    PRICING_FILE,
    SKILL_FOLDERS,
    SKILL_PATH,
)
from activation._errors import InputError
from activation._models import (
    ANY_SKILL,
    Case,
    Inputs,
    Pricing,
    Skill,
    SkillSource,
    Target,
    Variant,
    skill_id,
)
from activation._yaml import load_yaml
from activation.inputs.behavior_cases import parse_case_file, scaffold_path
from activation.inputs.behavior_evals import GRADERS_FILES, GRADERS_TS, PROMPT_FILE, SCAFFOLD_DIR
from activation.inputs.behavior_evals import parse_eval as parse_eval_folder
from activation.inputs.behavior_skill_creator import behavior_cases, eval_files
from activation.inputs.cases import CaseFile, refuse_problems, resolve_ids, select
from activation.inputs.changes import EVALS_FOLDER, is_cases_file
from activation.inputs.commands import working_commands
from activation.inputs.distractors import DistractorsChoice, distractors_folder
from activation.inputs.formats.detect import detect
from activation.inputs.formats.shape import Document
from activation.inputs.formats.skill_json import has_evals
from activation.inputs.frontmatter import read_sibling, split_document
from activation.inputs.pricing import parse_pricing, with_override
from activation.inputs.skill_set import AgentFiles, Found, variant_of
from activation.inputs.suite import BUNDLED_CASES, BUNDLED_SKILL, no_cases_message
from activation.inputs.target import (
    LISTED_BY,
    MANIFEST,
    MARKETPLACE,
    ROOT_SKILL,
    SKILL_FILE_NAME,
    MarketplacePlugin,
    choose_default_skill,
    marketplace_plugin,
    marketplace_plugins,
    nested_in_skill,
    nested_line,
    plugin_name_from_manifest,
    root_skill_name,
    set_root,
)
from activation.inputs.variants import (
    decode_skill,
    git_ref,
    missing_path_message,
    working_tree_spec,
)

# --- cases and distractors ---------------------------------------------------------------


GZIP_MAGIC = b"\x1f\x8b"


def read_bytes(path: Path, what: str) -> bytes:
    """A file's bytes; a folder or an unreadable file is an input error naming `what` it is."""
    try:
        return path.read_bytes()
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, not a {what}") from None
    except OSError as error:
        raise InputError(f"cannot read the {what} {path}: {error.strerror}") from None


def read_json(path: Path, what: str = "cases file") -> object:
    """A JSON file, parsed, gzipped or not (a report written to `*.gz`); unreadable,
    non-UTF-8 or non-JSON input is an input error."""
    raw = read_bytes(path, what)
    if raw[:2] == GZIP_MAGIC:
        import gzip

        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise InputError(f"{path}: a damaged gzip file ({error})") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 (byte {error.start})") from None
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError as error:
        raise InputError(
            f"{path}: not valid JSON at line {error.lineno}, column {error.colno} ({error.msg})"
        ) from None


def load_cases(path: Path, format: str | None = None) -> CaseFile:
    """The cases of a file in any format `read_cases` reads; any problem is an InputError."""
    return refuse_problems(read_cases(path, format), str(path))


def read_cases(path: Path, format: str | None = None) -> CaseFile:
    """The cases of a file in any known format (detected by its shape unless `format`
    names one), with every problem found: the one reader of cases files. A JSON Lines
    positives file is read with the shared negatives files beside it."""
    from activation.inputs.formats import PROMPTS_JSONL
    from activation.inputs.formats.detect import read
    from activation.inputs.formats.prompts_jsonl import is_negatives

    document = read_document(path)
    shared: tuple[Document, ...] = ()
    if format in (None, PROMPTS_JSONL) and document.kind == "jsonl" and not is_negatives(document):
        beside = sorted(p for p in path.parent.glob("*.jsonl") if p.is_file() and p != path)
        shared = tuple(d for d in map(read_document, beside) if is_negatives(d))
    return read(document, format, shared)


def read_document(path: Path, what: str = "cases file") -> Document:
    """A case file parsed by its name: `.jsonl`/`.ndjson` as JSON Lines, `.yaml`/`.yml`
    as YAML, `.csv` as trigger rows, anything else as JSON (or as JSON Lines, when that is
    what it holds)."""
    raw = read_bytes(path, what)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputError(f"{path}: not UTF-8 (byte {error.start})") from None
    suffix = path.suffix.lower()
    data: object
    if suffix in JSON_LINES:
        return Document(str(path), _json_lines(text, path), "jsonl", folder_skill(path))
    if suffix == ".csv":
        return Document(str(path), _csv_rows(text, path), "json", folder_skill(path))
    if suffix in YAML_SUFFIXES:
        try:
            data = load_yaml(text)
        except yaml.YAMLError as error:
            first = str(error).splitlines()[0]
            raise InputError(f"{path}: not valid YAML ({first})") from None
        return Document(str(path), data, "yaml", folder_skill(path))
    try:
        data = orjson.loads(text)
    except orjson.JSONDecodeError as error:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1 and all(_is_json_object(line) for line in lines):
            return Document(str(path), _json_lines(text, path), "jsonl", folder_skill(path))
        raise InputError(
            f"{path}: not valid JSON at line {error.lineno}, column {error.colno} ({error.msg})"
        ) from None
    return Document(str(path), data, "json", folder_skill(path))


JSON_LINES = (".jsonl", ".ndjson")
YAML_SUFFIXES = (".yaml", ".yml")
CSV_HEADER = ("id", "should_trigger", "prompt")
"""The trigger prompts' CSV as the field writes it: one row a prompt, for the file's skill."""


def _csv_rows(text: str, path: Path) -> list[dict[str, object]]:
    """A CSV of trigger prompts as skill-creator's trigger rows (`should_trigger` read as
    true or false, anything else left for the format to refuse); another header is no
    case file, said in one line."""
    import csv

    reader = csv.DictReader(text.splitlines())
    header = tuple(name.strip() for name in reader.fieldnames or ())
    if not set(CSV_HEADER) <= set(header):
        raise InputError(
            f"{path}: not read: a CSV of cases has the header {','.join(CSV_HEADER)} "
            f"(this one has {','.join(header) or 'none'})"
        )
    flags = {"true": True, "false": False}
    rows = []
    for row in reader:
        item: dict[str, object] = {(key or "").strip(): value for key, value in row.items()}
        flag = str(item.get("should_trigger") or "").strip().lower()
        item["should_trigger"] = flags.get(flag, item.get("should_trigger"))
        rows.append(item)
    return rows


def _is_json_object(line: str) -> bool:
    try:
        return isinstance(orjson.loads(line), dict)
    except orjson.JSONDecodeError:
        return False


def _json_lines(text: str, path: Path) -> list[object]:
    rows: list[object] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as error:
            raise InputError(f"{path}: line {number} is not valid JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise InputError(f"{path}: line {number} is not a JSON object")
        rows.append(row)
    return rows


def folder_skill(path: Path) -> str | None:
    """The skill whose folder holds the file, directly or in a folder of its own
    (`<skill>/evals/<file>`): a folder with a SKILL.md, named as it is on disk even when
    the path is relative (`evals/x.json` read in the skill's folder); a repo's root skill
    by its frontmatter `name`, as the run names it (the checkout's folder means nothing)."""
    for folder in (path.parent, path.parent.parent):
        if (folder / SKILL_FILE_NAME).is_file():
            whole = folder.resolve()
            if (whole / ".git").exists():
                return skill_name(whole, Path(SKILL_FILE_NAME))
            return whole.name or None
    return None


def load_distractors(directory: Path) -> tuple[Skill, ...]:
    """One skill per `*.md` file, sorted by file name so the menu is the same on every machine.

    The name comes from the frontmatter's `name`, else the file stem, matching how a SKILL.md
    is named by its folder when the frontmatter omits it.
    """
    if not directory.is_dir():
        raise InputError(f"distractors folder not found: {directory}")
    files = sorted(path for path in directory.glob("*.md") if path.is_file())
    if not files:
        raise InputError(f"{directory}: no distractor skills (expected one *.md file per skill)")
    skills: list[Skill] = []
    origin: dict[str, Path] = {}
    for path in files:
        document = split_document(read_text(path, "distractor"), str(path))
        name = (document.name or path.stem).strip()
        if not name:
            raise InputError(f"{path}: the frontmatter 'name' is empty")
        if name in origin:
            raise InputError(
                f"duplicate distractor name {name!r} in {origin[name].name} and {path.name}"
            )
        origin[name] = path
        skills.append(
            Skill(
                name=name,
                description=document.description,
                when_to_use=document.when_to_use,
                path=str(path),
            )
        )
    return tuple(skills)


def read_text(path: Path, what: str) -> str:
    return decode_skill(read_bytes(path, what), str(path))


# --- the target ----------------------------------------------------------------------------


def git_root(cwd: Path) -> Path:
    """The working tree containing `cwd`: the default `--repo`. Found as git finds it, by
    the nearest `.git` (a folder, or a file in a worktree or submodule), without gitpython,
    which only reading a `git:` ref needs."""
    for folder in (cwd.resolve(), *cwd.resolve().parents):
        if (folder / ".git").exists():
            return folder
        if (folder / "HEAD").is_file() and (folder / "objects").is_dir():
            raise InputError(f"{folder} is a bare git repository: pass --repo DIR")
    raise InputError(f"{cwd} is not inside a git repository: pass --repo DIR")


def explicit_repo(repo: Path, cwd: Path) -> Path:
    """`--repo` need not be a git repository unless a `git:` variant is read from it."""
    path = (cwd / repo).resolve()
    if not path.is_dir():
        raise InputError(f"--repo {repo}: no such directory")
    return path


def find_skill_files(repo: Path) -> list[PurePath]:
    """Every SKILL.md where skills are looked for: at the root (a one-skill repo), anywhere
    under `plugins/`, each skill folder of the skills-folder layouts, and each skill of the
    plugins the repo's marketplace file serves, wherever their folders are (dbt Labs' serves
    `./skills/<plugin>`); repo-relative and sorted. A skills folder that links to one read
    already (microsoft/skills keeps `.opencode/skills -> ../.github/skills`) is that set,
    read once. A SKILL.md inside another skill's folder is a file of that skill, as Claude
    Code, Gemini CLI and Copilot CLI read it (`nested_skill_files` names them)."""
    found = _skill_files_any_depth(repo)
    nested = nested_in_skill(found)
    return [path for path in found if path not in nested]


def nested_skill_files(repo: Path) -> dict[PurePath, PurePath]:
    """Each SKILL.md inside another skill's folder, with the SKILL.md of the skill it
    belongs to: no command measures them, and every command says so (the listings of the
    agents that walk the whole tree list them as siblings)."""
    return nested_in_skill(_skill_files_any_depth(repo))


def nested_warnings(target: Target) -> list[str]:
    """The line naming each SKILL.md inside a skill's folder of the target's set, and which
    agents list it (none when there is none)."""
    root = target.plugin_root.resolve()
    nested = [
        path
        for path, owner in nested_skill_files(target.repo).items()
        if (target.repo / owner).resolve().is_relative_to(root)
    ]
    return [nested_line(nested)] if nested else []


def _skill_files_any_depth(repo: Path) -> list[PurePath]:
    """The SKILL.md files `find_skill_files` looks at, and every SKILL.md below theirs."""
    found = []
    plugins = repo / PLUGINS_DIR
    if plugins.is_dir():
        found += [path for path in plugins.rglob(SKILL_FILE_NAME) if path.is_file()]
    served = [folder for plugin in read_marketplace(repo) for folder in plugin.folders]
    read: set[Path] = set()
    for folder in [*map(PurePath, SKILL_FOLDERS), *served]:
        real = (repo / folder).resolve()
        if real in read:
            continue
        read.add(real)
        found += [path for path in (repo / folder).glob(f"*/{SKILL_FILE_NAME}") if path.is_file()]
    below = [inner for path in found for inner in path.parent.rglob(SKILL_FILE_NAME)]
    found += [path for path in (repo / f / SKILL_FILE_NAME for f in served) if path.is_file()]
    found += [path for path in (repo / ROOT_SKILL,) if path.is_file()]
    return sorted({PurePath(path.relative_to(repo)) for path in [*found, *below] if path.is_file()})


def read_marketplace(repo: Path) -> list[MarketplacePlugin]:
    """The plugins the repo's marketplace file serves from the repo (none without one)."""
    path = repo / MARKETPLACE
    if not path.is_file():
        return []
    return marketplace_plugins(read_json(path, "marketplace file"), str(path))


def readable_skill_files(repo: Path) -> tuple[list[PurePath], list[str]]:
    """The repo's SKILL.md files the agents can read and list, and why each other one
    fails (not UTF-8, broken frontmatter, no description), one line each naming the file:
    a run about another skill leaves such a sibling out, `lint` reports it."""
    readable, problems = [], []
    for relative in find_skill_files(repo):
        shown = relative.as_posix()
        try:
            split_document(decode_skill(read_bytes(repo / relative, "SKILL.md"), shown), shown)
        except InputError as error:
            problems.append(str(error))
        else:
            readable.append(relative)
    return readable, problems


def skill_problems(repo: Path) -> list[str]:
    """Why each SKILL.md of the repo that the agents cannot read or list fails."""
    return readable_skill_files(repo)[1]


def default_skill_path(
    repo: Path, written_for: str | None = None, routes: Sequence[str] = ()
) -> Path:
    """The auth0 default when present, else the one skill (or set) found."""
    if (repo / SKILL_PATH).is_file():
        return Path(SKILL_PATH)
    found = find_skill_files(repo)
    return Path(choose_default_skill(found, written_for, routes, read_marketplace(repo)))


def find_set(repo: Path, skill_path: Path) -> tuple[Path, str | None, tuple[Path, ...]]:
    """The skill's set: the plugin of the repo's marketplace that loads it (its root, name
    and, when the entry names its skills, those); else the nearest ancestor holding a
    plugin manifest (its root and name); else a skills folder (its path, and no plugin);
    else the layout-based plugin fallback. A root SKILL.md, and a project's
    `.claude/skills`/`.agents/skills`, are sets of their own whatever plugin surrounds them."""
    if PurePath(skill_path) == ROOT_SKILL:
        return repo, None, (skill_path,)
    found = set_root(skill_path, lambda: read_marketplace(repo),
                     lambda folder: (repo / folder / MANIFEST).is_file())  # fmt: skip
    plugin = found.served
    if plugin is not None:
        members = (
            ()
            if plugin.default
            else tuple(Path(path) for path in find_skill_files(repo) if plugin.holds(path))
        )
        return repo / plugin.root, plugin.name, members
    if not found.plugin:
        return repo / found.root, None, ()
    return repo / found.root, read_plugin_name(repo / found.root), ()


def read_plugin_name(plugin_root: Path) -> str:
    """The plugin's name from its manifest when it has one, else its folder's name."""
    manifest = plugin_root / MANIFEST
    if not manifest.is_file():
        return plugin_root.name
    try:
        data = orjson.loads(manifest.read_bytes())
    except orjson.JSONDecodeError as error:
        raise InputError(f"{manifest}: the plugin manifest is not valid JSON ({error})") from None
    except OSError as error:
        raise InputError(
            f"{manifest}: cannot read the plugin manifest ({error.strerror})"
        ) from None
    return plugin_name_from_manifest(data, plugin_root.name, str(manifest))


def resolve_target(
    repo: Path | None,
    skill_path: str | None,
    cwd: Path,
    written_for: str | None = None,
    routes: Sequence[str] = (),
) -> Target:
    """Resolve `--repo` and `--skill-path` (either may be None for its default; without a
    skill path, `written_for`, the cases file's skill, may pick one of a set, and a routing
    suite (`routes`: the skills its cases expect, most expected first) takes the whole set,
    anchored on the skill most of its cases expect)."""
    root = git_root(cwd) if repo is None else explicit_repo(repo, cwd)
    relative = (
        default_skill_path(root, written_for, routes)
        if skill_path is None
        else relative_skill_path(root, skill_path)
    )
    if (root / relative).is_dir():
        if not (root / relative / SKILL_FILE_NAME).is_file():
            raise InputError(
                f"--skill-path {relative.as_posix()}: a folder with no {SKILL_FILE_NAME} in it"
            )
        relative = relative / SKILL_FILE_NAME
    owner = nested_skill_files(root).get(PurePath(relative)) if skill_path is not None else None
    if owner is not None:
        raise InputError(
            f"--skill-path {relative.as_posix()}: inside the folder of skill "
            f"{owner.parent.name}, so a file of that skill, never a measured skill (pass "
            f"--skill-path {owner.as_posix()}; {LISTED_BY} list it beside it, as this tool does)"
        )
    plugin_root, plugin_name, members = find_set(root, relative)
    return Target(
        repo=root,
        skill_path=relative,
        plugin_root=plugin_root,
        plugin_name=plugin_name,
        skill_name=skill_name(root, relative),
        members=members,
    )


def skill_name(repo: Path, relative: Path) -> str:
    """The skill's folder name; for a root skill, its frontmatter `name` (a SKILL.md that
    cannot be read or has none falls back to the folder, and its reader says why)."""
    folder = (repo / relative).parent.name
    if PurePath(relative) != ROOT_SKILL:
        return folder
    try:
        name = read_sibling(read_text(repo / relative, "SKILL.md"), str(relative)).name
    except InputError:
        name = None
    return root_skill_name(name, folder)


def relative_skill_path(repo: Path, skill_path: str) -> Path:
    """`--skill-path` relative to the repo; absolute paths are accepted if they lie inside it.
    The repo itself names its root skill, when a SKILL.md lies there (a one-skill repo)."""
    given = Path(skill_path)
    absolute = Path(os.path.normpath(given if given.is_absolute() else repo / given))
    if not absolute.is_relative_to(repo):
        # An absolute path may reach the (resolved) repo through a symlink, e.g. /tmp on macOS.
        absolute = absolute.parent.resolve() / absolute.name
    if not absolute.is_relative_to(repo):
        raise InputError(
            f"--skill-path {skill_path}: not inside the repo {repo} "
            "(--skill-path is relative to --repo, not to the current folder)"
        )
    relative = absolute.relative_to(repo)
    if relative == Path():
        if (repo / SKILL_FILE_NAME).is_file():
            return Path(SKILL_FILE_NAME)
        raise InputError(f"--skill-path {skill_path}: names the repo itself, not a SKILL.md")
    return relative


# --- the variants --------------------------------------------------------------------------


def agent_files(folder: Path) -> AgentFiles:
    """The per-agent metadata files of a skill folder on disk (`agents/<vendor>.yaml`),
    by their path below it; one that is too large, unreadable or not UTF-8 is left out,
    as the agents that read them ignore a file they cannot read."""
    where, suffixes = AGENT_METADATA
    found = []
    for path in sorted((folder / where).glob("*")):
        if path.suffix not in suffixes or not path.is_file():
            continue
        try:
            if path.stat().st_size > AGENT_METADATA_LIMIT:
                continue
            text = path.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        found.append((path.relative_to(folder).as_posix(), text))
    return tuple(found)


def _working_set(target: Target) -> list[Found]:
    """(folder, repo-relative path, bytes, metadata files) of every other SKILL.md of the
    set on disk, each followed by those inside its folder (the measured skill's too: the
    agents that walk the whole tree list them), then its described commands
    (inputs/commands.py)."""
    if not target.in_set:
        return []
    found = []
    for relative in set_members(target):
        inside = sorted((target.repo / relative).parent.rglob(f"*/{SKILL_FILE_NAME}"))
        for path in [target.repo / relative, *inside]:
            shown = path.relative_to(target.repo)
            if shown == target.skill_path or not path.is_file() or path.is_symlink():
                continue
            found.append(
                (
                    path.parent.name,
                    shown.as_posix(),
                    read_bytes(path, "SKILL.md"),
                    agent_files(path.parent),
                )
            )
    return found + working_commands(target)


def set_members(target: Target) -> list[Path]:
    """The SKILL.md files of the target's set in the working tree, repo-relative: the ones
    its marketplace entry names, else every one beside the measured skill's folder."""
    if target.members:
        return sorted(target.members)
    folder = target.repo / target.skills_dir
    return [path.relative_to(target.repo) for path in sorted(folder.glob(f"*/{SKILL_FILE_NAME}"))]


def read_path(spec: str, cwd: Path, target: Target) -> Variant:
    """Read a SKILL.md given as a path relative to `cwd` (or absolute); the rest of its set
    is the working tree's."""
    path = cwd / spec
    if path.is_dir():
        inside = path / SKILL_FILE_NAME
        hint = (
            f"pass {Path(spec) / SKILL_FILE_NAME}" if inside.is_file() else "it holds no SKILL.md"
        )
        raise InputError(f"{spec}: is a directory; {hint}")
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        if path == target.skill_file:
            raise InputError(
                f"--skill-path {target.skill_path.as_posix()}: no such file "
                f"(relative to --repo {target.repo})"
            ) from None
        from activation.inputs.git_tree import names_commit

        message = missing_path_message(spec, path, names_commit(target.repo, spec))
        raise InputError(message) from None
    except OSError as error:
        raise InputError(f"{spec}: cannot read {path} ({error.strerror})") from None
    text = decode_skill(data, spec)
    return variant_of(spec, text, spec, _working_set(target), target, agent_files(path.parent))


def resolve_variant(spec: str, target: Target, cwd: Path) -> Variant:
    """Turn a `--baseline`/`--candidate` SPEC into the skill and its set at that spec."""
    ref = git_ref(spec)
    if ref is None:
        return read_path(spec, cwd, target)
    from activation.inputs.git_tree import read_at_ref

    return read_at_ref(spec, ref, target)


def load_catalog(folder: Path) -> tuple[Skill, ...]:
    """Other installed skills (`--catalog DIR`): a skills folder (`<name>/SKILL.md`, listed
    as the user's own skills, by bare name), a plugin (`skills/<name>/SKILL.md`, listed as
    `plugin:name`: another plugin of the repo's marketplace), or a folder of plugins
    (`<plugin>/skills/<name>/SKILL.md`, listed as `plugin:name`)."""
    if not folder.is_dir():
        raise InputError(f"--catalog {folder}: no such folder")
    skills = []
    for path in sorted(folder.glob(f"*/{SKILL_FILE_NAME}")):
        skills.append(catalog_skill(None, path, "user"))
    for path in sorted(folder.glob(f"skills/*/{SKILL_FILE_NAME}")):
        skills.append(catalog_skill(read_plugin_name(folder), path, "plugin"))
    for path in sorted(folder.glob(f"*/skills/*/{SKILL_FILE_NAME}")):
        plugin_root = path.parent.parent.parent
        skills.append(catalog_skill(read_plugin_name(plugin_root), path, "plugin"))
    if not skills:
        raise InputError(
            f"--catalog {folder}: no skills "
            "(expected <name>/SKILL.md, skills/<name>/SKILL.md "
            "or <plugin>/skills/<name>/SKILL.md)"
        )
    return tuple(skills)


def load_user_skills(folders: Sequence[Path]) -> tuple[tuple[Skill, ...], list[str]]:
    """The skills of an agent's user skill folders (`<name>/SKILL.md`), first folder first,
    one per name; a folder that does not exist holds none. A SKILL.md that cannot be read
    is left out with a line saying why (it is the user's, not the measured set)."""
    skills: dict[str, Skill] = {}
    problems = []
    for folder in folders:
        for path in sorted(folder.glob(f"*/{SKILL_FILE_NAME}")) if folder.is_dir() else ():
            try:
                skill = catalog_skill(None, path, "user")
            except InputError as error:
                problems.append(f"left out: {error}")
                continue
            skills.setdefault(skill.name, skill)
    return tuple(skills.values()), problems


def aliases_of(target: Target, text: str, skills: Sequence[Skill]) -> dict[str, str]:
    """The skills' ids by their frontmatter names (`Skill.alias`), the measured skill's
    (its SKILL.md `text`) among them."""
    found = {skill.alias: skill.name for skill in skills if skill.alias is not None}
    try:
        name = read_sibling(text, str(target.skill_path)).name
    except InputError:
        return found
    if name not in (None, target.skill_name):
        found[skill_id(target.plugin_name, name)] = target.skill_id
    return found


def catalog_skill(plugin: str | None, path: Path, source: SkillSource) -> Skill:
    text = read_text(path, "SKILL.md")
    document = read_sibling(text, str(path))
    description = document.frontmatter.get("description")
    folder = path.parent.name
    return Skill(
        name=skill_id(plugin, folder),
        description=description.strip() or None if isinstance(description, str) else None,
        when_to_use=document.when_to_use,
        display=document.name if document.name not in (None, folder) else None,
        source=source,
        path=str(path),
        text=text,
        listed=document.listed,
        agent_files=agent_files(path.parent),
    )


# --- the whole set -------------------------------------------------------------------------


def load_inputs(
    cwd: Path,
    *,
    repo: Path | None = None,
    skill_path: str | None = None,
    cases: Path | Sequence[Path] | None = None,
    distractors: DistractorsChoice = None,
    baseline: str | None = None,
    candidate: str | None = None,
    only: tuple[str, ...] | None = None,
    catalog: Path | None = None,
    alone: bool = False,
    measured: str | None = None,
    cases_format: str | None = None,
) -> Inputs:
    """Everything a run needs: as the command line, the baseline defaults to `git:HEAD`
    and the candidate to the working-tree SKILL.md. `alone`: one description, the
    candidate's, on both sides (`suggest` starts from it; no other spec is read).
    `measured`: the id of the set's skill to measure, instead of the cases file's;
    `cases_format`: the cases file's format (None: told by its shape);
    `distractors`: a folder, `none`, or None for the set's default (`distractors_folder`)."""
    from activation.inputs.repo_cases import load_given

    matrix = (
        load_cases(BUNDLED_CASES, cases_format)
        if cases is None
        else load_given(cases, cwd, cases_format)
    )
    routes = expected_skills(matrix.cases)
    target = resolve_target(repo, skill_path, cwd, measured or matrix.written_for, routes)
    chosen = matrix.cases if only is None else select(matrix.cases, only)
    listed = beyond_set(load_catalog(catalog), target, cwd) if catalog is not None else ()
    second = resolve_variant(candidate or working_tree_spec(target), target, cwd)
    if cases is None and target.skill_id != BUNDLED_SKILL:
        raise InputError(no_cases_message(target.skill_id))
    first = second if alone else resolve_variant(baseline or BASELINE, target, cwd)
    siblings = any(variant.siblings for variant in (first, second))
    folder = distractors_folder(distractors, siblings, catalog is not None, target.skill_id)
    others = load_distractors(folder) if folder is not None else ()
    ours = {target.skill_id} | {s.name for v in (first, second) for s in v.siblings}
    seen: dict[str, str] = {}
    for skill in (*others, *listed):
        if skill.name in ours and skill in listed and skill.source == "user":
            continue  # a user's copy of a project skill: each agent's own rule picks one
        if skill.name in ours or skill.name in seen:
            where = "the measured skill's set" if skill.name in ours else seen[skill.name]
            raise InputError(
                f"{skill.path or skill.name}: a second skill {skill.name!r} (also in {where})"
            )
        seen[skill.name] = skill.path or skill.name
    hidden = hidden_skills((first, second), (*others, *listed))
    menu = sorted((ours | set(seen)) - hidden)
    return Inputs(
        target,
        resolve_ids(
            chosen,
            target.skill_id,
            menu,
            sorted(hidden),
            other_plugins(target.repo),
            aliases_of(target, second.text, (*first.siblings, *second.siblings, *others, *listed)),
        ),
        others,
        first,
        second,
        written_for=matrix.written_for,
        catalog=listed,
        working_text=read_text(target.skill_file, "SKILL.md")
        if target.skill_file.is_file()
        else None,
    )


def expected_skills(cases: Sequence[Case]) -> tuple[str, ...]:
    """The skills a routing suite's cases expect, most expected first (then by name); none
    when a case is not a routing case (it is about the one skill measured)."""
    if not cases or any(case.expect is None for case in cases):
        return ()
    counts = Counter(name for case in cases for name in case.expect or () if name != ANY_SKILL)
    return tuple(sorted(counts, key=lambda name: (-counts[name], name)))


def beyond_set(catalog: Sequence[Skill], target: Target, cwd: Path) -> tuple[Skill, ...]:
    """The catalog less the measured set's own skills: a catalog of everything installed
    (`--catalog plugins` in a marketplace, `--catalog .agents/skills`) holds the set too,
    which the agent lists once, as itself. A skill elsewhere of one of its ids is still
    a second skill (load_inputs refuses it), but for a user's skill of a project skill's
    name, which each agent lists by its own rule (visibility says which copy)."""
    own = target.skill_file if target.skill_path.parent == Path() else target.plugin_root
    root = own.resolve()

    def inside(skill: Skill) -> bool:
        found = (cwd / skill.path).resolve() if skill.path else None
        return found is not None and (found == root or found.is_relative_to(root))

    return tuple(skill for skill in catalog if not inside(skill))


def other_plugins(repo: Path) -> dict[str, str]:
    """The skills of the plugins the repo's marketplace serves from their own folder, each
    with that folder (what `--catalog` lists it from): a case may expect one of them."""
    served = read_marketplace(repo)
    found = {}
    for path in find_skill_files(repo):
        plugin = marketplace_plugin(path, served)
        if plugin is not None and plugin.root != PurePath():
            found[skill_id(plugin.name, path.parent.name)] = plugin.root.as_posix()
    return found


def hidden_skills(variants: Sequence[Variant], others: Sequence[Skill]) -> set[str]:
    """The skills around the target the agent keeps from the model in every variant
    (`disable-model-invocation`): a case expecting one is a case no prompt can pass."""
    skills = [*(skill for variant in variants for skill in variant.siblings), *others]
    return {s.name for s in skills if not s.listed} - {s.name for s in skills if s.listed}


# --- prices ----------------------------------------------------------------------------------


def load_pricing(price_in: float | None = None, price_out: float | None = None) -> Pricing:
    """The bundled price table, with the `--price-in`/`--price-out` override."""
    source = files("activation").joinpath(PRICING_FILE)
    return with_override(
        parse_pricing(source.read_text("utf-8"), PRICING_FILE), price_in, price_out
    )


# --- behavior cases (Stage C) ------------------------------------------------------------
#
# A suite path is a folder of the seeds' case files (`*.json` directly in it), a folder of
# eval folders (each folder holding a PROMPT.md, at any depth, is one eval), both at once, a
# single case file, or a single eval folder. A `*.json` with behavioral `evals` and no `slug`
# is a per-skill JSON file (skill-creator's `evals.json`; behavior_skill_creator.py).
# Everything read is validated by the pure parsers (behavior_cases.py, behavior_evals.py),
# and every problem is one InputError line naming the file and the case.

NEITHER = (
    "not behavior cases (a seeds' case file has a 'slug', skill-creator's evals.json "
    "'evals' of prompts)"
)
"""Why a file is no behavior case file; what it lacks as trigger cases follows."""
_NOT_SEARCHED = frozenset({"node_modules", SCAFFOLD_DIR})
"""Folders never searched for eval folders (besides hidden ones)."""


def load_behavior_suite(path: Path) -> BehaviorSuite:
    """Every behavior case under `path`; an InputError when there is none or one is bad."""
    cases: tuple[BehaviorCase, ...]
    skipped: list[str] = []
    trigger: list[str] = []
    if not path.exists():
        raise InputError(f"behavior cases not found: {path}")
    if path.is_file():
        cases = (
            (_eval_folder(path.parent, None),)
            if path.name == PROMPT_FILE
            else _case_file(path) or ()
        )
    elif (path / PROMPT_FILE).is_file():
        cases = (_eval_folder(path, None),)
    else:
        found: list[BehaviorCase] = []
        for case_file in sorted(p for p in path.glob("*.json") if p.is_file()):
            read = _case_file(case_file, beside=True)
            if read is None:
                skipped.append(case_file.name)
            elif not read:
                trigger.append(str(case_file))
            found += read or ()
        found += [
            _eval_folder(folder, folder.parent.name if folder.parent != path else None)
            for folder in _eval_folders(path)
        ]
        cases = tuple(found)
    if not cases:
        raise InputError(f"{path}: no behavior cases{_why_none(path, trigger)}")
    _check_unique(cases)
    return BehaviorSuite(str(path), cases, tuple(skipped))


def _why_none(path: Path, trigger: Sequence[str]) -> str:
    """Why a suite path holds no behavior case, in the words that fit what it holds: the
    trigger cases files `--cases` reads, Claude Code's plugin-eval cases, or neither."""
    from activation.inputs.plugin_eval import why_none

    if trigger:
        many = len(trigger) > 1
        return (
            f": {', '.join(trigger)} {'are' if many else 'is an'} activation cases "
            f"file{'s' if many else ''}, not behavior cases (pass {'them' if many else 'it'} "
            "to --cases)"
        )
    return why_none(path) or f" (expected *.json case files or folders with a {PROMPT_FILE})"


def skipped_warning(suite: Path, skipped: tuple[str, ...]) -> list[str]:
    """The suite folder's files that hold no cases, in one line: named, never a refusal."""
    if not skipped:
        return []
    return [f"{suite}: not read (no behavior or trigger cases in them): {', '.join(skipped)}"]


def _case_file(path: Path, beside: bool = False) -> tuple[BehaviorCase, ...] | None:
    """A seeds' case file, or the `evals` of a per-skill JSON file (skill-creator's
    `evals.json`), whose input files are read from the skill's folder (else the file's).
    `beside`: the file was found in a suite's folder, where a trigger cases file (one
    `--cases` reads, or one named as skill-creator names its trigger eval set, whatever it
    holds) is left for `--cases`, which says what is wrong with it; a file there of no
    format (a JSON schema, a results file) is None, for the run to name and skip."""
    document = read_document(path, "case file")
    if "slug" in _keys(document.data):
        return parse_case_file(document.data, str(path))
    if not has_evals(document):
        if beside and is_cases_file(path.name):
            return ()
        try:
            detect(document)
        except InputError as error:
            if beside:
                return None
            nearest = str(error).removeprefix(f"{path}: ")
            raise InputError(f"{path}: {NEITHER}, {nearest}") from None
        if beside:
            return ()
        raise InputError(f"{path}: trigger cases, not behavior cases: pass it to --cases")
    roots = _input_roots(path, document.folder_skill)
    where = f"{path}: its evals' files"
    files: dict[str, bytes] = {}
    for name in eval_files(document):
        relative = scaffold_path(name, where)
        root = next((root for root in roots if (root / relative).exists()), roots[0])
        files.update(_input_files(root / relative, relative))
    return behavior_cases(document, files)


def _input_roots(path: Path, skill: str | None) -> list[Path]:
    """Where skill-creator's `files` may be relative to, best first: the skill's folder, the
    folder holding `evals/` (a plugin's root, with the skill below in `skills/`), the file's
    own folder."""
    folders = [path.parent.parent, path.parent]
    own = [folder for folder in folders if skill and folder.resolve().name == skill]
    beside = [path.parent.parent] if path.parent.name == EVALS_FOLDER else []
    return list(dict.fromkeys([*own, *beside, path.parent]))


def _input_files(path: Path, relative: str) -> dict[str, bytes]:
    """An eval's input file by its relative path, or every file under a folder it names."""
    if not path.is_dir():
        return {relative: read_bytes(path, "eval input file")}
    return {
        f"{relative}/{inner.relative_to(path).as_posix()}": read_bytes(inner, "eval input file")
        for inner in sorted(path.rglob("*"))
        if inner.is_file()
    }


def _keys(data: object) -> tuple[object, ...]:
    return tuple(data) if isinstance(data, dict) else ()


def _eval_folders(root: Path) -> list[Path]:
    folders: list[Path] = []
    for folder, subfolders, names in os.walk(root):
        if PROMPT_FILE in names:
            folders.append(Path(folder))
            subfolders.clear()
            continue
        subfolders[:] = sorted(
            name for name in subfolders if name not in _NOT_SEARCHED and not name.startswith(".")
        )
    return sorted(folders)


def _eval_folder(folder: Path, category: str | None) -> BehaviorCase:
    prompt = read_text(folder / PROMPT_FILE, "PROMPT.md")
    graders = {
        name: read_bytes(folder / name, "graders file")
        for name in (*GRADERS_FILES, GRADERS_TS)
        if (folder / name).is_file()
    }
    return parse_eval_folder(
        prompt, graders, _scaffold(folder / SCAFFOLD_DIR), str(folder), category
    )


def _scaffold(folder: Path) -> tuple[ScaffoldFile, ...]:
    """The scaffold's files as bytes (a scaffold may hold images), by relative POSIX path."""
    if not folder.is_dir():
        return ()
    return tuple(
        (path.relative_to(folder).as_posix(), read_bytes(path, "scaffold file"))
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    )


def _check_unique(cases: tuple[BehaviorCase, ...]) -> None:
    first: dict[str, BehaviorCase] = {}
    for case in cases:
        seen = first.setdefault(case.id, case)
        if seen is not case:
            raise InputError(
                f"duplicate behavior case id {case.id!r} in {seen.source} and {case.source}"
            )


def load_behavior_inputs(
    cwd: Path,
    loaded: BehaviorSuite,
    *,
    repo: Path | None = None,
    skill_path: str | None = None,
    baseline: str | None = None,
    candidate: str | None = None,
    only: tuple[str, ...] | None = None,
    catalog: Path | None = None,
    alone: bool = False,
) -> BehaviorRunInputs:
    """Everything a Stage C run needs: the `loaded` suite's graded cases (`only`: those
    ids), the skill they are about (its `skills`/`origin_skill` picks it from a repo of
    several), and the whole set at each spec, body and references, as its `Variant.tree`.
    `alone`: the candidate on both sides (an A/A run; no baseline is read)."""
    from activation.inputs.installed import with_tree

    suite = Path(loaded.source)
    graded = loaded.graded
    if not graded:
        raise InputError(f"{suite}: every case is manual (no graders): nothing to run")
    if only is not None:
        known = {case.id for case in graded}
        unknown = [id for id in only if id not in known]
        if unknown:
            raise InputError(
                f"--only: no graded case {', '.join(unknown)} in {suite} "
                f"(it has {', '.join(sorted(known))})"
            )
        graded = tuple(case for case in graded if case.id in only)
    about = next(
        (skill for case in graded for skill in (*case.skills, case.origin_skill) if skill), None
    )
    target = resolve_target(repo, skill_path, cwd, about)
    second = with_tree(
        resolve_variant(candidate or working_tree_spec(target), target, cwd), target, suite
    )
    first = (
        second
        if alone
        else with_tree(resolve_variant(baseline or BASELINE, target, cwd), target, suite)
    )
    return BehaviorRunInputs(
        target,
        graded,
        (),
        first,
        second,
        catalog=load_catalog(catalog) if catalog is not None else (),
        working_text=read_text(target.skill_file, "SKILL.md")
        if target.skill_file.is_file()
        else None,
    )
