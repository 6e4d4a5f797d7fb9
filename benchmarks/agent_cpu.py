"""The tool's own CPU per agent run against the agent CLI's own CPU, on the host: Stage B
through the real pinned Claude Code at the local stand-in, `--sandbox host`.

    python benchmarks/agent_cpu.py [--trials 3 6] [--latency 0.5] [--concurrency 4]

The command runs in a process of its own, which reports at its end the CPU time (user +
system) it spent itself and what the processes it started and waited for spent (the agent
CLIs; a few `git` and `claude --version` calls among them). The tool's share is the first
against the second: for the whole run at each size, and per extra agent run (the
difference between two sizes, which leaves out what a run pays once: Python's start, the
imports, the skill copies). A first run, not counted, writes the bytecode caches an
installed package has. The stand-in answers in this process, so its CPU counts in neither.
It uses the pinned CLI the tests install into .claude-cli/ (installing it if needed).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.support.refund_bench import refund_suite

ROOT = Path(__file__).resolve().parent.parent
CHILD = """
import json, resource, sys
from contextlib import redirect_stdout
from io import StringIO
from activation.commands.main import main
with redirect_stdout(StringIO()):
    code = main(sys.argv[1:])
own = resource.getrusage(resource.RUSAGE_SELF)
children = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": code, "own": own.ru_utime + own.ru_stime,
                  "children": children.ru_utime + children.ru_stime}))
"""
"""The command, then its own CPU and its waited-for children's, as one JSON line."""


def measured(
    claude: Path, root: Path, repo: Path, trials: int, concurrency: int
) -> dict[str, float]:
    argv = [
        "--real", "--claude", str(claude), "--sandbox", "host", "--only", "refund,chart",
        "--cases", str(root / "cases.json"), "--distractors", str(root / "distractors"),
        "--trials", str(trials), "--max-trials", str(trials), "--concurrency", str(concurrency),
        "--max-turns", "3", "--no-cache",
    ]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", CHILD, *argv], cwd=repo, env=env,
                          capture_output=True, text=True, check=False)  # fmt: skip
    if done.returncode != 0:
        raise SystemExit(f"benchmark run failed: {done.stderr.strip()[-500:]}")
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    if found["code"] != 0:
        raise SystemExit(f"benchmark run exited {found['code']}: {done.stderr.strip()[-500:]}")
    return found


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, nargs=2, default=[3, 6], metavar=("FEW", "MORE"))
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per model call")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()
    with refund_suite(args.latency) as (claude, root, repo):
        measured(claude, root, repo, 1, args.concurrency)  # the bytecode caches
        sizes = [(4 * trials, measured(claude, root, repo, trials, args.concurrency))
                 for trials in args.trials]  # fmt: skip
    for runs, found in sizes:
        own, cli = found["own"], found["children"]
        print(
            f"{runs} Stage B runs on the host, latency {args.latency * 1000:.0f} ms: the tool "
            f"{own:.2f} CPU-s, the CLIs {cli:.2f} CPU-s: the tool's own CPU is "
            f"{100 * own / cli:.1f} % of the CLIs'"
        )
    (few, small), (more, large) = sizes
    own = (large["own"] - small["own"]) / (more - few)
    cli = (large["children"] - small["children"]) / (more - few)
    print(
        f"per extra run: the tool {own:.3f} CPU-s, the CLI {cli:.3f} CPU-s: {100 * own / cli:.1f} %"
    )


if __name__ == "__main__":
    main_benchmark()
