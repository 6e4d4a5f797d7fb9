"""What a sandbox costs per trial over the host: wall time and CPU seconds.

    python benchmarks/sandbox.py [--trials 20] [--image activation-sandbox:bookworm]

Each trial is what the agent backend does around a run, without an agent: a fresh workspace,
home and temp folder, the sandbox's confinement (for docker and bwrap the egress proxy on a
unix socket and the relay to it), and a stand-in "agent", `node -e` writing one file in its
workspace, started through the sandbox's `wrap` and waited for. The same trials on the host
are the baseline: the difference is the sandbox's own cost. Targets (issue 32): at most 1 s
of wall time and 0.3 CPU-s per trial for docker and for bwrap.

CPU: every process's CPU time involved, from the kernel's accounting (cgroup v1 `cpuacct`,
so it runs as root): this process, dockerd and containerd are moved into a cgroup of the
benchmark's own for its duration, so it counts them and all they start (the docker client,
bwrap and what runs inside it, the relay, the stand-in, each container's shim and runc),
and the containers are counted in docker's own cgroup (`/docker`). Trials run one at a
time; the daemons go back to the root cgroup at the end.
"""

from __future__ import annotations

import argparse
import os
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
CPUACCT = Path("/sys/fs/cgroup/cpuacct")
OWN = CPUACCT / f"activation-bench-{os.getpid()}"
CONTAINERS = CPUACCT / "docker"


def daemons() -> list[str]:
    """The process ids of dockerd and containerd."""
    return [
        entry.name
        for entry in Path("/proc").iterdir()
        if entry.name.isdigit() and (entry / "comm").exists()
        and (entry / "comm").read_text().strip() in DAEMONS
    ]  # fmt: skip


def cpu() -> float:
    """CPU seconds charged so far to the benchmark's cgroup and to docker's containers."""
    usage = [group / "cpuacct.usage" for group in (OWN, CONTAINERS)]
    return sum(int(file.read_text()) for file in usage if file.exists()) / 1e9


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
    before = cpu()
    for _ in range(trials):
        started = time.perf_counter()
        await trial(sandbox, node)
        walls.append(time.perf_counter() - started)
    return statistics.median(walls), (cpu() - before) / trials


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--image", default=SANDBOX_IMAGE)
    args = parser.parse_args()
    OWN.mkdir()
    moved = [str(os.getpid()), *daemons()]
    try:
        for pid in moved:
            (OWN / "cgroup.procs").write_text(pid)
        figures = {name: await measure(name, args.image, args.trials)
                   for name in ("host", "bwrap", "docker")}  # fmt: skip
    finally:
        for pid in moved:
            (CPUACCT / "cgroup.procs").write_text(pid)
        OWN.rmdir()
    host_wall, host_cpu = figures["host"]
    print(f"{args.trials} trials each, one at a time; per trial:")
    print(f"{'sandbox':<8} {'wall s':>8} {'CPU s':>8} {'+wall s':>8} {'+CPU s':>8}")
    for name, (wall, cpu) in figures.items():
        print(f"{name:<8} {wall:>8.3f} {cpu:>8.3f} {wall - host_wall:>8.3f} {cpu - host_cpu:>8.3f}")


if __name__ == "__main__":
    anyio.run(main)
