"""MkDocs hook: the reference pages are made at build time from the code, so they cannot drift.

`reference/cli.md` is rendered from the flag tables of `activation.commands.flags` (the very
tables the parsers, `--help` and the settings file are built from), `reference/report.md`
from the JSON Schema the package ships (`activation schema`), `reference/documents.md` from
every document's shipped schema, and `reference/layers.md` from the import-linter contracts
in pyproject.toml; the grader table of `behavior.md` from the grader registry
(`activation.graders.REGISTRY`). Nothing generated is committed: each build renders them
again, and `tests/test_docs.py` checks what they hold.
"""

from __future__ import annotations

import dataclasses
import json
import tomllib
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from activation import _config
from activation.commands.flags import COMMANDS, Command, Flag, show
from activation.graders import REGISTRY
from activation.graders.base import Grader
from activation.report.schemas import DOCUMENTS, Document, shipped_schema

REPO = Path(__file__).resolve().parents[1]
GENERATED = "<!-- generated at build time by docs/hooks.py: edit the code, not this page -->"
MARKDOWN_SPECIALS = str.maketrans({"<": "&lt;", ">": "&gt;", "|": "\\|", "*": "\\*", "[": "\\["})


def text(value: str) -> str:
    """Plain text for a Markdown table cell or paragraph (backticks stay code spans)."""
    return " ".join(value.split()).translate(MARKDOWN_SPECIALS)


def code(value: str) -> str:
    """A code span for a table cell (a pipe must be escaped even inside one)."""
    return "`" + value.replace("|", "\\|") + "`"


def default_of(flag: Flag) -> str:
    """The default as `--help` shows it, or a dash when there is none."""
    if flag.optional_value:
        return f"{code(show(flag.const))} when given alone"
    if flag.action == "store_true":
        return "off"
    value = flag.default if flag.shown is None else flag.shown
    return "" if value is None else text(show(value))


def flag_row(flag: Flag, settings: bool) -> str:
    """One table row: the flag and its value, what it does, its default, its settings key."""
    if flag.positional:
        shown = flag.metavar or flag.name
        shown += " ..." if flag.nargs == "+" else ""
    elif flag.choices:
        shown = f"{flag.name} {{{','.join(flag.choices)}}}"
    elif flag.optional_value:
        shown = f"{flag.name} [{flag.metavar}]"
    else:
        shown = f"{flag.name} {flag.metavar or ''}".rstrip()
    cells = [code(shown), text(flag.help), default_of(flag)]
    if settings:
        key = "" if flag.positional else f"{code(flag.key)}, {code(env_name(flag))}"
        cells.append(key)
    return "| " + " | ".join(cells) + " |"


def env_name(flag: Flag) -> str:
    return _config.ENV_PREFIX + flag.key.upper().replace("-", "_")


def command_lines(name: str, command: Command, level: int = 2) -> Iterator[str]:
    """A command's section: what it does, then a table per help group, as `--help` files them."""
    yield f"{'#' * level} `{command.prog}`"
    yield ""
    yield text(command.description)
    yield ""
    header = "| flag | what it does | default |"
    rule = "|---|---|---|"
    if command.settings:
        header += " settings key, variable |"
        rule += "---|"
    groups: dict[str | None, list[Flag]] = {}
    seen: set[str] = set()
    for title, flags in command.sections:
        for flag in flags:
            if flag.name not in seen:
                seen.add(flag.name)
                groups.setdefault(title, []).append(flag)
    for title, flags in groups.items():
        yield f"**{text(title or 'general')}**"
        yield ""
        yield header
        yield rule
        yield from (flag_row(flag, command.settings) for flag in flags)
        yield ""
    if command.epilog:
        yield text(command.epilog)
        yield ""
    for action_name, action in command.actions.items():
        yield from command_lines(f"{name} {action_name}", action, level + 1)


def cli_reference(commands: Mapping[str, Command] = COMMANDS) -> str:
    """The CLI reference page, from the flag tables."""
    lines = [
        GENERATED,
        "# Command-line reference",
        "",
        "Every command and flag, rendered from `activation/commands/flags.py` when the docs are "
        "built. Every command also takes `-V`/`--version` and `-h`/`--help`. For the commands "
        f"with a settings column, each flag can be kept in `{_config.CONFIG_FILE}` or in "
        f"`[tool.activation]` of `{_config.PYPROJECT}` under its key, or set in the "
        "environment under its variable (see [Settings](../configuration.md)).",
        "",
    ]
    for name, command in commands.items():
        lines.extend(command_lines(name, command))
    return "\n".join(lines) + "\n"


def type_of(node: Mapping[str, Any]) -> str:
    """A schema node's type in a few words, with links to the definitions it names."""
    if "$ref" in node:
        target = str(node["$ref"]).rsplit("/", 1)[-1]
        return f"[{target}](#{target.lower()})"
    if "const" in node:
        return code(json.dumps(node["const"]))
    if "enum" in node:
        return "one of " + ", ".join(code(json.dumps(each)) for each in node["enum"])
    if "anyOf" in node:
        return " or ".join(type_of(each) for each in node["anyOf"])
    kind = node.get("type", "any")
    if kind == "array" and "prefixItems" in node:
        return "[" + ", ".join(type_of(each) for each in node["prefixItems"]) + "]"
    if kind == "array":
        return f"array of {type_of(node.get('items', {}))}"
    if kind == "object" and "additionalProperties" in node:
        return f"object of {type_of(node['additionalProperties'])}"
    return str(kind)


def object_lines(title: str, node: Mapping[str, Any]) -> Iterator[str]:
    """One definition: its description, then a row per field."""
    yield f"### {title}"
    yield ""
    if "description" in node:
        yield text(str(node["description"]))
        yield ""
    if "properties" not in node:
        yield f"Type: {type_of(node)}."
        yield ""
        return
    required = set(node.get("required", ()))
    yield "| field | type | required | default |"
    yield "|---|---|---|---|"
    for field, spec in node["properties"].items():
        default = code(json.dumps(spec["default"])) if "default" in spec else ""
        needed = "yes" if field in required else ""
        yield f"| {code(field)} | {type_of(spec)} | {needed} | {default} |"
    yield ""


def report_reference(schema: Mapping[str, Any] | None = None) -> str:
    """The report reference page, from the JSON Schema."""
    schema = json.loads(shipped_schema("run")) if schema is None else schema
    lines = [
        GENERATED,
        "# Report reference",
        "",
        "The JSON a run writes with `--json`, rendered from the JSON Schema the package ships "
        "(`activation schema` prints it; it is generated from the report's own types). "
        "A file is one of:",
        "",
    ]
    stopped: list[tuple[str, Mapping[str, Any]]] = []
    for each in schema["anyOf"]:
        if "$ref" in each:
            lines.append(f"- {type_of(each)}")
        else:
            lines.append(f"- [{each['title']}](#{str(each['title']).lower()})")
            stopped.append((str(each["title"]), each))
    lines += ["", "## Definitions", ""]
    for title, node in [*stopped, *sorted(schema["$defs"].items())]:
        lines.extend(object_lines(title, node))
    return "\n".join(lines) + "\n"


def documents_reference(documents: Mapping[str, Document] = DOCUMENTS) -> str:
    """The page of every JSON document the tool writes, from the shipped schemas: a row per
    kind, then each kind's records (a run's are on the report page, linked there)."""
    schemas = {kind: json.loads(shipped_schema(kind)) for kind in documents}
    on_report_page = set(schemas["run"]["$defs"])
    lines = [
        GENERATED,
        "# JSON documents",
        "",
        "Every JSON document activation writes is a typed record with a JSON Schema generated "
        "from its own types and shipped with the package: `activation schema KIND` prints it "
        "(`activation schema --list` names the kinds). Where the table says so, a command "
        "that stops before it has a result writes only `schema`, `version`, `exit_code` and "
        "`error` in its place.",
        "",
        "| kind | schema | written by | stop record | prints its schema |",
        "|---|---|---|---|---|",
    ]
    for kind, document in documents.items():
        ids = ", ".join(code(each) for each in document.ids)
        stop = "yes" if document.stopped else ""
        lines.append(f"| [{kind}](#kind-{kind}) | {ids} | {document.writes} | {stop} | "
                     f"`activation schema {kind}` |")  # fmt: skip
    definitions: dict[str, Mapping[str, Any]] = {}
    for kind, schema in schemas.items():
        shapes = [type_of(each) for each in schema["anyOf"] if "$ref" in each]
        where = "the [report reference](report.md)" if kind == "run" else " or ".join(shapes)
        lines += ["", f"## Kind: {kind}", "", f"{schema['title']}: {where}."]
        for name, node in schema["$defs"].items():
            if name not in on_report_page:
                definitions.setdefault(name, node)
    lines += ["", "## Definitions", ""]
    for title, node in sorted(definitions.items()):
        lines.extend(object_lines(title, node))
    page = "\n".join(lines) + "\n"
    for name in on_report_page - set(definitions):
        page = page.replace(f"](#{name.lower()})", f"](report.md#{name.lower()})")
    return page


def layers_reference(pyproject: Path = REPO / "pyproject.toml") -> str:
    """The import rules page, from the import-linter contracts CI checks."""
    settings = tomllib.loads(pyproject.read_text())["tool"]["importlinter"]
    lines = [
        GENERATED,
        "# Import rules",
        "",
        "The contracts `lint-imports` checks in CI, read from `pyproject.toml` when the docs "
        "are built.",
        "",
    ]
    for contract in settings["contracts"]:
        lines += [f"## {text(contract['name'])}", ""]
        if contract["type"] == "layers":
            lines.append("Each layer may import the layers below it, never those above:")
            lines.append("")
            lines.extend(f"1. {code(layer)}" for layer in contract["layers"])
        else:
            sources = ", ".join(code(each) for each in contract["source_modules"])
            banned = ", ".join(code(each) for each in contract["forbidden_modules"])
            lines.append(f"{sources} never import {banned}.")
        lines.append("")
    return "\n".join(lines) + "\n"


PAGES: dict[str, Callable[[], str]] = {
    "reference/cli.md": cli_reference,
    "reference/report.md": report_reference,
    "reference/documents.md": documents_reference,
    "reference/layers.md": layers_reference,
}


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages to the build."""
    for path, render in PAGES.items():
        files.append(File.generated(config, path, content=render()))
    return files


GRADER_TABLE = "<!-- grader table: generated at build time by docs/hooks.py from the registry -->"
COMMON_KEYS = ("description", "level", "follows")
"""The keys every grader takes, said once above the table."""


def grader_table(registry: Mapping[str, type[Grader]] = REGISTRY) -> str:
    """The behavior page's grader table: a row per registered type, its own keys (required
    first, optional ones marked) and when it passes."""
    lines = ["| type | keys | passes when |", "|---|---|---|"]
    for name, kind in registry.items():
        fields = [field for field in dataclasses.fields(kind) if field.name not in COMMON_KEYS]
        required = [code(f.name) for f in fields if f.default is dataclasses.MISSING]
        optional = [f"{code(f.name)} (optional)" for f in fields
                    if f.default is not dataclasses.MISSING]  # fmt: skip
        keys = ", ".join(required + optional)
        passes = " ".join(kind.passes.split()).replace("|", "\\|")
        lines.append(f"| {code(name)} | {keys} | {passes} |")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    """Fill the grader table in where a page asks for it."""
    return markdown.replace(GRADER_TABLE, grader_table())
