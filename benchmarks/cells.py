"""What a cell costs: a run of 1, 2 and 4 cells (models x agents) of the same suite.

    python benchmarks/cells.py [--cases 40] [--trials 3] [--latency 0.2] [--repeats 3]

Stage A through the real SDK against the local stand-in (its own process, prompt caching
billed as the API does, each answer after `--latency` seconds on average). Escalation is
off (`--max-trials` = `--trials`), so every cell makes the same number of calls and the
figures compare like with like. The cells: Claude Haiku 4.5 alone; Haiku and Sonnet 4.6;
both models in Claude Code's and OpenCode's listings; Haiku, then both models, in the
listings of Claude Code, OpenCode, Gemini CLI and Copilot CLI. Each cell keeps its own concurrency
limit (its provider's rate limits are its own), so cells run side by side: what a cell
adds is its calls and their cost, not the wall time of a run of its own.

Shown per run: the calls (what the stand-in counted), the wall time and its ratio to the
one-cell run, and the cost of each cell at the list prices of pricing.toml. Each run gets a
stand-in of its own, so each writes its prompt-cache prefixes as a first run would; a
warm-up run first imports what every run needs, so the one-cell run is not charged for it.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import orjson
from refund_stand_in import refund_suite, stand_in

from activation.commands.main import main

RUNS = {
    "1 cell": ("claude-haiku-4-5", "claude-code"),
    "2 cells (2 models)": ("claude-haiku-4-5,claude-sonnet-4-6", "claude-code"),
    "4 cells (2 models x 2 agents)": ("claude-haiku-4-5,claude-sonnet-4-6", "claude-code,opencode"),
    "4 cells (1 model x 4 agents)": ("claude-haiku-4-5", "claude-code,opencode,gemini,copilot"),
    "8 cells (2 models x 4 agents)": (
        "claude-haiku-4-5,claude-sonnet-4-6",
        "claude-code,opencode,gemini,copilot",
    ),
}


def once(
    root: Path, models: str, agents: str, args: argparse.Namespace, url: str
) -> tuple[float, dict[str, object]]:
    with refund_suite(root, args.cases, url) as suite:
        argv = [
            "--cases", str(suite.cases), "--distractors", str(suite.distractors),
            "--model", models, "--agent", agents, "--trials", str(args.trials),
            "--max-trials", str(args.trials), "--no-cache", "--json", str(root / "report.json"),
        ]  # fmt: skip
        started = time.perf_counter()
        with redirect_stdout(StringIO()):
            code = main(argv)
        wall = time.perf_counter() - started
        report = orjson.loads((root / "report.json").read_bytes())
    if code not in (0, 1):
        raise SystemExit(f"benchmark run failed: exit {code}")
    return wall, report


def cell_costs(report: dict[str, object]) -> list[tuple[str, int, float]]:
    cells = report.get("cells") or [report]
    assert isinstance(cells, list)
    return [
        (f"{c['stage']}/{c['coding_agent']}/{c['model']}", c["usage"]["requests"],
         c["usage"]["cost_usd"])
        for c in cells
    ]  # fmt: skip


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    calls = args.cases * 2 * args.trials
    print(f"{args.cases} cases x 2 variants x {args.trials} trials = {calls} calls a cell, "
          f"{args.latency:g} s latency, median of {args.repeats} runs")  # fmt: skip
    walls: dict[str, float] = {}
    for label, (models, agents) in [("warm-up", RUNS["1 cell"]), *RUNS.items()]:
        times: list[float] = []
        report: dict[str, object] = {}
        sent = 0
        for _ in range(args.repeats):
            # a stand-in of its own per run: each run writes its own prompt-cache prefixes
            with stand_in(args.latency) as (url, served), tempfile.TemporaryDirectory() as f:
                wall, report = once(Path(f), models, agents, args, url)
                times.append(wall)
                sent = served().requests
        if label == "warm-up":  # the SDK and scipy imported, as in every later run
            continue
        walls[label] = statistics.median(times)
        ratio = walls[label] / walls["1 cell"]
        print(f"{label}: {sent} calls, {walls[label]:.2f} s ({ratio:.2f}x the one-cell run; "
              f"{min(times):.2f}-{max(times):.2f} s)")  # fmt: skip
        for cell, requests, cost in cell_costs(report):
            print(f"  {cell}: {requests} requests, ${cost:.4f}")


if __name__ == "__main__":
    main_benchmark()
