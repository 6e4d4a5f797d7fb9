"""The pinned Codex CLI that the Codex fidelity test drives (tests/support/npm_cli.py).

The test runs the real CLI (not a stand-in for it) against the local fake Responses API,
installed from the npm registry into `<repo>/.agent-clis/codex` on first use. The listing's
rules are those of this version (`activation/trials/agents/codex/codex-0.171.0.toml`).
"""

from __future__ import annotations

from tests.support.npm_cli import REPO, PinnedCli

CODEX = PinnedCli("Codex CLI", "@openai/codex", "0.171.0", REPO / ".agent-clis" / "codex", "codex",
                  megabytes=420, version_word=-1)  # fmt: skip
"""`codex --version` prints "codex-cli 0.171.0"."""
