"""Adaptive concurrency against a rate limit: does the run find the account's pace?

    python benchmarks/rate_limit.py [--calls 1200] [--rate 20] [--latency 0.2]

The stand-in answers at most `--rate` requests a second (a token bucket holding one second's
worth, as the real API keeps its limits) and answers the rest 429 with the whole seconds to
wait in `retry-after`, as the real API does; each request it does answer takes `--latency`.
The command runs as a user would, in a process of its own, `--no-cache`, once with the
default adaptive limit (`--concurrency auto`: from 8, halving on a 429, growing while none
comes back) and once with fixed limits for comparison. The rate-limit bound is what any
client needs at that pace: calls / rate.

Targets (issue 13): the adaptive run ends within 1.25 x the bound, with at most 5 % of its
requests answered 429. Its report says the peak and final concurrency.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from refund_stand_in import refund_suite, stand_in

ACTIVATION = Path(sys.executable).parent / "activation"


def one(calls: int, rate: float, latency: float, concurrency: str) -> str:
    cases = calls // 6
    with (
        tempfile.TemporaryDirectory() as folder,
        stand_in(latency, rate) as (url, served),
        refund_suite(Path(folder), cases, url) as suite,
    ):
        report = Path(folder) / "report.json"
        argv = [
            str(ACTIVATION), "--cases", str(suite.cases), "--distractors", str(suite.distractors),
            "--trials", "3", "--max-trials", "3", "--concurrency", concurrency, "--no-cache",
            "--json", str(report),
        ]  # fmt: skip
        served()
        done = subprocess.run(argv, cwd=suite.repo, env=os.environ, capture_output=True)
        seen = served()
        data = orjson.loads(report.read_bytes())
    if done.returncode not in (0, 3):
        raise SystemExit(f"run failed, exit {done.returncode}: {done.stderr.decode()[-500:]}")
    errors = len(data["summary"]["errors"])
    span = seen.last - seen.first
    bound = cases * 6 / rate
    share = seen.throttled / seen.requests
    met = span <= 1.25 * bound and share <= 0.05 and done.returncode == 0
    return (
        f"--concurrency {concurrency:8}: exit {done.returncode}"
        + (f" ({errors} case(s) ERROR: 429 past the SDK's retries)" if errors else "")
        + f", {seen.requests} requests, {seen.throttled} answered 429 "
        f"({share:.1%}), request span {span:.1f} s = {span / bound:.2f} x the bound of "
        f"{bound:.1f} s; concurrency peak {data['peak_concurrency']}, final "
        f"{data['final_concurrency']}; report counts {data['usage']['throttled']} pushed back"
        + (f"; targets {'met' if met else 'NOT met'}" if concurrency.startswith("auto") else "")
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1200)
    parser.add_argument("--rate", type=float, default=20.0)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    print(
        f"{args.calls} calls, the stand-in allowing {args.rate:g} requests a second, "
        f"{args.latency * 1000:.0f} ms per answer (full pace needs about "
        f"{args.rate * args.latency:.0f} in flight)"
    )
    start = time.perf_counter()
    for concurrency in ("auto", "4", "8", "16"):
        print(one(args.calls, args.rate, args.latency, concurrency), flush=True)
    print(f"(measured in {time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
