"""Rules the tests keep themselves to: speed is measured in benchmarks/, never asserted."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
CLOCKS = {"monotonic", "perf_counter", "time", "process_time"}


def clock_calls(node: ast.AST) -> list[str]:
    return [
        ast.unparse(call)
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in CLOCKS
        and isinstance(call.func.value, ast.Name)
        and call.func.value.id == "time"
    ]


def test_no_test_asserts_on_the_wall_clock() -> None:
    found = [
        f"{path.relative_to(TESTS)}:{node.lineno}"
        for path in TESTS.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Assert) and clock_calls(node)
    ]
    assert found == []
