"""The pinned OpenCode CLI (tests/support/npm_cli.py), run headless and isolated.

The OpenCode fidelity test runs the real CLI (not a stand-in for it) against the local fake
Messages API. It installs from the npm registry into `<repo>/.agent-clis/opencode`; the
binary comes from the optional dependency `opencode-linux-x64`, nothing is downloaded at run
time. The version is pinned: the listing renderer is the port of this version's.

Isolation (research/agents/NOTES.md 1.1): the whole environment is given, nothing inherited;
HOME, the XDG dirs and TMPDIR are fresh folders of the run, `OPENCODE_CONFIG` names a config
that points the anthropic provider at the fake, and models fetch and autoupdate are off. The
prompt goes on stdin (a positional prompt reaches the model wrapped in quotes), and `--title`
saves the side request that would name the session. OpenCode searches files with ripgrep
(`rg`), which it would download when it is not on PATH: every test that runs OpenCode needs
it from the system (`.ci/run` installs Debian's `ripgrep`).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from tests.support.needs import unavailable
from tests.support.npm_cli import REPO, PinnedCli

OPENCODE = PinnedCli("OpenCode CLI", "opencode-ai", "1.18.33", REPO / ".agent-clis" / "opencode",
                     "opencode", megabytes=350)  # fmt: skip
MODEL = "anthropic/claude-sonnet-4-5"
RIPGREP = "rg"
PATH = "/usr/local/bin:/usr/bin:/bin"
"""The PATH of an isolated run: the system's programs only."""


def required_ripgrep() -> Path:
    """ripgrep for a test that runs OpenCode: skipped outside CI when it is missing, failed
    in CI."""
    found = shutil.which(RIPGREP, path=PATH)
    if found is None:
        unavailable(
            "ripgrep (`rg`), which OpenCode needs on PATH",
            f"no `{RIPGREP}` in {PATH} (apt-get install ripgrep)",
        )
    return Path(found)


def isolated_env(scratch: Path, config: Path) -> dict[str, str]:
    """The whole environment of a run whose home and state live under `scratch`."""
    home = scratch / "home"
    env = {
        "PATH": PATH,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "TMPDIR": str(home / "tmp"),
        "OPENCODE_CONFIG": str(config),
        "OPENCODE_DISABLE_MODELS_FETCH": "1",
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "ANTHROPIC_API_KEY": "sk-ant-fidelity",
        "LANG": "C.UTF-8",
    }
    for key in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "TMPDIR"):
        Path(env[key]).mkdir(parents=True, exist_ok=True)
    return env


def write_config(path: Path, base_url: str) -> Path:
    """An `opencode.json` sending every model call to the fake at `base_url` (its root)."""
    config = {
        "$schema": "https://opencode.ai/config.json",
        "model": MODEL,
        "small_model": MODEL,
        "autoupdate": False,
        "share": "disabled",
        "provider": {"anthropic": {"options": {"baseURL": f"{base_url}/v1"}}},
        "permission": {"skill": {"*": "allow"}},
    }
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
    return path


def run_headless(
    opencode: Path, project: Path, env: dict[str, str], prompt: str, timeout: float = 120.0
) -> subprocess.CompletedProcess[str]:
    """One `opencode run --format json` in `project`, the prompt on stdin."""
    return subprocess.run(
        [str(opencode), "run", "--format", "json", "--title", "fidelity"],
        cwd=project,
        env=env,
        input=prompt,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def processes_with_env(entry: str) -> list[int]:
    """Live processes whose environment holds `entry` (`HOME=<a run's home>`), so whatever a
    run started and left behind; zombies have no environment."""
    found = []
    needle = entry.encode() + b"\0"
    for process in Path("/proc").iterdir():
        if not process.name.isdigit():
            continue
        try:
            environ = (process / "environ").read_bytes()
        except OSError:
            continue
        if environ.startswith(needle) or b"\0" + needle in environ:
            found.append(int(process.name))
    return found
