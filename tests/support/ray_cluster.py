"""A real Ray cluster on this machine, as the tests and the Ray benchmark start one: a head
with no CPU of its own (it schedules, runs no trial) and worker nodes as separate process
groups, each offering the agent's runs (`agent:<name>`), the dashboard off. A worker can be
killed mid-run (the whole node: its raylet and its workers); leaving the cluster kills every
process group it started, never any other Ray on the machine."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Self

import orjson

ROOT = Path(__file__).resolve().parents[2]
RAY = Path(sys.executable).with_name("ray")
READY_SECONDS = 300.0
"""How long a node may take to join: minutes on a machine whose CPUs are all taken."""
ALIVE_MARK = "alive-workers:"
"""What starts the line of `alive_workers`' count in its child's output."""
CLIENT_SECONDS = "180"
"""How long the head's Ray Client server waits for the server it starts for each client to
answer (Ray's `RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S`, 30 s by default): that server is
a new Python process, which took longer on this machine with both CPUs taken by agent runs."""
HEALTH = {"health_check_period_ms": 1000, "health_check_failure_threshold": 10}
"""How soon the head declares a killed node dead: about 10 s, not Ray's default 15 s (a
tighter check declares live nodes dead on a busy machine)."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class RayCluster:
    """`workers` nodes of `cpus` CPUs and as many runs of `agent` each, whose processes see
    `env` (their own API key) and this checkout on PYTHONPATH."""

    def __init__(
        self,
        workers: int,
        env: Mapping[str, str],
        cpus: int = 1,
        agent: str = "claude-code",
        client: bool = False,
    ) -> None:
        self.workers = workers
        self.cpus = cpus
        self.agent = agent
        self.port = free_port()
        self.address = f"127.0.0.1:{self.port}"
        self.client_port = free_port() if client else None
        """The head's Ray Client server's (`--executor ray://HOST:PORT`), when it serves one
        (its server needs grpcio, which Ray's `client` extra brings)."""
        self.temp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
        """Short: Ray's unix sockets live under it."""
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
            "RAY_USAGE_STATS_ENABLED": "0",
            "RAY_CLIENT_SERVER_CHECK_CHANNEL_TIMEOUT_S": CLIENT_SECONDS,
            **env,
        }
        self.nodes: list[subprocess.Popen[bytes]] = []
        self.head: subprocess.Popen[bytes] | None = None

    def _start(self, *flags: str, env: Mapping[str, str] = {}) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [str(RAY), "start", "--block", "--disable-usage-stats", f"--temp-dir={self.temp}",
             *flags],
            env={**self.env, **env},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip

    def __enter__(self) -> Self:
        try:
            self.head = self._start(
                "--head", f"--port={self.port}", "--num-cpus=0", "--include-dashboard=false",
                f"--system-config={orjson.dumps(HEALTH).decode()}",
                *([f"--ray-client-server-port={self.client_port}"] if self.client_port else []),
            )  # fmt: skip
            self._wait_for_port()
            for _ in range(self.workers):
                self.add_worker()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    @property
    def client_address(self) -> str:
        """The head's Ray Client server, as `--executor` names it."""
        assert self.client_port is not None
        return f"ray://127.0.0.1:{self.client_port}"

    def add_worker(self, env: Mapping[str, str] = {}) -> None:
        """One more worker node, once it is up (one at a time: two nodes of one machine
        joining at once can fail to); `env`: what its processes see unlike the others'."""
        resources = orjson.dumps({f"agent:{self.agent}": self.cpus}).decode()
        self.nodes.append(
            self._start(
                f"--address={self.address}",
                f"--num-cpus={self.cpus}",
                f"--resources={resources}",
                env=env,
            )
        )
        self.wait_for(len(self.nodes))

    def remove_worker(self, node: int) -> None:
        """The worker node killed and gone from the head's live nodes."""
        self.kill(node)
        self.nodes.pop(node)
        self.wait_for(len(self.nodes))

    def _wait_for_port(self) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while time.monotonic() < deadline:
            with socket.socket() as sock:
                if sock.connect_ex(("127.0.0.1", self.port)) == 0:
                    return
            time.sleep(0.2)
        raise RuntimeError(f"the Ray head did not start on port {self.port}")

    def alive_workers(self) -> int:
        """Live nodes that offer the agent, as the head sees them (asked from a child
        process, so this one never becomes a driver). The count comes on a line of its own,
        after `ALIVE_MARK`: Ray may print its own notices to stdout too."""
        resource = f"agent:{self.agent}"
        script = (
            f"import ray, logging; ray.init(address={self.address!r}, "
            f"logging_level=logging.ERROR, log_to_driver=False); print({ALIVE_MARK!r}, "
            f"sum(1 for n in ray.nodes() if n['Alive'] and n['Resources'].get({resource!r})))"
        )
        done = subprocess.run([sys.executable, "-c", script], env=self.env, text=True,
                              capture_output=True, timeout=READY_SECONDS, check=True)  # fmt: skip
        (count,) = [line.split()[1] for line in done.stdout.splitlines()
                    if line.startswith(f"{ALIVE_MARK} ")]  # fmt: skip
        return int(count)

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + READY_SECONDS
        while self.alive_workers() != count:
            stopped = [node.args for node in self.nodes if node.poll() is not None]
            if stopped or time.monotonic() > deadline:
                raise RuntimeError(f"the Ray cluster never had {count} live worker nodes")
            time.sleep(0.5)

    def kill(self, node: int) -> None:
        """The worker node's whole process group, at once (SIGKILL): a machine lost."""
        os.killpg(self.nodes[node].pid, signal.SIGKILL)
        self.nodes[node].wait()

    def logs(self) -> list[Path]:
        """Every file Ray wrote for the cluster: its logs and its sessions' records."""
        return [path for path in self.temp.rglob("*") if path.is_file()]

    def __exit__(self, *exc_info: object) -> None:
        """Every process group at once (a test cluster keeps nothing worth a graceful
        stop, which takes Ray seconds per node)."""
        for process in [*self.nodes, *([self.head] if self.head else [])]:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        shutil.rmtree(self.temp, ignore_errors=True)
