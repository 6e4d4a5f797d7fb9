"""The environment of a Stage B run: an allowlist of the user's, plus fresh folders.

Isolation is the point: the user's settings, hooks, installed plugins, MCP servers and repo
must not reach the measurement. The allowlist (`PASSTHROUGH_NAMES`, `PASSTHROUGH_PREFIXES`)
keeps what the CLI needs to reach the model and nothing that changes its behaviour:
- `PATH` (the CLI and its helpers such as ripgrep), `LANG`/`LANGUAGE`/`LC_*`/`TZ` (text and
  time handling), `SYSTEMROOT`/`COMSPEC`/`PATHEXT` (needed by any process on Windows);
- credentials and endpoints: every `ANTHROPIC_*` variable (key, auth token, base URL, model
  and header settings), the Bedrock/Vertex switches and their `AWS_*` / Google / region
  variables, `API_TIMEOUT_MS` and `CLAUDE_CODE_MAX_RETRIES` (how the CLI talks to the API);
- network plumbing: `HTTP(S)_PROXY`, `NO_PROXY`, `ALL_PROXY` (either case) and the CA
  bundle variables (`NODE_EXTRA_CA_CERTS`, `SSL_CERT_FILE`, `SSL_CERT_DIR`).
Everything else (`HOME`, `XDG_*`, `CLAUDE_CONFIG_DIR`, other `CLAUDE_CODE_*` switches, `PWD`,
`OLDPWD`, editor and shell settings) is dropped, then the fresh dirs and
`CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` are set.

Secrets: the values of credential-like variables (names containing KEY, TOKEN, SECRET,
PASSWORD, CREDENTIAL or HEADERS) are replaced by `[redacted]` in every text a run stores:
transcripts, error reasons, evidence.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

PASSTHROUGH_NAMES = frozenset(
    {
        "PATH",
        "LANG",
        "LANGUAGE",
        "TZ",
        "SYSTEMROOT",
        "COMSPEC",
        "PATHEXT",
        "API_TIMEOUT_MS",
        "CLAUDE_CODE_MAX_RETRIES",
        "CLAUDE_CODE_USE_BEDROCK",
        "CLAUDE_CODE_USE_VERTEX",
        "CLAUDE_CODE_SKIP_BEDROCK_AUTH",
        "CLAUDE_CODE_SKIP_VERTEX_AUTH",
        "CLOUD_ML_REGION",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "GOOGLE_CLOUD_PROJECT",
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
PASSTHROUGH_PREFIXES = ("LC_", "ANTHROPIC_", "AWS_", "VERTEX_REGION_")

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|HEADERS", re.IGNORECASE)
_MIN_SECRET = 6
"""Shorter values are not scrubbed: replacing e.g. "1" everywhere would mangle transcripts."""
REDACTED = "[redacted]"


def agent_env(parent: Mapping[str, str], home: Path, config_dir: Path, tmp: Path) -> dict[str, str]:
    """The run's environment: the allowlisted part of `parent` plus the fresh dirs."""
    env = {
        name: value
        for name, value in parent.items()
        if name in PASSTHROUGH_NAMES or name.startswith(PASSTHROUGH_PREFIXES)
    }
    env.update(
        HOME=str(home),
        USERPROFILE=str(home),
        CLAUDE_CONFIG_DIR=str(config_dir),
        TMPDIR=str(tmp),
        TMP=str(tmp),
        TEMP=str(tmp),
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1",
    )
    return env


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
