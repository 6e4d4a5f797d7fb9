"""Choosing and preparing a run's backend: the one place the command line knows the stages.

A `Backends` checks what a stage needs from the environment before any model call and then
makes the backend; tests pass one that makes the in-memory fake.
"""

from __future__ import annotations

import os
import socket
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Protocol
from urllib.parse import urlsplit

import anyio
from rich.console import Console

from activation import state
from activation._errors import ApiUnreachable, InputError
from activation._models import Inputs, RunSpec
from activation.report.plan import CHARS, COUNTED
from activation.trials.backend import Backend, shown_url

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")
CONNECT_TIMEOUT = 10.0


class Backends(Protocol):
    def prepare(self, spec: RunSpec, *, credentials: bool = True) -> RunSpec:
        """Check the environment (credentials, the CLI); the spec with what was found."""
        ...

    def open(self, spec: RunSpec, inputs: Inputs) -> Backend: ...

    def count_tokens(
        self, spec: RunSpec, requests: Sequence[dict[str, Any]]
    ) -> tuple[list[int] | None, str]:
        """Stage A requests' input tokens, and how they were found; None: not counted."""
        ...


def require_credentials(spec: RunSpec) -> None:
    if has_credentials():
        return
    if spec.stage == "B" and any(
        os.environ.get(name) for name in ("CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX")
    ):
        return
    raise InputError("no API key: set ANTHROPIC_API_KEY (--dry-run needs none)")


def check_reachable(url: str | None) -> None:
    """A set ANTHROPIC_BASE_URL that cannot be reached stops the run before it starts,
    rather than after every trial has retried and failed (the CLI retries for minutes).
    Behind a proxy the proxy decides, so nothing is checked."""
    if not url or any(os.environ.get(name) for name in PROXY_VARIABLES):
        return
    parts = urlsplit(url)
    shown = shown_url(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None:
        raise ApiUnreachable(f"cannot reach {shown!r}: ANTHROPIC_BASE_URL is not an http(s) URL")
    try:
        socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ApiUnreachable(f"cannot reach {shown} ({reason}): check ANTHROPIC_BASE_URL") from None


def has_credentials() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))


class RealBackends:
    """Stage A over the Messages API, Stage B over the Claude Code CLI (imported lazily)."""

    def count_tokens(
        self, spec: RunSpec, requests: Sequence[dict[str, Any]]
    ) -> tuple[list[int] | None, str]:
        """With a key, the API's token-counting endpoint (the SDK is imported only then);
        without one, or when counting fails, None: the estimate falls back to characters."""
        if not has_credentials():
            return None, f"{CHARS}: no API key to count with"
        from activation.trials.classifier.tokens import count_input_tokens, counting_failed

        try:
            return anyio.run(count_input_tokens, requests, spec.limit), COUNTED
        except Exception as error:
            why = counting_failed(error)
            if why is None:
                raise
            return None, f"{CHARS}: token counting failed ({why})"

    def prepare(self, spec: RunSpec, *, credentials: bool = True) -> RunSpec:
        if credentials:
            require_credentials(spec)
            check_reachable(os.environ.get("ANTHROPIC_BASE_URL"))
        if spec.agent is None:
            return spec
        from activation.trials.agent.backend import check_claude

        return replace(spec, agent=replace(spec.agent, version=check_claude(spec.agent.claude)))

    def open(self, spec: RunSpec, inputs: Inputs) -> Backend:
        if spec.stage == "A" and spec.batch:
            from activation.trials.classifier.batch import BatchBackend

            return BatchBackend(spec, inputs, inputs.target.repo)
        if spec.stage == "A":
            from activation.trials.classifier.backend import ClassifierBackend

            return ClassifierBackend(spec, inputs)
        from activation.trials.agent.backend import AgentBackend

        return AgentBackend(spec, inputs, state.new_run_dir(inputs.target.repo, spec.stage))


def pair_key(inputs: Inputs) -> str:
    return state.pair_key(
        inputs.target.skill_id, inputs.baseline.description, inputs.candidate.description
    )


def stage_b_selection(inputs: Inputs, console: Console) -> Inputs:
    """Without `--only`: the spot checks plus what the latest Stage A run on this pair flagged."""
    flagged = state.last_flagged(inputs.target.repo, pair_key(inputs))
    chosen = {case.id for case in inputs.cases if case.spot_check} | set(flagged or ())
    selection = tuple(case for case in inputs.cases if case.id in chosen)
    origin = (
        "spot checks and the cases the latest Stage A run on these descriptions flagged"
        if flagged is not None
        else "spot checks only (no Stage A run on these two descriptions yet)"
    )
    if not selection:
        raise InputError(f"no case selected for --real ({origin}): pass --only ids")
    console.print(f"--real selection: {len(selection)} case(s), {origin}", soft_wrap=True)
    return replace(inputs, cases=selection)
