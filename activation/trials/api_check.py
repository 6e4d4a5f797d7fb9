"""What both stages check before their first model call: a key to call with, an address
that answers, an optional SDK that is installed. An edge: it reads the environment, looks
for a package and opens a socket. Each model provider (trials/providers) says which of its
variables and packages these checks are about; the Stage B agents check Anthropic's and
OpenAI's by the names kept here."""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from activation._config import DISTRIBUTION
from activation._errors import ApiUnreachable, InputError
from activation.trials.backend import shown_url
from activation.trials.providers import anthropic, openai

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")
CONNECT_TIMEOUT = 10.0
ANTHROPIC_URL = anthropic.URL
OPENAI_URL = openai.URL


def has_key(variables: Iterable[str]) -> bool:
    return any(os.environ.get(name) for name in variables)


DRY_RUN = "--dry-run needs none"
"""The keyless way of every command that has a dry run."""


class MissingKey(InputError):
    """No key to call with. What needs it is said where that is known: the command that
    asks the judge or runs the agent for a suite re-says it (`needed_by`) with the keyless
    way, if there is one."""

    def __init__(self, variable: str, whom: str = "", keyless: str = DRY_RUN) -> None:
        self.variable = variable
        super().__init__(f"no API key: set {variable}{whom} ({keyless})")

    def needed_by(self, whom: str, keyless: str = DRY_RUN) -> MissingKey:
        """The same key, said for `whom` (" for the judge ..."), with the keyless ways of
        the command that needs it ("or pass --judge-model mock to judge offline; ...")."""
        return MissingKey(self.variable, whom, keyless)


def require_key(variables: Sequence[str], whom: str = "", instead: Iterable[str] = ()) -> None:
    """A key in one of `variables`, or one of the `instead` switches (Stage B's Bedrock and
    Vertex); `whom` says what needs it (" for an openai: model")."""
    if has_key(variables) or has_key(instead):
        return
    raise MissingKey(variables[0], whom)


def require_credentials(whom: str, instead: Iterable[str] = ()) -> None:
    """Anthropic's key for `whom` (" for Claude Code"), or one of the `instead` switches
    (Claude Code's)."""
    require_key(anthropic.KEYS, whom, instead=instead)


def require_package(module: str, extra: str, whom: str) -> None:
    """An optional package, found without importing it."""
    if importlib.util.find_spec(module) is None:
        raise InputError(
            f"{whom} needs the {module} package: pip install '{DISTRIBUTION}[{extra}]'"
        )


def check_reachable(variable: str = ANTHROPIC_URL) -> None:
    """A set base URL (`variable`) that cannot be reached stops the run before it starts,
    rather than after every trial has retried and failed (the CLI retries for minutes).
    Behind a proxy the proxy decides, so nothing is checked."""
    url = os.environ.get(variable)
    if not url or any(os.environ.get(name) for name in PROXY_VARIABLES):
        return
    parts = urlsplit(url)
    shown = shown_url(url)
    try:
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        port = None
    if parts.scheme not in ("http", "https") or not parts.hostname or port is None:
        raise ApiUnreachable(f"cannot reach {shown!r}: {variable} is not an http(s) URL")
    try:
        socket.create_connection((parts.hostname, port), timeout=CONNECT_TIMEOUT).close()
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ApiUnreachable(f"cannot reach {shown} ({reason}): check {variable}") from None
