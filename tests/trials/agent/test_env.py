"""The agent's environment: an allowlist of the parent's plus fresh dirs, and secrets kept out
of everything the run leaves behind."""

from __future__ import annotations

from pathlib import Path

from activation.trials.agent.env import REDACTED, scrub, secret_values
from activation.trials.agents.claude_code.adapter import agent_env

SECRET = "sk-ant-test-0123456789abcdef"


def test_env_is_an_allowlist_plus_fresh_dirs(tmp_path: Path) -> None:
    parent = {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "ANTHROPIC_API_KEY": SECRET,
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
        "HTTPS_PROXY": "http://proxy:3128",
        "HOME": "/home/user",
        "CLAUDE_CONFIG_DIR": "/home/user/.claude",
        "CLAUDE_CODE_ENABLE_TELEMETRY": "1",
        "XDG_CONFIG_HOME": "/home/user/.config",
        "GITHUB_TOKEN": "ghp_dont_pass_me",
        "PWD": "/home/user/repo",
    }
    env = agent_env(parent, tmp_path / "h", tmp_path / "h" / ".claude", tmp_path / "t")
    assert env == {
        "PATH": "/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "ANTHROPIC_API_KEY": SECRET,
        "ANTHROPIC_BASE_URL": "http://127.0.0.1:1",
        "HTTPS_PROXY": "http://proxy:3128",
        "HOME": str(tmp_path / "h"),
        "USERPROFILE": str(tmp_path / "h"),
        "CLAUDE_CONFIG_DIR": str(tmp_path / "h" / ".claude"),
        "TMPDIR": str(tmp_path / "t"),
        "TMP": str(tmp_path / "t"),
        "TEMP": str(tmp_path / "t"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "CLAUDE_CODE_MAX_RETRIES": "4",
    }
    own = agent_env({**parent, "CLAUDE_CODE_MAX_RETRIES": "0"}, tmp_path, tmp_path, tmp_path)
    assert own["CLAUDE_CODE_MAX_RETRIES"] == "0"  # the user's own setting wins


def test_secrets_are_scrubbed() -> None:
    secrets = secret_values({"ANTHROPIC_API_KEY": SECRET, "GITHUB_TOKEN": "ghp_abcdef", "X": "1"})
    assert secrets == ("sk-ant-test-0123456789abcdef", "ghp_abcdef")
    assert scrub(f"key {SECRET} and ghp_abcdef", secrets) == f"key {REDACTED} and {REDACTED}"
