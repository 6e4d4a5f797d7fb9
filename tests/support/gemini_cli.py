"""The pinned Gemini CLI that the Gemini tests drive (tests/support/npm_cli.py).

The tests run the real CLI (not a stand-in for it) against the local Gemini API stand-in
(tests/support/gemini_api.py), installed from the npm registry into
`<repo>/.agent-clis/gemini` on first use. The listing's rules are those of this version
(`activation/trials/agents/gemini/gemini-cli-0.61.0.toml`).
"""

from __future__ import annotations

from tests.support.npm_cli import REPO, PinnedCli

GEMINI = PinnedCli("Gemini CLI", "@google/gemini-cli", "0.61.0", REPO / ".agent-clis" / "gemini",
                   "gemini", megabytes=100)  # fmt: skip
"""`gemini --version` prints "0.61.0"."""
