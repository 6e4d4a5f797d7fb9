"""The pull-request comment the GitHub Action keeps: its body, which of the pull request's
comments is ours, whether to update it or post a new one, and the fork rule.

Pure functions over plain data; the requests to GitHub's REST API and the runs are the
shell's (`activation.commands.ci_comment`). One comment per pull request is edited in place
on every push, so the thread is not flooded; a new one is posted only when the verdict
changes, so a reviewer is notified of what matters.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from activation import _config
from activation._errors import ExitCode
from activation.trials.providers import parse_model, provider_named

MARKER = "<!-- activation-pr-comment"
"""How our comment is found among the pull request's: its body starts with this hidden HTML
comment, which also carries the verdict it showed."""
VERDICT = re.compile(rf"\A{re.escape(MARKER)} verdict=(\S+) -->")
LIMIT = 60_000
"""The most of the command's Markdown a comment carries (GitHub refuses a body over 65,536
characters); the job summary keeps it all."""
CUT = "\n\n… (cut here: the job summary has the whole report)"
SKIPPED = "SKIPPED"
"""The verdict when no gate ran: no API key (a fork's pull request gets no secrets)."""
VERDICTS: dict[int, str] = {
    ExitCode.OK: "OK",
    ExitCode.REGRESSED: "FAILED",
    ExitCode.USAGE: "BAD-INPUT",
    ExitCode.INCOMPLETE: "INCOMPLETE",
    ExitCode.INTERNAL: "CRASHED",
    ExitCode.INTERRUPTED: "INTERRUPTED",
}
"""The verdict in a word, by the command's exit code (as docs/ci.md's table reads them)."""
MEANINGS: dict[int, str] = {
    ExitCode.OK: "passed",
    ExitCode.REGRESSED: "a case regressed, a changed skill is untested, or the change breaks one",
    ExitCode.USAGE: "bad input or settings, or the API refused the key: the log's one "
    "`error:` line says which; no model call was made",
    ExitCode.INCOMPLETE: "nothing regressed, but some trials errored: the evidence is "
    "incomplete; re-run the job",
    ExitCode.INTERNAL: "an internal error in activation: one line in the log; please report it",
    ExitCode.INTERRUPTED: "the run was stopped; the partial report is in the artefacts",
}
NOT_RUN = "### ⏭️ activation: no model was called, the gate did not run"
NO_KEY_COMMANDS = frozenset({"lint", "visibility", "detect", "schema", "example"})
"""The commands that make no model call, whatever their flags."""


@dataclass(frozen=True)
class Comment:
    id: int
    body: str


@dataclass(frozen=True)
class Create:
    body: str


@dataclass(frozen=True)
class Update:
    id: int
    body: str


@dataclass(frozen=True)
class Leave:
    """Our comment already says this: no request."""

    id: int


Decision = Create | Update | Leave


def verdict_of(exit_code: int) -> str:
    return VERDICTS.get(exit_code, f"EXIT-{exit_code}")


def comment_body(
    *,
    command: str,
    verdict: str,
    exit_code: int,
    markdown: str | None,
    skipped: Sequence[str],
    footer: str,
) -> str:
    """The comment: the hidden marker with the verdict, the command's own Markdown summary
    (the one it wrote to the job summary), or one line on its exit when it wrote none, what
    was skipped, and where the run is."""
    lines = [f"{MARKER} verdict={verdict} -->"]
    if markdown and markdown.strip():
        text = markdown.strip()
        lines.append(text if len(text) <= LIMIT else text[:LIMIT] + CUT)
    elif verdict == SKIPPED:
        lines.append(NOT_RUN)
    else:
        icon = "✅" if exit_code == ExitCode.OK else "❌"
        meaning = MEANINGS.get(exit_code, "see the job log")
        lines.append(f"### {icon} `activation {command}`: exit {exit_code}: {meaning}.")
    if skipped:
        lines += ["", skipped_markdown(skipped)]
    lines += ["", f"<sub>{footer}</sub>"]
    return "\n".join(lines) + "\n"


def skipped_markdown(skipped: Sequence[str]) -> str:
    return "\n".join(["**Skipped:**", "", *(f"- {line}" for line in skipped)])


def shown_verdict(body: str) -> str | None:
    """The verdict our comment showed, or None when `body` is not ours."""
    found = VERDICT.match(body)
    return found.group(1) if found else None


def decide(comments: Sequence[Comment], body: str) -> Decision:
    """Update our latest comment in place; post a new one when there is none or when the
    verdict it showed differs; send nothing when it already says this."""
    ours = [comment for comment in comments if shown_verdict(comment.body) is not None]
    if not ours:
        return Create(body)
    latest = max(ours, key=lambda comment: comment.id)
    if shown_verdict(latest.body) != shown_verdict(body):
        return Create(body)
    if latest.body == body:
        return Leave(latest.id)
    return Update(latest.id, body)


def pull_number(event: Mapping[str, Any]) -> int | None:
    """The pull request the workflow runs for, from the event's payload; None for a push
    or a run by hand."""
    pull = event.get("pull_request")
    return int(pull["number"]) if isinstance(pull, Mapping) else None


def from_fork(event: Mapping[str, Any]) -> bool:
    """A pull request from another repository (or from a fork since deleted): its workflow
    gets no secrets and a read-only token, so it can neither call a model nor comment."""
    pull = event.get("pull_request")
    if not isinstance(pull, Mapping):
        return False
    head = pull.get("head", {}).get("repo")
    base = pull.get("base", {}).get("repo", {})
    return head is None or head.get("full_name") != base.get("full_name")


def missing_key(command: Sequence[str], environ: Mapping[str, str]) -> bool:
    """Whether the command calls a model whose key is not in `environ`: not a command that
    never calls one, not a `--dry-run`, not a model that needs no key (the mock)."""
    if not command or command[0] in NO_KEY_COMMANDS or "--dry-run" in command:
        return False
    values = [value for flag, value in pairwise(command) if flag == "--model"]
    values += [word.removeprefix("--model=") for word in command if word.startswith("--model=")]
    models = [model for value in values for model in value.split(",")] or [_config.MODEL]
    for model in models:
        keys = provider_named(parse_model(model).provider).key_variables
        if keys and not any(environ.get(key) for key in keys):
            return True
    return False


def gate_command(command: Sequence[str], outputs: Sequence[str]) -> list[str]:
    """The command with the report files and the ceiling (`outputs`) a gate takes; a
    command that makes no model call (a lint) runs as given."""
    if command and command[0] in NO_KEY_COMMANDS:
        return list(command)
    return [*command, *outputs]


def keyless_commands(command: Sequence[str]) -> list[list[str]]:
    """What runs without a key in its stead: the lint (no model call) and the command's
    own `--dry-run` (what would run, and at what cost)."""
    return [["lint"], [*command, "--dry-run"]]


def skipped_lines(command: Sequence[str], fork: bool) -> list[str]:
    """What the comment and the job summary say was left out when there is no key."""
    why = "a pull request from a fork gets no secrets" if fork else "the key input is empty"
    return [
        f"`activation {' '.join(command)}`: no API key ({why}); ran `activation lint` and "
        "its `--dry-run` instead, which call no model. A maintainer can re-run it from a "
        "branch of this repository."
    ]
