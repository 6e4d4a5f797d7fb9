"""No code outside an agent's own package names an agent: the registry is the only way in."""

from __future__ import annotations

import ast
from pathlib import Path

import activation
from activation.trials.agents import REGISTRY

PACKAGE = Path(activation.__file__).parent
AGENTS_DIR = ("trials", "agents")


def named_agents(tree: ast.AST) -> list[tuple[int, str]]:
    """Agent names a module writes as a string anywhere but in a docstring (a comparison,
    a mapping key, a default)."""
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in REGISTRY and id(node) not in docstrings
    ]


def test_no_module_outside_the_agents_packages_names_an_agent() -> None:
    outside = {
        path.relative_to(PACKAGE).as_posix(): named_agents(ast.parse(path.read_text()))
        for path in PACKAGE.rglob("*.py")
        if path.relative_to(PACKAGE).parts[:2] != AGENTS_DIR
    }
    # The one default: the agent a run measures unless --agent names another.
    assert {path: names for path, names in outside.items() if names} == {
        "_config.py": [(25, "claude-code")]
    }
    probe = ast.parse('"""codex."""\nif agent == "opencode": pass\nNAMES = {"codex": 1}')
    assert named_agents(probe) == [(2, "opencode"), (3, "codex")]
