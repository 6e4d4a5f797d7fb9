"""What the text graders share: finding a value or a pattern in the workspace's files, and
saying where (file and line) or that it is nowhere."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

from activation.graders.base import Checked, Files

CONFIG_SUFFIXES = (
    ".json",
    ".plist",
    ".toml",
    ".yaml",
    ".yml",
    ".ini",
    ".cfg",
    ".conf",
    ".xml",
    ".properties",
)
"""`not_contains_in_source` skips files with these suffixes, `.env*` files, `*.config.*`
files (next.config.js, vite.config.ts) and `.*rc` files (.npmrc, .babelrc): configuration,
where a client id or a domain belongs."""
REGEX_FLAGS: dict[str, re.RegexFlag] = {
    "i": re.IGNORECASE,
    "m": re.MULTILINE,
    "s": re.DOTALL,
    "x": re.VERBOSE,
    "u": re.NOFLAG,
    "g": re.NOFLAG,
}
"""The flags a pattern may carry, JavaScript's letters (the seeds' graders are JavaScript):
`m` is always on, `i` is on unless the grader is case-sensitive, `u` and `g` change nothing
here; `x` is Python's verbose mode."""


def presence(
    values: Sequence[str], files: Files, case_sensitive: bool, negative: bool, kind: str = ""
) -> Checked:
    """Whether some file holds one of `values` (passes, or fails when `negative`); `kind`
    names the files looked at ("source ")."""
    for value in values:
        found = _find(value, files, case_sensitive)
        if found is not None:
            where = f"{value!r} found in {found[0]}:{found[1]}"
            return ("failed" if negative else "passed"), where
    if len(values) == 1:
        absent = f"{values[0]!r} is in {none_of(len(files), kind)}"
    else:
        absent = f"none of {', '.join(map(repr, values))} is in {_any_of(len(files), kind)}"
    return ("passed" if negative else "failed"), absent


def _find(value: str, files: Files, case_sensitive: bool) -> tuple[str, int] | None:
    needle = value if case_sensitive else value.lower()
    for path, text in files:
        hay = text if case_sensitive else text.lower()
        at = hay.find(needle)
        if at >= 0:
            return path, hay.count("\n", 0, at) + 1
    return None


def compiled(pattern: str, flags: str, case_sensitive: bool) -> re.Pattern[str]:
    """The pattern, multiline, ignoring case unless `case_sensitive` (as the seeds' graders
    do), with its `flags` letters; raises re.error for one that does not compile."""
    on = re.MULTILINE if case_sensitive else re.MULTILINE | re.IGNORECASE
    for letter in flags:
        on |= REGEX_FLAGS[letter]
    return re.compile(pattern, on)


def regex_problems(pattern: str, flags: str, case_sensitive: bool) -> tuple[str, ...]:
    if set(flags) - set(REGEX_FLAGS):
        return (f"'flags' must be letters of {''.join(REGEX_FLAGS)!r}, got {flags!r}",)
    try:
        compiled(pattern, flags, case_sensitive)
    except re.error as error:
        return (f"the pattern {pattern!r} is not a valid regular expression ({error})",)
    return ()


def matching(regex: re.Pattern[str], files: Files, negative: bool) -> Checked:
    """Whether the regex matches in some file (each searched on its own)."""
    for path, text in files:
        match = regex.search(text)
        if match is not None:
            line = text.count("\n", 0, match.start()) + 1
            return ("failed" if negative else "passed"), (
                f"/{regex.pattern}/ matched in {path}:{line}"
            )
    return ("passed" if negative else "failed"), f"/{regex.pattern}/ matches {none_of(len(files))}"


def is_source(path: str) -> bool:
    """Whether `not_contains_in_source` looks at this file (see `CONFIG_SUFFIXES`)."""
    name = posixpath.basename(path).lower()
    if name.startswith(".env") or name.endswith(CONFIG_SUFFIXES) or ".config." in name:
        return False
    return not (name.startswith(".") and name.endswith("rc"))


def glob_matches(pattern: str, path: str) -> bool:
    """Whether a relative POSIX path matches a glob: one without `/` matches file names in
    any folder; one with `/` the whole relative path, `*` crossing folders, and `**/` also
    matching no folder at all."""
    pattern = pattern.removeprefix("./")
    if "/" not in pattern:
        return fnmatchcase(posixpath.basename(path), pattern)
    tries = {pattern, pattern.replace("/**/", "/"), pattern.removeprefix("**/")}
    return any(fnmatchcase(path, each) for each in tries)


def none_of(count: int, kind: str = "") -> str:
    return f"no {kind}file (there is none)" if count == 0 else f"none of {_files(count, kind)}"


def _any_of(count: int, kind: str = "") -> str:
    return f"no {kind}file (there is none)" if count == 0 else f"any of {_files(count, kind)}"


def _files(count: int, kind: str) -> str:
    return f"{count} {kind}file{'s' if count > 1 else ''}"
