"""What the Stage A benchmarks share: the local stand-in of the Messages API, run in a
process of its own as the real API would be (so its work does not compete with the tool's
for the interpreter), and a skill repo with a refund matrix of any size.

Imported by the benchmark scripts after they put the repository on `sys.path`.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from tests.support.messages_api import FakeMessagesAPI
from tests.support.scripted_model import refunds_fire
from tests.support.skill_repo import (
    DISTRACTORS,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)


def serve(latency: float, channel: Connection) -> None:
    """The stand-in's process (refund prompts pick the skill, the rest a distractor): report
    the URL, then the request count whenever asked."""
    with FakeMessagesAPI(refunds_fire, latency=latency) as api:
        channel.send(api.base_url)
        while channel.recv() == "count":
            channel.send(api.model_requests)
            api.clear()


@contextmanager
def stand_in(latency: float) -> Iterator[tuple[str, Callable[[], int]]]:
    """The stand-in's URL, and a function counting the model requests it received since
    the last count."""
    ours, theirs = multiprocessing.Pipe()
    process = multiprocessing.get_context("fork").Process(target=serve, args=(latency, theirs))
    process.start()

    def requests() -> int:
        ours.send("count")
        return int(ours.recv())

    try:
        yield ours.recv(), requests
    finally:
        ours.send("stop")
        process.join(timeout=10)
        process.kill()


@dataclass(frozen=True)
class RefundSuite:
    matrix: list[dict[str, object]]
    """Every second case a refund (a positive), the others a chart (a negative)."""
    cases: Path
    distractors: Path


@contextmanager
def refund_suite(root: Path, size: int, base_url: str) -> Iterator[RefundSuite]:
    """A skill repo under `root` whose working tree edits the description, a matrix of
    `size` cases and the distractors; the process works in the repo, asking `base_url`."""
    repos = SkillRepos(root)
    repo = repos("Use when issuing refunds.", candidate="Use for refunds.")
    matrix = [
        case(f"c{i}", f"refund order {i}" if i % 2 else f"plot chart {i}", bool(i % 2))
        for i in range(size)
    ]
    suite = RefundSuite(
        matrix,
        write_cases(root / "cases.json", matrix),
        write_distractors(root / "distractors", DISTRACTORS),
    )
    os.environ.update(ANTHROPIC_BASE_URL=base_url, ANTHROPIC_API_KEY="sk-bench")
    os.chdir(repo.root)
    try:
        yield suite
    finally:
        repos.close()
