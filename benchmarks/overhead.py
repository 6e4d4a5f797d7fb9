"""Fixed costs: what the whole `activation` command spends outside its requests.

    python benchmarks/overhead.py [--repeat 3]

Each run is the installed console script in a process of its own, timed from its start to
its exit, against the local stand-in (its own process, a fixed latency per call), with the
response cache off so every trial asks. The stand-in notes when the first request arrived
and when the last answer went out, so the command splits into: before the first request
(start-up, inputs, the SDK's import), the request span, and after the last answer (judging,
the report). The bound is what a perfect scheduler would take at that concurrency:
ceil(calls / concurrency) x latency.

Three targets (issue 13):
- 240 calls at --concurrency 16, 200 ms: the whole command <= 1.2 x the bound + the time it
  takes a fresh interpreter to import the SDK (measured here, best of five);
- 3,000 calls at --concurrency 64, 200 ms: the whole command minus the request span
  <= 1.5 s;
- `activation --dry-run` on the bundled suite, no API key: <= 1 s.
"""

from __future__ import annotations

import argparse
import math
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from refund_stand_in import refund_suite, stand_in

ACTIVATION = Path(sys.executable).parent / "activation"
REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Split:
    wall: float
    before: float
    span: float
    after: float
    bound: float


def sdk_import() -> float:
    """Seconds a fresh interpreter takes to import the SDK, beyond starting at all."""

    def best(code: str) -> float:
        times = []
        for _ in range(5):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - start)
        return min(times)

    return best("import anthropic") - best("pass")


def command(cases: int, concurrency: int, latency: float) -> Split:
    with (
        tempfile.TemporaryDirectory() as folder,
        stand_in(latency) as (url, served),
        refund_suite(Path(folder), cases, url) as suite,
    ):
        argv = [
            str(ACTIVATION), "--cases", str(suite.cases), "--distractors", str(suite.distractors),
            "--trials", "3", "--max-trials", "3", "--concurrency", str(concurrency), "--no-cache",
        ]  # fmt: skip
        start = time.time()
        done = subprocess.run(argv, cwd=suite.repo, env=os.environ, capture_output=True)
        end = time.time()
        seen = served()
    calls = cases * 2 * 3
    if done.returncode != 0 or seen.requests != calls:
        raise SystemExit(f"run failed: exit {done.returncode}, {seen.requests} calls")
    bound = math.ceil(calls / concurrency) * latency
    return Split(end - start, seen.first - start, seen.last - seen.first, end - seen.last, bound)


def dry_run() -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        skill = root / "plugins" / "auth0" / "skills" / "auth0" / "SKILL.md"
        skill.parent.mkdir(parents=True)
        skill.write_text("---\nname: auth0\ndescription: Use when adding login with Auth0.\n---\n")
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        subprocess.run(["git", "-C", str(root), "add", "-A"], check=True)
        subprocess.run(
            ["git", "-C", str(root), "-c", "user.name=b", "-c", "user.email=b@b", "commit",
             "-qm", "skill"],
            check=True,
        )  # fmt: skip
        start = time.perf_counter()
        done = subprocess.run(
            [str(ACTIVATION), "--dry-run"], cwd=root, env=env, capture_output=True
        )
        wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"dry run failed: {done.stderr.decode()}")
    return wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sdk = sdk_import()
    print(f"SDK import in a fresh interpreter: {sdk:.2f} s")
    for cases, concurrency in ((40, 16), (500, 64)):
        for _ in range(args.repeat):
            split = command(cases, concurrency, 0.2)
            outside = split.wall - split.span
            target = (
                f"whole <= 1.2 x bound + SDK = {1.2 * split.bound + sdk:.2f} s: "
                f"{'met' if split.wall <= 1.2 * split.bound + sdk else 'NOT met'}"
                if cases == 40
                else f"outside <= 1.5 s: {'met' if outside <= 1.5 else 'NOT met'}"
            )
            print(
                f"{cases * 6} calls at c{concurrency}: whole {split.wall:.2f} s, bound "
                f"{split.bound:.2f} s, before the first request {split.before:.2f} s, span "
                f"{split.span:.2f} s ({split.span / split.bound:.2f} x bound), after the last "
                f"{split.after:.2f} s, outside the span {outside:.2f} s; {target}"
            )
    for _ in range(args.repeat):
        wall = dry_run()
        print(f"--dry-run on the bundled suite, no key: {wall:.2f} s; <= 1 s: "
              f"{'met' if wall <= 1 else 'NOT met'}")  # fmt: skip


if __name__ == "__main__":
    main()
