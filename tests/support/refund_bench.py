"""The refund suite the Stage B benchmarks run through the real pinned Claude Code at the
local stand-in (benchmarks/stage_b.py, benchmarks/agent_cpu.py)."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.claude_cli import CLAUDE
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.skill_repo import (
    DISTRACTORS,
    SKILL_ID,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)


def script(request: FakeRequest) -> Reply:
    """Refund prompts load the skill; anything else gets a plain answer."""
    if request.is_main_loop and request.turn == 0 and request.prompt.startswith("refund"):
        return ToolUse("Skill", {"skill": SKILL_ID})
    return Text("Done.")


@contextmanager
def refund_suite(latency: float) -> Iterator[tuple[Path, Path, Path]]:
    """The pinned CLI, a folder with the suite's cases and distractors, and the skill's
    repository, with the stand-in answering `script` after `latency` seconds and this
    process's environment pointing at it, for as long as the block runs."""
    claude, problem = CLAUDE.locate()
    if claude is None:
        raise SystemExit(problem)
    with tempfile.TemporaryDirectory() as folder, FakeMessagesAPI(script, latency=latency) as api:
        root = Path(folder)
        repo = SkillRepos(root)("Use when issuing refunds.", candidate="Use for refunds.")
        write_cases(
            root / "cases.json",
            [case("refund", "refund order 1234", True), case("chart", "plot sales", False)],
        )
        write_distractors(root / "distractors", DISTRACTORS)
        os.environ.update(
            ANTHROPIC_BASE_URL=api.base_url,
            ANTHROPIC_API_KEY="sk-bench",
            CLAUDE_CODE_MAX_RETRIES="0",
        )
        yield claude, root, repo.root
