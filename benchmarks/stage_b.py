"""Stage B wall time: 12 real Claude Code runs at --concurrency 4 against the same 12 one at
a time, on the local stand-in with a fixed model latency per call.

    python benchmarks/stage_b.py [--latency 0.5] [--concurrency 4]

It uses the pinned CLI the tests install into .claude-cli/ (installing it if needed).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation.commands.main import main
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


def timed_run(claude: Path, root: Path, concurrency: int) -> float:
    argv = [
        "--real", "--claude", str(claude), "--only", "refund,chart",
        "--cases", str(root / "cases.json"), "--distractors", str(root / "distractors"),
        "--trials", "3", "--concurrency", str(concurrency), "--max-turns", "3",
        "--no-cache",
    ]  # fmt: skip
    start = time.perf_counter()
    with redirect_stdout(StringIO()):
        code = main(argv)
    wall = time.perf_counter() - start
    if code != 0:
        raise SystemExit(f"benchmark run failed with exit {code}")
    return wall


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    claude, problem = CLAUDE.locate()
    if claude is None:
        raise SystemExit(problem)
    with (
        tempfile.TemporaryDirectory() as folder,
        FakeMessagesAPI(script, latency=args.latency) as api,
    ):
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
        os.chdir(repo.root)
        serial = timed_run(claude, root, 1)
        parallel = timed_run(claude, root, args.concurrency)
    print(
        f"12 Stage B trials (2 cases x 2 variants x 3), latency {args.latency * 1000:.0f} ms: "
        f"one at a time {serial:.2f} s, --concurrency {args.concurrency} {parallel:.2f} s, "
        f"speed-up {serial / parallel:.2f}x (ratio {parallel / serial:.2f})"
    )


if __name__ == "__main__":
    main_benchmark()
