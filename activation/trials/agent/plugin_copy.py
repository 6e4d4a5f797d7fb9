"""Paired temporary plugin copies that differ only in the skill's `description`.

Stage B measures the real agent, which reads the plugin from disk, so each variant needs a
plugin of its own. Both copies start from the same files (the working tree's plugin) and only
the description value is rewritten, so any difference in activation is the description's.

The rewrite goes through the YAML library, never string surgery: descriptions contain
colons, `#`, quotes, line breaks and leading `>` that a hand-made line would break. The
frontmatter mapping is loaded, its `description` replaced, and dumped again with key order
kept and a width so wide that a one-line description stays on one line; the body after the
closing `---` line is kept byte for byte. Every copy is then read back with the same parser
the rest of the tool uses and must yield exactly the intended description and the same other
keys, before any run starts: a copy that does not say what we think it says would make every
Stage B figure meaningless.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import yaml

from activation._errors import InputError
from activation._models import VARIANTS, Target, VariantName
from activation.inputs.frontmatter import split_document

TEMP_PREFIX = "activation-"
"""Prefix of the temporary folders (copies and run dirs), so leftovers are recognisable."""

_IGNORED = shutil.ignore_patterns(".git")
_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_WIDE = 2**31 - 1


class _DescriptionDumper(yaml.SafeDumper):
    """A safe dumper that writes a multi-line description as one double-quoted line.

    PyYAML would otherwise pick a single-quoted scalar folded over several lines, which is
    valid YAML but easy for a less complete frontmatter parser (the agent's) to misread.
    """


class _Description(str):
    __slots__ = ()


def _represent_description(dumper: yaml.SafeDumper, data: _Description) -> yaml.ScalarNode:
    multi_line = any(mark in data for mark in ("\n", "\r", "\x85", "\u2028", "\u2029"))
    return dumper.represent_scalar(
        "tag:yaml.org,2002:str", str(data), style='"' if multi_line else None
    )


_DescriptionDumper.add_representer(_Description, _represent_description)


def render_frontmatter(frontmatter: Mapping[str, Any], description: str) -> str:
    """The frontmatter YAML (without the `---` lines) with `description` replaced."""
    data = dict(frontmatter)
    data["description"] = _Description(description)
    return yaml.dump(
        data,
        Dumper=_DescriptionDumper,
        sort_keys=False,
        allow_unicode=True,
        width=_WIDE,
        default_flow_style=False,
    )


def rewrite_description(text: str, description: str, source: str) -> str:
    """The SKILL.md `text` with only its description replaced.

    The opening line, the closing `---` line and everything after it are kept exactly,
    including a BOM and CRLF line ends (the rewritten frontmatter uses the file's line end).
    """
    document = split_document(text, source)  # validates the frontmatter first
    bom = "\ufeff" if text.startswith("\ufeff") else ""
    lines: list[str] = _LINE.findall(text.removeprefix("\ufeff"))
    closing = next(
        i for i in range(1, len(lines)) if lines[i].rstrip("\r\n").rstrip() in ("---", "...")
    )
    newline = "\r\n" if lines[0].endswith("\r\n") else "\n"
    rendered = render_frontmatter(document.frontmatter, description)
    if newline != "\n":
        rendered = rendered.replace("\n", newline)
    return bom + lines[0] + rendered + "".join(lines[closing:])


def verify_copy(skill_file: Path, original: Mapping[str, Any], description: str) -> None:
    """Read a rewritten SKILL.md back; raise unless it says exactly what was intended."""
    document = split_document(skill_file.read_text(encoding="utf-8"), str(skill_file))
    if document.frontmatter.get("description") != description:
        raise InputError(
            f"{skill_file}: the rewritten description does not read back as intended "
            f"(got {document.frontmatter.get('description')!r})"
        )
    expected = {**original, "description": description}
    if document.frontmatter != expected:
        changed = sorted(
            key
            for key in expected.keys() | document.frontmatter.keys()
            if expected.get(key) != document.frontmatter.get(key)
        )
        raise InputError(f"{skill_file}: rewriting the description changed {changed}")


def make_plugin_copy(
    target: Target, description: str, dest_parent: Path, skill_text: str | None = None
) -> Path:
    """Copy the plugin root into `dest_parent` with the skill's description replaced.

    Returns the copy's root, which keeps the plugin folder's name (the agent falls back to it
    for the plugin name, so the skill id stays the same). The skill file sits at the same
    path relative to the root as in the original. `skill_text` is the SKILL.md to start from
    (default: the working-tree file). Symlinks are copied as the files they point to, so
    writing the copy can never write through a link into the user's repo; `.git` is skipped.
    """
    if skill_text is None:
        try:
            # Bytes, not read_text: universal newlines would turn CRLF into LF, and the
            # body must stay byte-identical.
            skill_text = target.skill_file.read_bytes().decode("utf-8")
        except OSError as error:
            raise InputError(
                f"{target.skill_file}: cannot read the working-tree SKILL.md to build the "
                f"plugin copies ({error.strerror})"
            ) from None
        except UnicodeDecodeError:
            raise InputError(f"{target.skill_file}: the SKILL.md is not UTF-8 text") from None
    if not target.plugin_root.is_dir():
        raise InputError(f"{target.plugin_root}: the plugin folder does not exist")
    original = split_document(skill_text, str(target.skill_file)).frontmatter
    rewritten = rewrite_description(skill_text, description, str(target.skill_file))

    copy_root = dest_parent / target.plugin_root.name
    shutil.copytree(
        target.plugin_root,
        copy_root,
        ignore=_IGNORED,
        symlinks=False,
        ignore_dangling_symlinks=True,
    )
    skill_file = copy_root / target.skill_file.relative_to(target.plugin_root)
    if not skill_file.resolve().is_relative_to(copy_root.resolve()):
        raise InputError(f"{skill_file}: the copied SKILL.md resolves outside the copy")
    skill_file.parent.mkdir(parents=True, exist_ok=True)
    skill_file.unlink(missing_ok=True)
    skill_file.write_bytes(rewritten.encode("utf-8"))
    verify_copy(skill_file, original, description)
    return copy_root


@contextmanager
def paired_copies(
    target: Target,
    baseline_description: str,
    candidate_description: str,
    skill_text: str | None = None,
) -> Iterator[dict[VariantName, Path]]:
    """Both variants' plugin copies under one fresh temp folder, removed on any exit.

    The folder goes on normal exit, on an exception, and on cancellation (a cancelled task
    unwinds through `finally` too), so an interrupted run leaves nothing behind.
    """
    parent = Path(tempfile.mkdtemp(prefix=TEMP_PREFIX))
    try:
        copies: dict[VariantName, Path] = {}
        for variant, description in zip(
            VARIANTS, (baseline_description, candidate_description), strict=True
        ):
            folder = parent / variant
            folder.mkdir()
            copies[variant] = make_plugin_copy(target, description, folder, skill_text)
        yield copies
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def tree_digest(folder: Path) -> str:
    """A digest of a plugin copy's content (paths and bytes, not where the copy lives), so a
    cached Stage B answer is reused only for exactly the same plugin."""
    digest = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            digest.update(path.relative_to(folder).as_posix().encode() + b"\x00")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()
