"""What both stages check before their first model call: a key to call with, an address
that answers, and for an `openai:` model the SDK that asks it. An edge: it reads the
environment, looks for a package and opens a socket."""

from __future__ import annotations

import importlib.util
import os
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from activation._errors import ApiUnreachable, InputError
from activation.trials.backend import shown_url

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")
CONNECT_TIMEOUT = 10.0
ANTHROPIC_URL = "ANTHROPIC_BASE_URL"
OPENAI_URL = "OPENAI_BASE_URL"


def has_credentials() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))


def require_credentials(instead: Iterable[str] = ()) -> None:
    """A key, or one of the `instead` switches (Stage B's Bedrock and Vertex)."""
    if has_credentials() or any(os.environ.get(name) for name in instead):
        return
    raise InputError("no API key: set ANTHROPIC_API_KEY (--dry-run needs none)")


def require_openai_sdk() -> None:
    """The optional `openai` package, found without importing it."""
    if importlib.util.find_spec("openai") is None:
        raise InputError(
            "an openai: model needs the openai package: pip install 'activation[openai]'"
        )


def require_openai_credentials() -> None:
    if not os.environ.get("OPENAI_API_KEY"):
        raise InputError(
            "no API key: set OPENAI_API_KEY for an openai: model (--dry-run needs none)"
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
