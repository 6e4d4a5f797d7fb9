"""The public surface serves a library user: every exported name resolves, and the docs'
library example (docs/python.md) runs as printed, comparing the working tree with git:HEAD."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import activation
from tests.support.skill_repo import SkillRepos

LIBRARY_ROOT = Path(__file__).resolve().parents[1]
"""This checkout: the example imports its package, not whichever one is installed."""
LIBRARY_PAGE = LIBRARY_ROOT / "docs" / "python.md"


def test_every_exported_name_resolves() -> None:
    for name in activation.__all__:
        assert getattr(activation, name) is not None, name
    wanted = {
        "ClassifierBackend", "MessagesAPI", "MockModel", "BatchBackend", "AgentBackend",
        "FakeBackend", "CachedBackend", "Usage", "InputError", "AuthError", "ApiUnreachable",
        "judge", "judge_all", "parse_report", "report_json", "report_schema", "stage_named",
        "execute", "execute_async", "behavior", "changed", "BehaviorRequest", "ChangedRequest",
    }  # fmt: skip
    assert wanted <= set(activation.__all__)


def library_example() -> str:
    """The Python blocks of the "From Python" page, in order."""
    blocks = re.findall(r"```python\n(.*?)```", LIBRARY_PAGE.read_text(), re.DOTALL)
    assert blocks, "the From Python page has no Python example"
    return "\n".join(blocks)


def test_the_readme_library_example_runs_head_against_the_working_tree(
    skill_repo: SkillRepos, fresh_python: str
) -> None:
    made = skill_repo(
        "Use when adding login, signup, or authentication to a web app with Auth0.",
        plugin_dir="plugins/auth0", plugin_name="auth0", skill_name="auth0",
        candidate="Use when adding Auth0 to a web app.",
    )  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "HOME": str(made.root), "PYTHONPATH": str(LIBRARY_ROOT)}
    done = subprocess.run(
        [fresh_python, "-c", library_example()],
        cwd=made.root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("REGRESSED git:HEAD ")  # the mock: HEAD against the edit
    assert lines[1].split()[0] in {"OK", "REGRESSED", "INCOMPLETE"}
    assert "OK: nothing the change touched calls for a gate." in lines  # changed's own view
    assert lines[-1] == "0 [('auth0:auth0', ('description',))]"  # changed: untested, allowed
