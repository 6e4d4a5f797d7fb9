"""What the Stage A benchmarks share: the local stand-in of the Messages API, run in a
process of its own as the real API would be (so its work does not compete with the tool's
for the interpreter), and a skill repo with a refund matrix of any size.

It bills prompt caching as the API does (tests/support/messages_api.py, `PromptCache`).
Each answer waits `latency` seconds, spread evenly between half and one and a half times
that (a seeded draw), as real answers vary. The stand-in can hold a rate limit (`rate`
requests per second, a token bucket holding one second's worth, as the real API's limits
are kept): a request with no token left is answered
429 with the whole seconds to wait in `retry-after`, as the real API does. It reports, when
asked, how many model requests it got since the last count, how many it answered 429, and
when (wall clock) the first arrived and the last was answered.

Imported by the benchmark scripts after they put the repository on `sys.path`.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from multiprocessing.connection import Connection
from pathlib import Path

from tests.support.messages_api import Error, FakeMessagesAPI, FakeRequest, Reply
from tests.support.scripted_model import refunds_fire
from tests.support.skill_repo import (
    DISTRACTORS,
    CaseEntry,
    SkillRepos,
    case,
    write_cases,
    write_distractors,
)


@dataclass(frozen=True)
class Served:
    """What the stand-in saw between two counts."""

    requests: int
    throttled: int
    first: float
    """Wall-clock time the first request arrived (0 without one)."""
    last: float
    """Wall-clock time the last answer went out (arrival plus latency)."""


class Counted:
    """The refund script behind a token bucket, with the times requests came and went.

    `arrive` is the stand-in's latency function, called as a request arrives: it takes a
    token (or not) and says how long the answer waits; the script then answers as decided.
    """

    def __init__(self, latency: float, rate: float | None) -> None:
        self.latency = latency
        self.rate = rate
        self.draws = random.Random(0)
        self.tokens = rate or 0.0
        self.refilled = time.monotonic()
        self.lock = threading.Lock()
        self.refused: dict[int, int] = {}
        """Seconds to wait, by request, for the requests answered 429."""
        self.reset()

    def reset(self) -> None:
        self.throttled = 0
        self.first = 0.0
        self.last = 0.0

    def arrive(self, request: FakeRequest) -> float:
        now = time.time()
        with self.lock:
            self.first = self.first or now
            if self.rate is not None:
                tick = time.monotonic()
                self.tokens = min(self.rate, self.tokens + (tick - self.refilled) * self.rate)
                self.refilled = tick
                if self.tokens < 1:
                    self.throttled += 1
                    self.refused[id(request)] = math.ceil((1 - self.tokens) / self.rate)
                    self.last = max(self.last, now)
                    return 0.0
                self.tokens -= 1
            wait = self.latency * (0.5 + self.draws.random())
            self.last = max(self.last, now + wait)
        return wait

    def __call__(self, request: FakeRequest) -> Reply:
        with self.lock:
            wait = self.refused.pop(id(request), None)
        if wait is not None:
            return Error(429, retry_after=wait, type="rate_limit_error")
        return refunds_fire(request)


def serve(latency: float, rate: float | None, cache_min_tokens: int, channel: Connection) -> None:
    """The stand-in's process: report the URL, then what it served whenever asked."""
    script = Counted(latency, rate)
    with FakeMessagesAPI(script, latency=script.arrive, cache_min_tokens=cache_min_tokens) as api:
        channel.send(api.base_url)
        while channel.recv() == "count":
            channel.send(Served(api.model_requests, script.throttled, script.first, script.last))
            api.clear()
            script.reset()


@contextmanager
def stand_in(
    latency: float, rate: float | None = None, cache_min_tokens: int = 1024
) -> Iterator[tuple[str, Callable[[], Served]]]:
    """The stand-in's URL, and a function saying what it served since the last call."""
    ours, theirs = multiprocessing.Pipe()
    context = multiprocessing.get_context("fork")
    process = context.Process(target=serve, args=(latency, rate, cache_min_tokens, theirs))
    process.start()

    def served() -> Served:
        ours.send("count")
        found: Served = ours.recv()
        return found

    try:
        yield ours.recv(), served
    finally:
        ours.send("stop")
        process.join(timeout=10)
        process.kill()


@dataclass(frozen=True)
class RefundSuite:
    matrix: list[CaseEntry]
    """Every second case a refund (a positive), the others a chart (a negative)."""
    cases: Path
    distractors: Path
    repo: Path


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
        repo.root,
    )
    os.environ.update(ANTHROPIC_BASE_URL=base_url, ANTHROPIC_API_KEY="sk-bench")
    os.chdir(repo.root)
    try:
        yield suite
    finally:
        repos.close()
