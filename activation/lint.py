"""`activation lint`: static checks on a case matrix and a description, no model calls.

A green activation run means something only if the cases are sound: every label is justified,
no case is counted twice, every positive has a negative twin that shares its vocabulary (so a
description that merely matches words is caught), and no prompt parrots the description (which
tests string matching, not intent). These checks are cheap, so they run before any money is
spent.

Errors (exit 1): a case list of the wrong shape or a malformed case, duplicate ids, identical
prompts, a missing `why`, a `twin` that names no case or names a positive, a positive without a
twin, a description over 1,024 characters.

Warnings (printed, exit 0):

- near-duplicate prompts: `difflib.SequenceMatcher` ratio >= 0.9 on the normalised prompts
  (lower-cased, whitespace collapsed). A character-level ratio catches the copy-and-tweak
  duplicates (one word or a typo changed) that token overlap misses on short prompts.
- a prompt that echoes the description: words are lower-cased tokens (`next.js` and
  `asp.net` stay whole) with a plural `s` stripped from alphanumeric ones; a *content word* is
  one that is not in `STOP_WORDS` (common English plus the generic words of skill
  descriptions: use, app, add, fix, user, ...) and has at least three characters or a digit.
  The description's *distinctive words* are its content words. A prompt echoes the
  description when it shares a run of at least `ECHO_RUN` consecutive words with it that holds
  at least two content words (a copied phrase), or when at least `ECHO_MIN_WORDS` distinct
  distinctive words make up at least `ECHO_MIN_SHARE` of the prompt's content words (a prompt
  assembled from the description's vocabulary). A terse prompt naming one feature and one
  framework stays well clear of both, and so does a long one with pasted error text.
- a group (`keyword-loss`, `framework-loss`, `indirect`, `negative`) with no cases.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from pathlib import Path
from typing import Literal

from activation.arguments import OneLineParser
from activation.cases import Case, case_list, parse_cases, read_json
from activation.distractors import BUNDLED_CASES
from activation.errors import InputError
from activation.frontmatter import DESCRIPTION_LIMIT
from activation.target import resolve_target
from activation.variants import git_ref, read_path, resolve_variant, working_tree_spec

Level = Literal["error", "warning"]

GROUPS: tuple[str, ...] = ("keyword-loss", "framework-loss", "indirect", "negative")
"""The four groups a matrix needs: each catches a different way a description goes wrong."""

NEAR_DUPLICATE_RATIO = 0.9
ECHO_RUN = 4
ECHO_MIN_WORDS = 4
ECHO_MIN_SHARE = 0.6

_SOURCE = "cases"

_TOKEN = re.compile(r"[a-z0-9]+(?:[.'+#_-][a-z0-9]+)*")


def _words(text: str) -> list[str]:
    """Lower-cased word tokens with a plural `s` stripped (`tokens` and `token` match)."""
    words = []
    for token in _TOKEN.findall(text.casefold()):
        if len(token) > 3 and token.isalnum() and token.endswith("s") and not token.endswith("ss"):
            token = token[:-1]
        words.append(token)
    return words


STOP_WORDS: frozenset[str] = frozenset(
    _words(
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


@dataclass(frozen=True)
class Finding:
    """One problem; `case_id` is None when it concerns the file or the description."""

    level: Level
    case_id: str | None
    message: str


def _normalise(prompt: str) -> str:
    return " ".join(prompt.casefold().split())


def _is_content(word: str) -> bool:
    return word not in STOP_WORDS and (len(word) >= 3 or any(ch.isdigit() for ch in word))


def distinctive_words(description: str) -> frozenset[str]:
    """The description's words that a paraphrasing prompt would not share by accident."""
    return frozenset(word for word in _words(description) if _is_content(word))


def _longest_shared_run(prompt: list[str], description: list[str]) -> list[str]:
    match = SequenceMatcher(None, prompt, description, autojunk=False).find_longest_match(
        0, len(prompt), 0, len(description)
    )
    return prompt[match.a : match.a + match.size]


def echo(prompt: str, description: str) -> str | None:
    """Why the prompt echoes the description, or None; see the module docstring for the rule."""
    prompt_words = _words(prompt)
    description_words = _words(description)
    run = _longest_shared_run(prompt_words, description_words)
    if len(run) >= ECHO_RUN and sum(map(_is_content, run)) >= 2:
        return f"copies the phrase {' '.join(run)!r}"
    content = {word for word in prompt_words if _is_content(word)}
    shared = content & distinctive_words(description)
    if len(shared) >= ECHO_MIN_WORDS and len(shared) >= ECHO_MIN_SHARE * len(content):
        return f"is built from its words {', '.join(sorted(shared))}"
    return None


def lint(
    cases: Sequence[Case], description: str | None, groups: Sequence[str] = GROUPS
) -> tuple[Finding, ...]:
    """Every check on typed cases; `description` None skips the checks that need one.

    Errors come first, then warnings, each in file order.
    """
    findings: list[Finding] = []
    if description is not None and len(description) > DESCRIPTION_LIMIT:
        findings.append(
            Finding(
                "error",
                None,
                f"the description is {len(description):,} characters, over the agent's "
                f"{DESCRIPTION_LIMIT:,}-character limit",
            )
        )
    findings += _duplicate_ids(cases)
    findings += [
        Finding("error", case.id, "missing 'why': it is what makes the ground truth reviewable")
        for case in cases
        if not case.why.strip()
    ]
    findings += _identical_prompts(cases)
    findings += _twin_errors(cases)
    findings += _near_duplicates(cases)
    if description is not None:
        for case in cases:
            reason = echo(case.prompt, description)
            if reason:
                findings.append(
                    Finding(
                        "warning",
                        case.id,
                        f"the prompt echoes the description ({reason}): "
                        "that tests string matching, not intent",
                    )
                )
    used = {tag for case in cases for tag in case.tags}
    findings += [
        Finding("warning", None, f"no case in group {group!r} (tag a case with it)")
        for group in groups
        if group not in used
    ]
    return tuple(sorted(findings, key=lambda finding: finding.level != "error"))


def _duplicate_ids(cases: Sequence[Case]) -> list[Finding]:
    counts = Counter(case.id for case in cases)
    return [
        Finding("error", case_id, f"duplicate id: {count} cases share it")
        for case_id, count in counts.items()
        if count > 1
    ]


def _identical_prompts(cases: Sequence[Case]) -> list[Finding]:
    first: dict[str, str] = {}
    findings = []
    for case in cases:
        key = _normalise(case.prompt)
        if key in first:
            findings.append(Finding("error", case.id, f"same prompt as {first[key]!r}"))
        else:
            first[key] = case.id
    return findings


def _twin_errors(cases: Sequence[Case]) -> list[Finding]:
    by_id: dict[str, Case] = {}
    for case in cases:
        by_id.setdefault(case.id, case)
    findings = []
    for case in cases:
        if case.twin is not None:
            twin = by_id.get(case.twin)
            if twin is None:
                findings.append(Finding("error", case.id, f"twin {case.twin!r} names no case"))
            elif twin.should_activate:
                findings.append(
                    Finding("error", case.id, f"twin {case.twin!r} is a positive, not a negative")
                )
        elif case.should_activate:
            findings.append(
                Finding(
                    "error",
                    case.id,
                    "positive without a twin: name a negative that shares its vocabulary",
                )
            )
    return findings


def _near_duplicates(cases: Sequence[Case]) -> list[Finding]:
    """Quadratic, but on normalised strings with cheap upper bounds first: fine for hundreds."""
    prompts = [_normalise(case.prompt) for case in cases]
    findings = []
    for j, later in enumerate(cases):
        for i in range(j):
            if prompts[i] == prompts[j]:
                continue
            matcher = SequenceMatcher(None, prompts[i], prompts[j], autojunk=False)
            if matcher.real_quick_ratio() < NEAR_DUPLICATE_RATIO:
                continue
            if matcher.quick_ratio() < NEAR_DUPLICATE_RATIO:
                continue
            ratio = matcher.ratio()
            if ratio >= NEAR_DUPLICATE_RATIO:
                findings.append(
                    Finding(
                        "warning",
                        later.id,
                        f"prompt nearly duplicates {cases[i].id!r} (similarity {ratio:.2f})",
                    )
                )
                break
    return findings


def lint_raw(
    data: object, description: str | None, groups: Sequence[str] = GROUPS
) -> tuple[Finding, ...]:
    """Lint parsed JSON, reporting what `parse_cases` would refuse as findings, not a crash.

    Each case is validated on its own through `parse_cases` (so the field rules are the
    loader's), with `why` filled in for the call: a missing `why` and duplicate ids are then
    reported by `lint` alongside everything else.
    """
    try:
        entries = case_list(data, _SOURCE)
    except InputError as error:
        return (Finding("error", None, str(error).removeprefix(f"{_SOURCE}: ")),)
    findings: list[Finding] = []
    cases: list[Case] = []
    for position, raw in enumerate(entries):
        parsed = _parse_one(raw, position)
        if isinstance(parsed, Finding):
            findings.append(parsed)
        else:
            cases.append(parsed)
    return (*findings, *lint(cases, description, groups))


def _parse_one(raw: object, position: int) -> Case | Finding:
    if not isinstance(raw, dict):
        return Finding("error", None, f"case #{position + 1} is not an object")
    why = raw.get("why")
    has_why = isinstance(why, str) and bool(why.strip())
    patched = raw if has_why else {**raw, "why": "(checked separately)"}
    try:
        (case,) = parse_cases([patched], _SOURCE)
    except InputError as error:
        case_id = raw.get("id") if isinstance(raw.get("id"), str) else None
        message = str(error).removeprefix(f"{_SOURCE}: ")
        if case_id is not None:
            message = message.removeprefix(f"case {case_id!r}: ")
        else:
            message = message.replace("case #1", f"case #{position + 1}", 1)
        return Finding("error", case_id, message)
    return case if has_why else dataclasses.replace(case, why="")


def render_findings(findings: Sequence[Finding]) -> str:
    """Plain aligned lines, then a count: readable in a terminal and in a CI log alike."""
    if not findings:
        return "lint: no problems found"
    width = max(len(finding.case_id or "-") for finding in findings)
    lines = [
        f"{finding.level:<7}  {(finding.case_id or '-'):<{width}}  {finding.message}"
        for finding in findings
    ]
    errors = sum(finding.level == "error" for finding in findings)
    warnings = len(findings) - errors
    lines.append(f"lint: {_plural(errors, 'error')}, {_plural(warnings, 'warning')}")
    return "\n".join(lines)


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def lint_exit_code(findings: Sequence[Finding]) -> int:
    """1 when any finding is an error; warnings never fail the gate."""
    return 1 if any(finding.level == "error" for finding in findings) else 0


def _parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="activation lint",
        description="Static checks on a case matrix and a skill description; no model calls.",
    )
    parser.add_argument(
        "--cases", type=Path, default=None, help="cases file (default: the bundled suite)"
    )
    parser.add_argument("--repo", type=Path, default=None, help="target repo (default: git root)")
    parser.add_argument("--skill-path", default=None, help="SKILL.md path relative to the repo")
    parser.add_argument(
        "--candidate",
        default=None,
        help="description to lint: git:<ref> or a SKILL.md path (default: the working tree)",
    )
    return parser


def _description(args: argparse.Namespace, cwd: Path) -> str | None:
    """The description to check, resolved the way the main command resolves the candidate.

    A path needs no target; with no flag at all and no skill found here, the cases are
    linted alone (None) rather than refused.
    """
    if args.candidate is not None and git_ref(args.candidate) is None:
        return read_path(args.candidate, cwd).description
    try:
        target = resolve_target(args.repo, args.skill_path, cwd)
    except InputError:
        if args.repo is None and args.skill_path is None and args.candidate is None:
            return None
        raise
    spec = args.candidate if args.candidate is not None else working_tree_spec(target)
    return resolve_variant(spec, target, cwd).description


def main_lint(argv: Sequence[str] | None = None) -> int:
    """`activation lint`: 0 clean or warnings only, 1 errors found, 2 bad input."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit_:  # argparse has printed help or the error; report its code
        return exit_.code if isinstance(exit_.code, int) else 2
    try:
        data = read_json(args.cases if args.cases is not None else BUNDLED_CASES)
        description = _description(args, Path.cwd())
    except InputError as error:
        print(f"activation lint: {error}", file=sys.stderr)
        return 2
    if description is None:
        print(
            "activation lint: no skill found here, so only the cases were checked "
            "(pass --repo, --skill-path or --candidate to check a description too)",
            file=sys.stderr,
        )
    findings = lint_raw(data, description)
    print(render_findings(findings))
    return lint_exit_code(findings)
