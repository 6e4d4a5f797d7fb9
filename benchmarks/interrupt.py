"""Ctrl-C in a Stage A run: seconds from SIGINT to exit, and the trials run after it.

    python benchmarks/interrupt.py [--cases 3000] [--trials 20] [--after 5] [--latency 3]

Two runs of `python -m activation` in processes of their own, each sent SIGINT `--after`
seconds into it: the mock model (counted from the process's start) on a matrix of `--cases`
refund cases with `--trials` trials per variant (a first round of cases x 2 x trials, long
enough to be cut: the mock answers 18,000 trials in about 3 s), and the local stand-in of
the Messages API answering every request after `--latency` seconds on average (40 cases,
3 trials, at concurrency 16; counted from the first request it got).
Each line says the exit code (130 expected), the seconds from the signal to the exit, and
how many trials the partial JSON report holds against the first round's size.
"""

from __future__ import annotations

import argparse
import logging
import os
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from refund_stand_in import refund_suite, stand_in

ROOT = Path(__file__).resolve().parent.parent


def interrupted(suite_cases: Path, distractors: Path, report: Path,
                wait: Callable[[], object], *flags: str) -> tuple[int, float, int]:  # fmt: skip
    """Exit code, seconds from SIGINT (sent once `wait` returns) to exit, trials in the
    partial report."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "activation", "--cases", str(suite_cases),
         "--distractors", str(distractors), "--json", str(report), "--full-record",
         "--no-cache", *flags],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    wait()
    sent = time.perf_counter()
    process.send_signal(signal.SIGINT)
    code = process.wait(timeout=120)
    took = time.perf_counter() - sent
    data = orjson.loads(report.read_bytes()) if report.exists() else {}
    trials = sum(len(case.get("trials", [])) for case in data.get("cases", []))
    return code, took, trials


def line(what: str, result: tuple[int, float, int], first_round: int) -> str:
    code, took, trials = result
    return f"{what}: exit {code}, {took:.2f} s from SIGINT to exit, {trials:,} of {first_round:,} first-round trials in the report"  # noqa: E501


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--after", type=float, default=5.0)
    parser.add_argument("--latency", type=float, default=3.0)
    args = parser.parse_args()
    logging.getLogger("uvicorn.error").disabled = True  # the stand-in's cancelled answers
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        with refund_suite(root / "mock", args.cases, "http://127.0.0.1:9") as suite:
            mock = interrupted(suite.cases, suite.distractors, root / "mock.json",
                               partial(time.sleep, args.after),
                               "--model", "mock", "--trials", str(args.trials),
                               "--max-trials", str(args.trials))  # fmt: skip
        print(line(f"mock, {args.cases:,} cases", mock, args.cases * 2 * args.trials))
        with (
            stand_in(args.latency) as (base_url, served),
            refund_suite(root / "http", 40, base_url) as suite,
        ):

            def in_flight() -> None:
                """`--after` seconds into the trials: from the first request the stand-in got
                (the process's start-up, the SDK's import, varies with the machine's load)."""
                while not served().first:
                    time.sleep(0.05)
                time.sleep(args.after)

            http = interrupted(suite.cases, suite.distractors, root / "http.json", in_flight,
                               "--concurrency", "16")  # fmt: skip
        print(line(f"stand-in answering after {args.latency:g} s, 40 cases", http, 40 * 6))


if __name__ == "__main__":
    main_benchmark()
