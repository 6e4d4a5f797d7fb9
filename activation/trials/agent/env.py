"""The environment of a Stage B run: an allowlist of the user's, plus fresh folders.

Isolation is the point: the user's settings, hooks, installed plugins and skills, MCP servers
and repo must not reach the measurement. Every agent's run keeps the same base
(`BASE_NAMES`, `BASE_PREFIXES`):
- `PATH` (the CLI and its helpers such as ripgrep), `LANG`/`LANGUAGE`/`LC_*`/`TZ` (text and
  time handling), `SYSTEMROOT`/`COMSPEC`/`PATHEXT` (needed by any process on Windows);
- network plumbing: `HTTP(S)_PROXY`, `NO_PROXY`, `ALL_PROXY` (either case) and the CA
  bundle variables (`NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`, `SSL_CERT_DIR`);
and each adapter adds the credential and endpoint variables its CLI reads. Everything else
(`HOME`, `XDG_*`, `PWD`, editor and shell settings, other tools' tokens) is dropped, and the
run's fresh `HOME` and temp folder are set (`fresh_dirs`).

Secrets: the values of credential-like variables (names containing KEY, TOKEN, SECRET,
PASSWORD, CREDENTIAL or HEADERS) are replaced by `[redacted]` in every text a run stores:
transcripts, error reasons, evidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from pathlib import Path

BASE_NAMES = frozenset(
    {
        "PATH",
        "LANG",
        "LANGUAGE",
        "TZ",
        "SYSTEMROOT",
        "COMSPEC",
        "PATHEXT",
        "NODE_EXTRA_CA_CERTS",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "HTTP_PROXY",
        "HTTPS_PROXY",
        "NO_PROXY",
        "ALL_PROXY",
        "http_proxy",
        "https_proxy",
        "no_proxy",
        "all_proxy",
    }
)
BASE_PREFIXES = ("LC_",)

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|HEADERS", re.IGNORECASE)
_MIN_SECRET = 6
"""Shorter values are not scrubbed: replacing e.g. "1" everywhere would mangle transcripts."""
REDACTED = "[redacted]"


def allowlisted(
    parent: Mapping[str, str], names: Iterable[str] = (), prefixes: tuple[str, ...] = ()
) -> dict[str, str]:
    """The part of `parent` a run keeps: the base allowlist and an agent's `names` and
    `prefixes` (its credentials and endpoints)."""
    keep = BASE_NAMES | frozenset(names)
    starts = BASE_PREFIXES + prefixes
    return {
        name: value for name, value in parent.items() if name in keep or name.startswith(starts)
    }


def fresh_dirs(home: Path, tmp: Path) -> dict[str, str]:
    """The run's own home and temp folder, under every name a runtime looks for them."""
    return {
        "HOME": str(home),
        "USERPROFILE": str(home),
        "TMPDIR": str(tmp),
        "TMP": str(tmp),
        "TEMP": str(tmp),
    }


def secret_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """Values to scrub from stored text, longest first so no secret is half-replaced."""
    values = {
        value
        for name, value in env.items()
        if _SECRET_NAME.search(name) and len(value) >= _MIN_SECRET
    }
    return tuple(sorted(values, key=len, reverse=True))


def scrub(text: str, secrets: tuple[str, ...]) -> str:
    """`text` with every secret value replaced, before it is stored or shown anywhere."""
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def scrub_bytes(data: bytes, secrets: tuple[bytes, ...]) -> bytes:
    for secret in secrets:
        data = data.replace(secret, REDACTED.encode())
    return data
