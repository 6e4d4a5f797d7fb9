"""Start-up: wall time and peak memory of the commands a user runs most, each a fresh process.

    python benchmarks/startup.py [--runs 15]

Each command runs `--runs` times as `activation ...` (the installed console script); the
table shows the median and the worst wall time, and the largest peak RSS (from wait4). The
targets: every command under 0.3 s wall on a quiet machine and under 60 MB RSS.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
ACTIVATION = Path(sys.executable).parent / "activation"
TRANSCRIPT = REPO / "tests" / "fixtures" / "streams" / "skill.jsonl"
SKILL = "---\nname: refunds\ndescription: Use when issuing refunds.\n---\n# Refunds\n"
WALL_TARGET = 0.3
RSS_TARGET_MB = 60


def skill_repo(root: Path) -> Path:
    """A git repo with one plugin skill, for `lint` to find its description."""
    skill = root / "plugins" / "billing" / "skills" / "refunds" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text(SKILL)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    return root


def measure(argv: list[str], cwd: Path) -> tuple[float, float]:
    """(wall seconds, peak RSS in MB) of one run."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(ACTIVATION), *argv], cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    _pid, _status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    return wall, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        repo = skill_repo(Path(folder) / "repo")
        commands = {
            "--help": ["--help"],
            "--version": ["--version"],
            "lint": ["lint"],
            "detect": ["detect", str(TRANSCRIPT), "--skill", "auth0:auth0"],
            "bad flag": ["--no-such-flag"],
        }
        print(f"{'command':12} {'median s':>9} {'worst s':>8} {'peak MB':>8}  targets met")
        for name, argv in commands.items():
            measure(argv, repo)  # warm the file cache
            runs = [measure(argv, repo) for _ in range(args.runs)]
            walls = [wall for wall, _rss in runs]
            rss = max(peak for _wall, peak in runs)
            median = statistics.median(walls)
            met = median < WALL_TARGET and rss < RSS_TARGET_MB
            print(f"{name:12} {median:9.3f} {max(walls):8.3f} {rss:8.1f}  {'yes' if met else 'NO'}")


if __name__ == "__main__":
    main()
