"""Where an agent run is started (`--executor`): on this machine, or as a task on a Ray
cluster while this process stays the orchestrator (rounds, escalation, verdicts, the cache,
the report).

This module only reads the flag and wraps a backend; Ray itself is imported by
trials/executor_ray.py, and only when a run is started there, so a local run never pays for
it (nor needs the `skill-activation[ray]` extra).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from urllib.parse import urlsplit

from activation._config import DISTRIBUTION
from activation._errors import InputError
from activation.trials.backend import Backend

LOCAL = "local"
RAY = "ray"
RAY_CLIENT = "ray://"
LOCAL_CLUSTER = "auto"
"""What Ray connects to when neither the flag nor RAY_ADDRESS names a cluster: the one
started on this machine (`ray start --head`)."""
RAY_CONCURRENCY = 64
"""Trials in flight at once on a cluster when `--concurrency` says nothing: the cluster's
own resources (each node's CPUs and agent slots) decide how many run; Ray queues the rest,
so this is only how far ahead of the cluster the orchestrator submits."""


def parse_executor(value: str) -> str:
    """`local`, `ray` or `ray://HOST:PORT` (a cluster's Ray Client address)."""
    if value in (LOCAL, RAY):
        return value
    if value.startswith(RAY_CLIENT):
        parts = urlsplit(value)
        try:
            port = parts.port
        except ValueError:
            port = None
        if parts.hostname and port and not parts.path.strip("/"):
            return value
    raise argparse.ArgumentTypeError(f"must be local, ray or ray://HOST:PORT, got {value!r}")


def on_cluster(executor: str) -> bool:
    return executor != LOCAL


def cluster_address(executor: str, env: Mapping[str, str]) -> str:
    """The cluster an executor names: `ray://HOST:PORT` itself, or for `ray` the
    RAY_ADDRESS variable, else the cluster started on this machine."""
    if executor.startswith(RAY_CLIENT):
        return executor
    return env.get("RAY_ADDRESS") or LOCAL_CLUSTER


def on_executor(backend: Backend, executor: str, env: Mapping[str, str]) -> Backend:
    """`backend` as the executor runs it: itself on this machine, else each of its trials a
    task on the cluster (InputError without the `skill-activation[ray]` extra or for a backend
    whose trials are not agent runs)."""
    if not on_cluster(executor):
        return backend
    from activation.trials.agent.backend import AgentBackend

    if not isinstance(backend, AgentBackend):
        raise InputError("--executor ray runs agent runs (--real, behavior): not Stage A")
    try:
        from activation.trials.executor_ray import RayBackend
    except ImportError:
        raise InputError(
            f"--executor ray needs Ray on this machine: pip install '{DISTRIBUTION}[ray]'"
        ) from None
    return RayBackend(backend, cluster_address(executor, env))
