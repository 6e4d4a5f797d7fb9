"""Stage A at scale, cold and warm: wall time against the ideal, client CPU per call, RSS.

    python benchmarks/scale.py [--cases 500] [--trials 3] [--concurrency 64] [--latency 0.2]

500 cases x 2 variants x 3 trials = 3,000 calls at `--concurrency 64` against the local
stand-in with 200 ms latency per call. Ideal = ceil(calls / concurrency) x latency. A small
run first (10 cases, its own cache) pays the one-time start-up (importing the SDK and scipy,
about 1.5 s of CPU, which benchmarks/startup.py and the cold figure cover); then the big run
is timed: client CPU is this process's CPU time (user + system, every thread) over the whole
command, report included, divided by the calls; the stand-in runs in a process of its own,
as the real API would, so its work is not counted. Then the same run again on the warm
response cache: it must make 0 model requests. Peak RSS is this process's high-water mark.
"""

from __future__ import annotations

import argparse
import math
import resource
import sys
import tempfile
import time
from contextlib import redirect_stdout
from io import StringIO
from pathlib import Path

import platformdirs

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from refund_stand_in import refund_suite, stand_in

from activation.commands.main import main
from tests.support.skill_repo import write_cases


def timed(argv: list[str]) -> tuple[int, float, float]:
    """Exit code, wall seconds and CPU seconds of one in-process run of the command."""
    cpu = time.process_time()
    start = time.perf_counter()
    with redirect_stdout(StringIO()):
        code = main(argv)
    return code, time.perf_counter() - start, time.process_time() - cpu


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=500)
    parser.add_argument("--trials", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--latency", type=float, default=0.2)
    args = parser.parse_args()
    calls = args.cases * 2 * args.trials
    # The run's files live where the response cache lives by default, the user cache
    # directory: on some machines /tmp creates files many times slower than the home disk.
    scratch = Path(platformdirs.user_cache_dir("activation-benchmark", appauthor=False))
    scratch.mkdir(parents=True, exist_ok=True)
    with (
        tempfile.TemporaryDirectory(dir=scratch) as folder,
        stand_in(args.latency) as (url, requests),
        refund_suite(Path(folder), args.cases, url) as suite,
    ):
        root = Path(folder)

        def argv(cases: Path, cache: str) -> list[str]:
            return [
                "--cases", str(cases), "--distractors", str(suite.distractors),
                "--trials", str(args.trials), "--max-trials", str(args.trials),
                "--concurrency", str(args.concurrency), "--cache-dir", str(root / cache),
            ]  # fmt: skip

        small = write_cases(root / "small.json", suite.matrix[:10])
        _code, _wall, first_cpu = timed(argv(small, "small-cache"))
        requests()
        code, wall, cpu = timed(argv(suite.cases, "cache"))
        cold_calls = requests().requests
        warm_code, warm_wall, _warm_cpu = timed(argv(suite.cases, "cache"))
        warm_calls = requests().requests
    if code != 0 or cold_calls != calls or warm_code != 0:
        raise SystemExit(f"benchmark run failed: exit {code}/{warm_code}, {cold_calls} calls")
    ideal = math.ceil(calls / args.concurrency) * args.latency
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"{args.cases} cases x 2 variants x {args.trials} trials = {calls} calls, concurrency "
        f"{args.concurrency}, latency {args.latency * 1000:.0f} ms: wall {wall:.2f} s, ideal "
        f"{ideal:.2f} s, ratio {wall / ideal:.2f}; client CPU {cpu:.2f} s = "
        f"{cpu / calls * 1000:.2f} ms per call (the first, small run took {first_cpu:.2f} s "
        f"with start-up); peak RSS {peak:.0f} MB; warm rerun "
        f"{warm_wall:.2f} s with {warm_calls} model requests"
    )


if __name__ == "__main__":
    main_benchmark()
