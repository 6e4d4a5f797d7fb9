"""What both stages check before their first call to the Anthropic API: a key to call with,
and an address that answers. An edge: it reads the environment and opens a socket."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from activation._errors import ApiUnreachable, InputError
from activation.trials.backend import shown_url

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY")
CONNECT_TIMEOUT = 10.0


def has_credentials() -> bool:
    return bool(os.environ.get("ANTHROPIC_API_KEY") or os.environ.get("ANTHROPIC_AUTH_TOKEN"))


def require_credentials(instead: Iterable[str] = ()) -> None:
    """A key, or one of the `instead` switches (Stage B's Bedrock and Vertex)."""
    if has_credentials() or any(os.environ.get(name) for name in instead):
        return
    raise InputError("no API key: set ANTHROPIC_API_KEY (--dry-run needs none)")


def check_reachable() -> None:
    """A set ANTHROPIC_BASE_URL that cannot be reached stops the run before it starts,
    rather than after every trial has retried and failed (the CLI retries for minutes).
    Behind a proxy the proxy decides, so nothing is checked."""
    url = os.environ.get("ANTHROPIC_BASE_URL")
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
