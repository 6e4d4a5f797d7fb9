"""Stage B wall time: 12 real Claude Code runs at --concurrency 4 against the same 12 one at
a time, on the local stand-in with a fixed model latency per call.

    python benchmarks/stage_b.py [--latency 0.5] [--concurrency 4]

It uses the pinned CLI the tests install into .claude-cli/ (installing it if needed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation.commands.main import main
from tests.support.refund_bench import refund_suite


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
    with refund_suite(args.latency) as (claude, root, repo):
        os.chdir(repo)
        serial = timed_run(claude, root, 1)
        parallel = timed_run(claude, root, args.concurrency)
    print(
        f"12 Stage B trials (2 cases x 2 variants x 3), latency {args.latency * 1000:.0f} ms: "
        f"one at a time {serial:.2f} s, --concurrency {args.concurrency} {parallel:.2f} s, "
        f"speed-up {serial / parallel:.2f}x (ratio {parallel / serial:.2f})"
    )


if __name__ == "__main__":
    main_benchmark()
