"""Stage B on a Ray cluster: a 40-trial run of the real Claude Code CLI on one worker node
and on two, at the same per-node concurrency, on the local stand-in with a fixed model
latency per call (a real API is latency-bound); and the same run on this machine at that
concurrency. Dispatch is what a trial costs on the cluster beyond its run: the mean time
of a trial's call to its node's actor, less the mean time of a trial's run on this
machine (both timed here, start-up excluded). Each figure is printed with the machine's
load average (1 minute) at its end.

    python benchmarks/ray_scale.py [--latency 2] [--per-node 4] [--cases 20]

`--cases N` runs N cases (2N trials) instead of 20: at `--per-node 1` each node runs its
trials one by one, and `--cases 8` keeps the three runs under 6 minutes on a quiet machine.

It uses the pinned CLI the tests install into .claude-cli/ (installing it if needed) and
starts its clusters on this machine (tests/support/ray_cluster.py): their nodes share its
CPUs, so on a small machine the agent CLIs' own start-up can bound the two-node run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from activation.commands.main import main
from activation.trials.agent.backend import AgentBackend
from activation.trials.executor_ray import RayBackend
from tests.support.claude_cli import CLAUDE
from tests.support.messages_api import FakeMessagesAPI, FakeRequest, Reply, Text, ToolUse
from tests.support.ray_cluster import RayCluster
from tests.support.skill_repo import SKILL_ID, SkillRepos, case, write_cases

CASES = 20
"""Cases of one trial per variant unless `--cases` says: 40 trials."""
KEY = "sk-bench"


@dataclass(frozen=True)
class Timed:
    """A run's wall time, the mean time of its trials' runs as this process awaited them,
    and the load average (1 minute) at its end."""

    seconds: float
    per_trial: float
    load: float

    def __str__(self) -> str:
        return f"{self.seconds:.1f} s, {self.per_trial:.2f} s a trial (load {self.load:.1f})"


@contextmanager
def timing(backend: type[Any], took: list[float]) -> Iterator[None]:
    """Each `backend.run` this process awaits, timed into `took`."""
    original = backend.run

    async def timed(self: Any, key: Any, *args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return await original(self, key, *args, **kwargs)
        finally:
            took.append(time.perf_counter() - started)

    backend.run = timed
    try:
        yield
    finally:
        backend.run = original


def script(request: FakeRequest) -> Reply:
    """The skill loads on the refund cases' first turn; every other request is answered."""
    loads = request.is_main_loop and request.turn == 0 and "refund" in request.prompt
    return ToolUse("Skill", {"skill": SKILL_ID}) if loads else Text("Done.")


def timed_run(claude: Path, root: Path, cases: int, concurrency: int, executor: str) -> Timed:
    """The first `cases` cases (half refunds), one trial per variant."""
    ids = ",".join(f"{kind}-{i}" for i in range(CASES) for kind in ("refund", "chart"))
    argv = [
        "--real", "--claude", str(claude), "--only", ",".join(ids.split(",")[:cases]),
        "--cases", str(root / "cases.json"), "--trials", "1", "--max-trials", "1",
        "--concurrency", str(concurrency), "--max-turns", "3", "--no-cache",
        "--executor", executor,
    ]  # fmt: skip
    took: list[float] = []
    started = time.perf_counter()
    with (
        redirect_stdout(StringIO()),
        timing(RayBackend if executor == "ray" else AgentBackend, took),
    ):
        failed = main(argv) != 0
    if failed:
        raise SystemExit(f"the {executor} run failed")
    return Timed(time.perf_counter() - started, statistics.mean(took), os.getloadavg()[0])


def on_cluster(claude: Path, root: Path, cases: int, nodes: int, per_node: int) -> Timed:
    own = {"ANTHROPIC_API_KEY": KEY, "CLAUDE_CODE_MAX_RETRIES": "0"}
    with RayCluster(nodes, own, cpus=per_node) as cluster:
        os.environ["RAY_ADDRESS"] = cluster.address
        return timed_run(claude, root, cases, nodes * per_node, "ray")


def laid_out(root: Path) -> Path:
    """The skill's repository and the cases, half of them refunds (the skill loads)."""
    cases = [(f"refund-{i}", f"refund order {i}", True) for i in range(CASES)]
    cases += [(f"chart-{i}", f"plot sales of week {i}", False) for i in range(CASES)]
    write_cases(root / "cases.json", [case(*entry) for entry in cases])
    return SkillRepos(root)("Use when issuing refunds.", candidate="Use for refunds.").root


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=2.0, help="seconds per model call")
    parser.add_argument("--per-node", type=int, default=4, help="agent runs at once a node")
    parser.add_argument("--cases", type=int, default=CASES, choices=range(2, CASES + 1),
                        metavar=f"2..{CASES}", help="cases, each one trial a variant")  # fmt: skip
    args = parser.parse_args()
    claude, problem = CLAUDE.locate()
    if claude is None:
        raise SystemExit(problem)
    with ExitStack() as stack:
        root = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        api = stack.enter_context(FakeMessagesAPI(script, latency=args.latency))
        os.chdir(laid_out(root))
        os.environ.update(
            ANTHROPIC_BASE_URL=api.base_url, ANTHROPIC_API_KEY=KEY, CLAUDE_CODE_MAX_RETRIES="0"
        )
        local = timed_run(claude, root, args.cases, args.per_node, "local")
        one = on_cluster(claude, root, args.cases, 1, args.per_node)
        two = on_cluster(claude, root, args.cases, 2, args.per_node)
    trials = 2 * args.cases
    dispatch = one.per_trial - local.per_trial
    print(
        f"{trials} Stage B trials, latency {args.latency:g} s a call, {args.per_node} runs at "
        f"once a node: this machine {local}; one worker node {one}; two worker nodes {two} "
        f"(ratio {two.seconds / one.seconds:.2f}); dispatch {dispatch:.2f} s a trial"
    )


if __name__ == "__main__":
    main_benchmark()
