"""Write a new description into a SKILL.md as its author would: only the value changes.

`suggest` hands back a diff to review, so the edit must be the description and nothing
else: other keys, comments, key order, the body, CRLF line endings and a BOM stay byte for
byte, and the value keeps its YAML style (plain, quoted, folded, literal). The value is
found by PyYAML's composer (the node's start and end marks), never by a regex, and the
result is read back with `split_document` before it is returned.

A style that cannot carry the text falls back to double quotes, which carry anything:
plain text that YAML would read otherwise (`: `, ` #`, a leading indicator, a number, a
line break), single quotes over several lines, and block scalars whose text starts with a
space, ends with a line break, or holds a character YAML counts as a line break.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import yaml

from activation._errors import InputError
from activation._yaml import load_yaml
from activation.inputs.frontmatter import SkillDocument, split_document

_BREAK = re.compile(r"\r\n|\r|\n")
_YAML_BREAKS = frozenset("\r\n\x85\u2028\u2029")
"""Characters YAML 1.1 reads as a line break."""
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\0": "\\0"}
_BLOCK_HEADER = re.compile(r"[|>]([-+0-9]*)")


def _printable(char: str) -> bool:
    """Whether YAML allows the character as it is in a stream (PyYAML's reader's rule)."""
    code = ord(char)
    return (
        char in "\t\n\r"
        or 0x20 <= code <= 0x7E
        or code == 0x85
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or code >= 0x10000
    )


@dataclass(frozen=True)
class _Located:
    """Where the description's value sits in the text, and how it is written."""

    start: int
    end: int
    style: str | None
    """PyYAML's scalar style: None (plain), `'`, `"`, `|` or `>`."""
    original: str
    """The value's text as written, from its first character to its end mark."""
    key_column: int
    newline: str


def _frontmatter_span(text: str, source: str) -> tuple[int, int]:
    """The frontmatter's offsets in the raw text: after the opening `---` line, up to the
    closing line (so its last line keeps its line break, as `split_document` parses it)."""
    start = 1 if text.startswith("\ufeff") else 0
    breaks = list(_BREAK.finditer(text, start))
    line_starts = [start, *(match.end() for match in breaks)]
    for number, line_start in enumerate(line_starts[1:], 1):
        line_end = breaks[number].start() if number < len(breaks) else len(text)
        if text[line_start:line_end].rstrip() in ("---", "..."):
            return line_starts[1], line_start
    raise InputError(f"{source}: the YAML frontmatter is not closed by a '---' line")


def _locate(text: str, source: str) -> _Located:
    begin, stop = _frontmatter_span(text, source)
    frontmatter = text[begin:stop]
    try:
        root = yaml.compose(frontmatter, Loader=yaml.SafeLoader)
    except yaml.YAMLError as error:
        first_line = str(error).splitlines()[0]
        raise InputError(f"{source}: the frontmatter is not valid YAML ({first_line})") from None
    pairs = root.value if isinstance(root, yaml.MappingNode) else []
    found = [
        (key, value)
        for key, value in pairs
        if isinstance(key, yaml.ScalarNode) and key.value == "description"
    ]
    if not found or not isinstance(found[-1][1], yaml.ScalarNode):
        raise InputError(f"{source}: the frontmatter's 'description' is not a YAML scalar")
    key, value = found[-1]  # the loader keeps the last of repeated keys
    start, end = value.start_mark.index, value.end_mark.index
    after = _BREAK.search(frontmatter, start)
    return _Located(
        begin + start,
        begin + end,
        value.style,
        frontmatter[start:end],
        key.start_mark.column,
        after.group() if after else "\n",
    )


def _double_quoted(new: str) -> str:
    out = []
    for char in new:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif _printable(char) and char not in _YAML_BREAKS and char != "\ufeff":
            out.append(char)
        elif ord(char) <= 0xFF:
            out.append(f"\\x{ord(char):02x}")
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def _one_line(new: str) -> bool:
    return all(_printable(char) and char not in _YAML_BREAKS for char in new)


def _plain(new: str) -> str | None:
    """The text as a plain scalar, when YAML reads it back as exactly this string."""
    if not _one_line(new) or new != new.strip() or "\t" in new or new[0] in _INDICATORS:
        return None
    if ": " in new or " #" in new or new.endswith(":"):
        return None
    try:
        read = load_yaml(f"k: {new}\n")
    except yaml.YAMLError:
        return None
    return new if read == {"k": new} else None


def _single_quoted(new: str) -> str | None:
    return "'" + new.replace("'", "''") + "'" if _one_line(new) else None


def _block(new: str, located: _Located) -> str | None:
    """A literal or folded block in the original's header (indicator, chomping, indentation
    indicator, comment) and indentation, one line per line (literal) or paragraph (folded)."""
    text = new.replace("\n", "")
    if not _one_line(text) or new.endswith("\n") or "\r" in new:
        return None
    original = located.original
    header_end = _BREAK.search(original)
    if header_end is None:
        return None
    header = original[: header_end.end()]
    indicator = _BLOCK_HEADER.match(header)
    digits = "".join(ch for ch in (indicator.group(1) if indicator else "") if ch.isdigit())
    lines = original[header_end.end() :].split(located.newline)
    content = [line for line in lines if line.strip()]
    if digits:
        indent = located.key_column + int(digits)
    elif content:
        indent = len(content[0]) - len(content[0].lstrip(" "))
    else:
        indent = located.key_column + 2
    first = next((line for line in new.split("\n") if line), "")
    if not digits and first[:1] in (" ", "\t"):
        return None
    if located.style == ">":
        if any(line[:1] in (" ", "\t") for line in new.split("\n")):
            return None
        # A run of k line breaks is k empty lines: a lone break between lines folds to a space.
        body = re.sub(r"\n+", lambda run: "\n" * (len(run.group()) + 1), new).split("\n")
    else:
        body = new.split("\n")
    trailing = _trailing_blank_lines(original[header_end.end() :], located.newline)
    written = [" " * indent + line if line else "" for line in body]
    return header + located.newline.join(written) + located.newline + trailing


def _trailing_blank_lines(content: str, newline: str) -> str:
    """The blank lines a block's end mark takes in after its last content line: kept as
    they are, they belong to the layout (or, with `+` chomping, to the value)."""
    lines = content.split(newline)
    last = max((i for i, line in enumerate(lines) if line.strip()), default=-1)
    return newline.join(lines[last + 1 :])


def _renderings(new: str, located: _Located) -> Iterator[tuple[str, str | None]]:
    """The value written in its own style when that style can carry the text, then in
    double quotes; each with the style it is in."""
    style = located.style
    own: str | None = None
    if style is None:
        own = _plain(new)
    elif style == "'":
        own = _single_quoted(new)
    elif style in ("|", ">"):
        own = _block(new, located)
    if own is not None:
        yield own, style
    quoted = _double_quoted(new)
    if style in ("|", ">"):
        # The block's end mark takes in its last line break and blank lines: keep them, and
        # the header's comment.
        header_end = _BREAK.search(located.original)
        cut = header_end.start() if header_end else len(located.original)
        header = _BLOCK_HEADER.sub("", located.original[:cut], count=1)
        rest = located.original[header_end.end() :] if header_end else ""
        quoted += header + located.newline + _trailing_blank_lines(rest, located.newline)
    yield quoted, '"'


def _chomping(original: str) -> str:
    match = _BLOCK_HEADER.match(original)
    flags = match.group(1) if match else ""
    return "+" if "+" in flags else "-" if "-" in flags else ""


def _reads_back(
    result: str, new: str, style: str | None, original: str, before: SkillDocument, source: str
) -> bool:
    """Whether the result's description is exactly `new` (a block's final line break as its
    chomping says) and everything else of the frontmatter and body is as it was."""
    try:
        after = split_document(result, source)
    except InputError:
        return False
    value = after.frontmatter.get("description")
    if not isinstance(value, str):
        return False
    if style in ("|", ">"):
        chomping = _chomping(original)
        if chomping == "-":
            right = value == new
        elif chomping == "+":
            right = value.startswith(new + "\n") and not value[len(new) :].strip("\n")
        else:
            right = value == new + "\n"
    else:
        right = value == new

    def rest(document: SkillDocument) -> list[tuple[str, object]]:
        return [(k, v) for k, v in document.frontmatter.items() if k != "description"]

    return right and rest(after) == rest(before) and after.body == before.body


def replace_description(text: str, new: str, source: str) -> str:
    """The SKILL.md `text` with its description's value replaced by `new` and every other
    character as it was; InputError when `new` is blank or the result does not read back."""
    if not new.strip():
        raise InputError(f"{source}: the new description is empty")
    before = split_document(text, source)
    located = _locate(text, source)
    for rendered, style in _renderings(new, located):
        result = text[: located.start] + rendered + text[located.end :]
        if _reads_back(result, new, style, located.original, before, source):
            return result
    raise InputError(f"{source}: the new description could not be written into the frontmatter")
