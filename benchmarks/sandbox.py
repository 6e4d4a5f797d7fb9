"""What a sandbox costs per trial over the host: wall time and CPU seconds.

    python benchmarks/sandbox.py [--trials 20] [--image activation-sandbox:bookworm]

Each trial is what the agent backend does around a run, without an agent: a fresh workspace,
home and temp folder, the sandbox's confinement (for docker and bwrap the egress proxy on a
unix socket and the relay to it), and a stand-in "agent", `node -e` writing one file in its
workspace, started through the sandbox's `wrap` and waited for. The same trials on the host
are the baseline: the difference is the sandbox's own cost. Targets (issue 32): at most 1 s
of wall time and 0.3 CPU-s per trial for docker and for bwrap.

CPU: the CPU time of this process and its children (the docker client, bwrap, the relay and
the stand-in), and for docker also what the daemons spent meanwhile (dockerd and
containerd, read from /proc). Not counted: each container's runc and shim, which belong to
no process this one can see (so docker's figure is a floor). Trials run one at a time.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation._config import SANDBOX_IMAGE
from activation.trials.agent.adapter import Launch
from activation.trials.agent.sandbox import Sandbox, View, sandbox_named
from activation.trials.agent.sandbox_egress import request_budget

AGENT = "require('fs').writeFileSync('out.txt', 'written')"
URLS = {"ANTHROPIC_BASE_URL": "http://127.0.0.1:9"}
DAEMONS = ("dockerd", "containerd")
TICKS = os.sysconf("SC_CLK_TCK")


def own_cpu() -> float:
    """CPU seconds of this process and its waited-for children."""
    mine = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return sum((mine.ru_utime, mine.ru_stime, children.ru_utime, children.ru_stime))


def daemons_cpu() -> float:
    """CPU seconds dockerd and containerd have spent (0 where neither runs)."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        if name in DAEMONS:
            fields = stat[stat.rindex(")") + 2 :].split()
            total += int(fields[11]) + int(fields[12])
    return total / TICKS


async def trial(sandbox: Sandbox, node: str) -> None:
    base = Path(tempfile.mkdtemp(prefix="activation-bench-"))
    try:
        work, home, tmp = base / "work", base / "home", base / "tmp"
        for folder in (work, home, tmp):
            folder.mkdir()
        view = View(work, (work, home, tmp), ())
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "TMPDIR": str(tmp)}
        async with sandbox.confined(view, URLS, request_budget(8), base) as confined:
            launch = confined.wrap(Launch([node, "-e", AGENT], env))
            await anyio.run_process(launch.argv, env=launch.env, cwd=work, check=True)
        assert (work / "out.txt").read_text() == "written"
    finally:
        shutil.rmtree(base, ignore_errors=True)


async def measure(name: str, image: str, trials: int) -> tuple[float, float]:
    """The median wall seconds and the mean CPU seconds of one trial in sandbox `name`."""
    sandbox = sandbox_named(name, image)
    node = shutil.which("node") or "node"
    await trial(sandbox, node)  # warm: the image's layers, the CLI's files in the page cache
    walls = []
    cpu_before, daemons_before = own_cpu(), daemons_cpu()
    for _ in range(trials):
        started = time.perf_counter()
        await trial(sandbox, node)
        walls.append(time.perf_counter() - started)
    cpu = own_cpu() - cpu_before + daemons_cpu() - daemons_before
    return statistics.median(walls), cpu / trials


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--image", default=SANDBOX_IMAGE)
    args = parser.parse_args()
    figures = {name: await measure(name, args.image, args.trials)
               for name in ("host", "bwrap", "docker")}  # fmt: skip
    host_wall, host_cpu = figures["host"]
    print(f"{args.trials} trials each, one at a time; per trial:")
    print(f"{'sandbox':<8} {'wall s':>8} {'CPU s':>8} {'+wall s':>8} {'+CPU s':>8}")
    for name, (wall, cpu) in figures.items():
        print(f"{name:<8} {wall:>8.3f} {cpu:>8.3f} {wall - host_wall:>8.3f} {cpu - host_cpu:>8.3f}")


if __name__ == "__main__":
    anyio.run(main)
