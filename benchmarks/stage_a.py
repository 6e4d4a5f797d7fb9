"""Stage A wall time against the ideal, on the local stand-in with a fixed latency per call.

    python benchmarks/stage_a.py [--cases 40] [--trials 3] [--concurrency 16] [--latency 0.2]

Ideal = ceil(calls / concurrency) x latency: what a perfect scheduler with that many calls
in flight would take. The ratio says how much the tool itself adds (SDK calls, parsing, the
scheduler, git, the report). The SDK and scipy are imported before the clock starts: the
command imports them lazily, and their import time is start-up, which benchmarks/startup.py
measures. The stand-in runs in a process of its own, as the real API would, so its own work
does not compete with the tool's for the interpreter.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from refund_stand_in import refund_suite, stand_in

import activation.trials.classifier.backend
import activation.verdicts.stats
from activation.commands.main import main


def measure(cases: int, trials: int, concurrency: int, latency: float) -> tuple[float, float]:
    with (
        tempfile.TemporaryDirectory() as folder,
        stand_in(latency) as (base_url, requests),
        refund_suite(Path(folder), cases, base_url) as suite,
    ):
        argv = [
            "--cases", str(suite.cases), "--distractors", str(suite.distractors),
            "--trials", str(trials), "--concurrency", str(concurrency), "--no-cache",
        ]  # fmt: skip
        activation.verdicts.stats.bh_adjust([0.5])  # scipy, imported before the clock
        start = time.perf_counter()
        with redirect_stdout(StringIO()):
            code = main(argv)
        wall = time.perf_counter() - start
        calls = requests().requests
    if code != 0 or calls != cases * 2 * trials:
        raise SystemExit(f"benchmark run failed: exit {code}, {calls} calls")
    ideal = math.ceil(calls / concurrency) * latency
    return wall, ideal


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=40)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    wall, ideal = measure(args.cases, args.trials, args.concurrency, args.latency)
    calls = args.cases * 2 * args.trials
    print(
        f"{args.cases} cases x 2 variants x {args.trials} trials = {calls} calls, "
        f"concurrency {args.concurrency}, latency {args.latency * 1000:.0f} ms: "
        f"wall {wall:.2f} s, ideal {ideal:.2f} s, ratio {wall / ideal:.2f}"
    )


if __name__ == "__main__":
    main_benchmark()
