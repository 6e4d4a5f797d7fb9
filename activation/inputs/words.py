"""The words a description and a prompt are compared by: lower-cased tokens, a plural `s`
stripped, and *content words*, the ones that are not common English or the generic
vocabulary of skill descriptions (use, app, add, fix, user, ...)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

_TOKEN = re.compile(r"[a-z0-9]+(?:[.'+#_-][a-z0-9]+)*")


def _normal(token: str) -> str:
    """A lower-cased token with a plural `s` stripped."""
    if len(token) > 3 and token.isalnum() and token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def words(text: str) -> list[str]:
    """Lower-cased word tokens with a plural `s` stripped (`tokens` and `token` match)."""
    return [_normal(token) for token in _TOKEN.findall(text.casefold())]


def spans(text: str) -> list[tuple[str, int, int]]:
    """Each of `words(text)` with where it stands in `text` (start, end), so a finding can
    quote the words as they were written, not as they are compared."""
    folded = text.casefold()
    if len(folded) != len(text):  # a character whose case-fold is longer: no offsets to trust
        return [(word, 0, len(text)) for word in words(text)]
    return [(_normal(m.group()), m.start(), m.end()) for m in _TOKEN.finditer(folded)]


STOP_WORDS: frozenset[str] = frozenset(
    words(
        """
        a about above after again against all also am an and any are as at be because been
        before being below between both but by can cannot could did do does doing don't down
        during each else etc even ever every few for from further get gets got had has have
        having he her here hers him his how i if in into is isn't it its itself just let like
        may me might more most much must my no nor not now of off on once only or other our
        ours out over own per same she should so some such than that the their them then there
        these they this those through to too under until up upon us very via was we were what
        when where whether which while who whom why will with within without would yet you
        your yours e.g i.e vs
        use uses used using usage whenever help helps helping developer developers user users
        app apps application applications add adds adding added fix fixes fixing fixed make
        makes making need needs want wants work works working build builds building set sets
        setting setup code project projects thing things way ways new existing kind kinds type
        types task tasks request requests support supports supporting including include
        includes feature features configure configures configuring configuration skill skills
        framework frameworks tool tools one two
        """
    )
)
"""Common English words plus the generic vocabulary of skill descriptions (use, app, add...).

Normalised like prompt words, so the plural-stripping rule applies to both sides alike.
"""


def is_content(word: str) -> bool:
    return word not in STOP_WORDS and (len(word) >= 3 or any(ch.isdigit() for ch in word))


@lru_cache(maxsize=4096)
def content_words(description: str) -> frozenset[str]:
    """The description's words that a paraphrasing prompt would not share by accident.
    Cached: the mock model compares every prompt with every description on the menu."""
    return frozenset(word for word in words(description) if is_content(word))


def named_lines(text: str, paths: Sequence[str]) -> list[tuple[str, int]]:
    """Each path of `paths` that `text` names, in any case and anywhere (prose, a code
    span, a link), as written there with the 1-based line of its first mention; a path in
    a folder is named by its whole path or, at the top, by its name."""
    found = []
    for path in paths:
        mention = re.compile(rf"(?<![\w./-]){re.escape(path)}(?![\w/-]|\.\w)", re.IGNORECASE)
        match = mention.search(text)
        if match is not None:
            found.append((match.group(), text.count("\n", 0, match.start()) + 1))
    return sorted(found, key=lambda item: item[1])
